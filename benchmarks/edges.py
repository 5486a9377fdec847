"""Hostile input at the edges: schemas, collect mode, views and provider streams, each grown.

Part of ``hostile.py``'s group (``--only edges`` selects them all, ``--only schema`` the schema
ones...). Each workload here is a whole use of the public API whose input grows with ``n``: a
schema of ``n`` levels, ``n`` strings against an ``n``-value ``enum``, ``n`` violations kept in
collect mode, ``view()`` after each of ``n`` records, a Gemini ``jsonPath`` of ``n`` segments, a
Vercel tool input of ``n`` bytes. The input is made before the clock starts (:attr:`Edge.make`);
the timed part (:attr:`Edge.act`) is what a user's code would do with it; :attr:`Edge.expect`
checks the outcome once per size. The growth exponent from ``N`` to ``4N`` is measured by
``hostile.measure`` exactly as for the parser's own hostile documents.

The memory figures of collect mode (what ``n`` kept violations hold) are ``collect_memory.py``'s.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

import jsonsnap


@dataclass(frozen=True)
class Edge:
    """One workload at the edges: an input of size ``n`` and what is done with it."""

    name: str
    description: str
    make: Callable[[int], Any]
    """The input of size ``n`` (not timed)."""
    act: Callable[[Any], Any]
    """The timed work on that input; what it returns goes to :attr:`expect`."""
    expect: Callable[[int, Any], str | None]
    """``None`` when the outcome for size ``n`` is right, else what is wrong."""
    n: int
    unit: str = "n"

    def prepare(self, n: int) -> Any:
        return self.make(n)

    def run(self, prepared: Any) -> Any:
        try:
            return self.act(prepared)
        except Exception as exc:  # what escapes is a finding: expect() reports it
            return f"raised {type(exc).__name__}: {str(exc)[:120]}"

    def check(self, n: int, prepared: Any, outcome: Any) -> str | None:
        return self.expect(n, outcome)


# --------------------------------------------------------------------------- schemas


def doubling_refs(n: int, keyword: str = "anyOf") -> dict[str, Any]:
    """``n`` definitions, each an ``anyOf`` (or ``allOf``) of two ``$ref``s to the one before:
    expanded naively, ``2**n`` alternatives for one value."""
    defs: dict[str, Any] = {"d0": {"type": "integer"}}
    for i in range(1, n + 1):
        ref = {"$ref": f"#/$defs/d{i - 1}"}
        defs[f"d{i}"] = {keyword: [ref, dict(ref)]}
    return {"$defs": defs, "$ref": f"#/$defs/d{n}"}


def _loads_checked(schema: Any, text: str, **options: Any) -> Any:
    """The value, or the name of the jsonsnap error that refused the schema or the document
    (a refusal is an answer too: it must come as fast)."""
    try:
        return jsonsnap.loads(text, schema=schema, **options)
    except (jsonsnap.SchemaDefinitionError, jsonsnap.SchemaError) as exc:
        return type(exc).__name__


def _value_or_refused(expected: Any) -> Callable[[int, Any], str | None]:
    def expect(n: int, outcome: Any) -> str | None:
        if outcome == expected or outcome == "SchemaDefinitionError":
            return None
        return f"{outcome!r} instead of {expected!r} (or SchemaDefinitionError)"

    return expect


def fed(schema: Any, fragments: list[str], **options: Any) -> jsonsnap.Parser:
    p = jsonsnap.Parser(schema=schema, **options)
    for fragment in fragments:
        p.feed(fragment)
    return p


def pieces(text: str, size: int = 16) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _enum(n: int) -> tuple[dict[str, Any], list[str]]:
    values = [f"value-{i:07d}" for i in range(n)]
    picks = [values[(i * 7919) % n] for i in range(n)]
    return {"type": "array", "items": {"enum": values}}, pieces(json.dumps(picks))


def _closed(n: int) -> tuple[dict[str, Any], list[str]]:
    names = [f"key-{i:07d}" for i in range(n)]
    schema = {
        "type": "object",
        "properties": {name: {"type": "integer"} for name in names},
        "additionalProperties": False,
    }
    doc = {names[(i * 7919) % n]: i for i in range(n)}
    return schema, pieces(json.dumps(doc))


def _count(expected: Callable[[int], int]) -> Callable[[int, Any], str | None]:
    def expect(n: int, outcome: Any) -> str | None:
        if outcome == expected(n):
            return None
        return f"{outcome!r} instead of {expected(n)!r}"

    return expect


def _feed_len(args: tuple[Any, list[str]]) -> int:
    schema, fragments = args
    p = fed(schema, fragments)
    return len(p.close())


def _huge_numbers(n: int) -> list[str]:
    """``n`` documents ``[1e9]``, ``[1e99]``, ... up to 18 nines, over and over (the largest
    exponent a ``Decimal`` holds: past it ``Decimal()`` itself refuses the text, as it does for
    ``json.loads``)."""
    return [f"[1e{'9' * (1 + k % 18)}]" for k in range(n)]


def _decide_huge(texts: list[str]) -> int:
    """How many checks refuse the texts: each number is an integer (a power of ten), and
    none is a multiple of 3, so one refusal per text."""
    schemas = ({"items": {"type": "integer"}}, {"items": {"multipleOf": 3}})
    checks = [(text, schema) for text in texts for schema in schemas]
    return sum(_refused(text, schema) for text, schema in checks)


def _refused(text: str, schema: Any) -> bool:
    try:
        jsonsnap.loads(text, schema=schema, parse_float=Decimal)
    except jsonsnap.SchemaError:
        return True
    return False


# --------------------------------------------------------------------------- collect mode

#: An array whose first element must be an integer, and whose others are of its own kind.
EACH_LEVEL: dict[str, Any] = {
    "$defs": {
        "t": {"type": "array", "prefixItems": [{"type": "integer"}], "items": {"$ref": "#/$defs/t"}}
    },
    "$ref": "#/$defs/t",
}
#: Arrays of arrays with unique elements, at every level.
UNIQUE_EACH_LEVEL: dict[str, Any] = {
    "$defs": {"t": {"type": "array", "uniqueItems": True, "items": {"$ref": "#/$defs/t"}}},
    "$ref": "#/$defs/t",
}


def violations_one_feed(n: int) -> tuple[dict[str, Any], list[str]]:
    return {"type": "array", "items": {"type": "integer"}}, [json.dumps(["x"] * n)]


def violation_per_level(n: int) -> tuple[dict[str, Any], list[str]]:
    return EACH_LEVEL, pieces('["x", ' * n + "[]" + "]" * n)


def _unique_per_level(n: int) -> tuple[dict[str, Any], list[str]]:
    return UNIQUE_EACH_LEVEL, pieces("[" * n + "]" * n)


def _collect(args: tuple[dict[str, Any], list[str]]) -> int:
    """Found in collect mode: the violations kept plus those counted and dropped."""
    schema, fragments = args
    p = fed(schema, fragments, on_violation="collect", max_depth=None)
    with contextlib.suppress(jsonsnap.SchemaError):
        p.close()
    return len(p.violations) + p.violations_dropped


def _checked_depth(args: tuple[dict[str, Any], list[str]]) -> int:
    schema, fragments = args
    value = fed(schema, fragments, max_depth=None).close()
    depth = 0
    while value:
        value = value[0]
        depth += 1
    return depth + 1


# --------------------------------------------------------------------------- views


@dataclass
class Record:
    id: int
    name: str
    tags: list[str]


def _records(n: int) -> list[str]:
    items = [{"id": i, "name": f"record {i}", "tags": ["a", "b"]} for i in range(n)]
    return pieces(json.dumps(items), 24)


def _view_each(fragments: list[str]) -> int:
    p = jsonsnap.Parser(schema=list[Record])
    for fragment in fragments:
        p.feed(fragment)
        p.view()
    return len(p.close())


def _structured_view(n: int) -> list[bytes]:
    """A Chat Completions stream whose answer is a structured output of ``n`` records, one
    SSE event per 24 characters of it."""
    answer = json.dumps({"records": [{"id": i, "name": f"r{i}", "tags": ["a"]} for i in range(n)]})
    events = []
    for piece in pieces(answer, 24):
        chunk = {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}],
        }
        events.append(f"data: {json.dumps(chunk)}\n\n".encode())
    end = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
    }
    events.append(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
    return events


@dataclass
class Records:
    records: list[Record]


def _structured_each(events: list[bytes]) -> int:
    from jsonsnap.openai import ChatCompletionAccumulator

    acc = ChatCompletionAccumulator(output_schema=Records)
    for update in acc.updates(events):
        if update.structured is not None:
            update.structured.view()
    assert acc.structured is not None
    return len(acc.structured.final().records)


# --------------------------------------------------------------------------- providers


def _gemini_path(n: int) -> list[bytes]:
    """A Vertex stream whose one streamed argument sits ``n`` objects deep: a jsonPath of
    ``n + 1`` segments, its string value in 64 pieces."""
    path = "$" + ".a" * n + ".s"
    chunks = [{"functionCall": {"name": "f", "willContinue": True}}]
    for i in range(64):
        last = i == 63
        entry = {"jsonPath": path, "stringValue": "x" * 16, "willContinue": not last}
        chunks.append({"functionCall": {"partialArgs": [entry], "willContinue": not last}})
    out = []
    for i, part in enumerate(chunks):
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [part]}}
        if i == len(chunks) - 1:
            candidate["finishReason"] = "STOP"
        out.append(f"data: {json.dumps({'candidates': [candidate]})}\r\n\r\n".encode())
    return out


def _gemini_depth(events: list[bytes]) -> int:
    from jsonsnap.gemini import GenerateContentAccumulator

    acc = GenerateContentAccumulator()
    acc.read(events)
    value = acc.tool_calls()[0].final()
    depth = 0
    while "a" in value:
        value = value["a"]
        depth += 1
    return depth if value == {"s": "x" * 1024} else -1


def _vercel_input(n: int) -> list[bytes]:
    """A UI message stream with one tool input of about ``n`` bytes in 64-character deltas."""
    text = json.dumps({"content": "y" * n})
    chunks: list[dict[str, Any]] = [
        {"type": "start", "messageId": "m"},
        {"type": "tool-input-start", "toolCallId": "c", "toolName": "write"},
    ]
    chunks.extend(
        {"type": "tool-input-delta", "toolCallId": "c", "inputTextDelta": piece}
        for piece in pieces(text, 64)
    )
    chunks.append({"type": "finish"})
    body = [f"data: {json.dumps(c)}\n\n".encode() for c in chunks]
    body.append(b"data: [DONE]\n\n")
    return body


def _vercel_read(body: list[bytes]) -> int:
    from jsonsnap.vercel import UIMessageAccumulator

    acc = UIMessageAccumulator()
    acc.read(body)
    return len(acc.tool_calls()[0].raw)


#: Every workload at the edges.
EDGES: Final[tuple[Edge, ...]] = (
    Edge(
        "schema/ref-doubling",
        "`loads('1')` against n `$defs`, each an `anyOf` of two `$ref`s to the one before "
        "(2^n alternatives if expanded naively)",
        lambda n: doubling_refs(n),
        lambda schema: _loads_checked(schema, "1"),
        _value_or_refused(1),
        2_000,
        "levels",
    ),
    Edge(
        "schema/ref-doubling-allOf",
        "the same with `allOf`",
        lambda n: doubling_refs(n, "allOf"),
        lambda schema: _loads_checked(schema, "1"),
        _value_or_refused(1),
        2_000,
        "levels",
    ),
    Edge(
        "schema/pattern",
        'a string of n `a`s and a `!` against `"pattern": "^(a+)+$"` (nested quantifiers), '
        "16 chars per `feed()`",
        lambda n: pieces(json.dumps("a" * n + "!")),
        lambda fragments: _loads_checked({"pattern": "^(a+)+$"}, "".join(fragments)),
        lambda n, out: (
            None
            if out in ("SchemaError", "SchemaDefinitionError")
            else f"{out!r}: the string does not match"
        ),
        200_000,
        "chars",
    ),
    Edge(
        "schema/deep",
        "`loads('1')` against a schema n levels deep (`items` in `items`...)",
        lambda n: _deep_schema(n),
        lambda schema: _loads_checked(schema, "1"),
        _value_or_refused(1),
        20_000,
        "levels",
    ),
    Edge(
        "schema/enum",
        "n strings, each one of an n-value `enum` (16 chars per `feed()`)",
        _enum,
        _feed_len,
        _count(lambda n: n),
        5_000,
        "strings",
    ),
    Edge(
        "schema/closed",
        "an object of n keys, closed (`additionalProperties: false`) over n properties "
        "(16 chars per `feed()`)",
        _closed,
        _feed_len,
        _count(lambda n: n),
        5_000,
        "keys",
    ),
    Edge(
        "schema/huge-numbers",
        "n documents `[1e9]`, `[1e99]`, ... (up to 18 nines), `parse_float=Decimal`, against "
        "`type: integer` (each is one: valid) and `multipleOf: 3` (none is: refused)",
        _huge_numbers,
        _decide_huge,
        _count(lambda n: n),
        2_000,
        "numbers",
    ),
    Edge(
        "collect/one-feed",
        "an array of n strings where integers are expected, in one `feed()`, "
        "`on_violation='collect'`",
        violations_one_feed,
        _collect,
        _count(lambda n: n),
        20_000,
        "violations",
    ),
    Edge(
        "collect/each-level",
        "n nested arrays, a violation at each level, `on_violation='collect'` "
        "(16 chars per `feed()`)",
        violation_per_level,
        _collect,
        _count(lambda n: n),
        2_000,
        "levels",
    ),
    Edge(
        "collect/unique-each-level",
        "n nested arrays, `uniqueItems` at every level (16 chars per `feed()`)",
        _unique_per_level,
        _checked_depth,
        _count(lambda n: n),
        8_000,
        "levels",
    ),
    Edge(
        "view/records",
        "an array of n records (`list[Record]`, a dataclass), 24 chars per `feed()`, "
        "`view()` after each",
        _records,
        _view_each,
        _count(lambda n: n),
        1_000,
        "records",
    ),
    Edge(
        "view/structured",
        "a Chat Completions structured output of n records, an event per 24 chars, "
        "`update.structured.view()` after each (the README's loop)",
        _structured_view,
        _structured_each,
        _count(lambda n: n),
        1_000,
        "records",
    ),
    Edge(
        "gemini/json-path",
        "a Vertex streamed argument at a jsonPath of n segments, its value in 64 pieces",
        _gemini_path,
        _gemini_depth,
        _count(lambda n: n),
        4_000,
        "segments",
    ),
    Edge(
        "vercel/tool-input",
        "a UI message stream with one tool input of n bytes in 64-char deltas",
        _vercel_input,
        _vercel_read,
        lambda n, out: None if out == len(json.dumps({"content": "y" * n})) else f"{out!r}",
        1_000_000,
        "bytes",
    ),
)


def edges() -> list[Edge]:
    """Every workload at the edges."""
    return list(EDGES)


def _deep_schema(n: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer"}
    for _ in range(n):
        schema = {"items": schema}
    return schema

"""Generated streams for the compatible profile: the calls meant, whatever the quirks.

Hypothesis draws a few calls (a name, an id, arguments as a JSON object) and a server that
sends them with quirks, call by call: the Ollama style (each call whole in one chunk, at
index 0 or without an index, its arguments a string or an object) or the vLLM / Groq / gateway
style (each call at its own index: in pieces cut at random points, whole, as an object, the
whole text sent again at the end, or glued to the next call's text), with keep-alives sent as
data between any two chunks. The body is cut at random byte offsets and read with
``compatible=True``: every call meant is there, once, complete, with its id (a call glued to
the one before gets that one's id and ``_1``), its name and its arguments.

Then the hostile property of ``test_stream_errors.py`` (its helpers), for chunks with the
quirks the profile reads: only :class:`StreamError` escapes, a rejected chunk changes nothing,
memory stays proportional to the input.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chat_sdk import common, sdk_final
from effort import examples
from hostile_events import CHUNKS, INDEX, TEXT, VALUE, check, shaped
from jsonsnap.openai import ChatCompletionAccumulator
from recordings import random_pieces

NAMES = st.sampled_from(["get_weather", "write_file", "f"])
SCALAR = st.one_of(
    st.integers(-1000, 10**6),
    st.booleans(),
    st.none(),
    st.text('ab "\\\n\u00e9\U0001f600', max_size=8),
)
ARGS = st.dictionaries(
    st.sampled_from(["path", "city", "n", "tags", "ok"]),
    st.one_of(
        SCALAR, st.lists(SCALAR, max_size=3), st.dictionaries(st.just("k"), SCALAR, max_size=1)
    ),
    max_size=4,
)
OLLAMA = ["index_zero", "no_index", "index_zero_object", "no_index_object"]
INDEXED = ["pieces", "whole", "object", "doubled", "glued"]


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def chunk(*calls: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    delta = {"tool_calls": list(calls)} if calls else {}
    return {
        "id": "chatcmpl-p",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


@st.composite
def streams(draw: st.DrawFn) -> tuple[bytes, list[tuple[str, str, Any]], dict[str, str]]:
    """A body, the calls it means, as ``(id, name, arguments)``, and the text each call's
    id received (its raw text)."""
    count = draw(st.integers(1, 4))
    ollama = draw(st.booleans())
    meant: list[tuple[str, str, Any]] = []
    glued_after: list[tuple[str, str, Any]] = []  # calls split from a glued text: placed last
    received: dict[str, str] = {}
    chunks: list[dict[str, Any]] = [chunk()]
    k = 0
    while k < count:
        call_id, name, args = f"call_{k}", draw(NAMES), draw(ARGS)
        text = dumps(args)
        quirk = draw(st.sampled_from(OLLAMA if ollama else INDEXED))
        meant.append((call_id, name, args))
        if ollama:
            entry: dict[str, Any] = {"id": call_id, "type": "function"}
            if quirk.startswith("index_zero"):
                entry["index"] = 0
            arguments: Any = args if quirk.endswith("object") else text
            entry["function"] = {"name": name, "arguments": arguments}
            chunks.append(chunk(entry))
            received[call_id] = compact(args) if isinstance(arguments, dict) else text
            k += 1
            continue
        head = {"index": k, "id": call_id, "type": "function"}
        if quirk in ("whole", "object"):
            arguments = args if quirk == "object" else text
            chunks.append(chunk({**head, "function": {"name": name, "arguments": arguments}}))
            received[call_id] = compact(args) if quirk == "object" else text
            k += 1
            continue
        first = len(text)
        if quirk == "glued" and k + 1 < count:
            other = draw(st.one_of(ARGS, st.just(args)))  # (a tool called twice alike)
            glued_after.append((f"{call_id}_1", name, other))
            received[f"{call_id}_1"] = dumps(other)
            text += dumps(other)
            count -= 1  # the next call is in this one's text
        chunks.append(chunk({**head, "function": {"name": name, "arguments": ""}}))
        cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=6)))
        pieces = [(a, b) for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True) if b > a]
        for a, b in pieces:
            chunks.append(chunk({"index": k, "function": {"arguments": text[a:b]}}))
        if len(text) == 2 * first and pieces[-1][0] == first and text[first:] == text[:first]:
            glued_after.pop()  # the second came alone, whole, at the end: the text sent again
            del received[f"{call_id}_1"]
        received[call_id] = text
        if quirk == "doubled":
            chunks.append(chunk({"index": k, "function": {"arguments": text}}))
            received[call_id] += text
        k += 1
    chunks.append(chunk(finish="tool_calls"))
    lines = [f"data: {dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]
    keepalives = draw(st.lists(st.integers(0, len(lines)), max_size=4))
    for place in sorted(keepalives, reverse=True):
        lines.insert(place, "data: : keepalive\n\n")
    return "".join(lines).encode(), meant + glued_after, received


@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow])
@given(
    stream=streams(),
    seed=st.integers(0, 2**16),
    watch=st.one_of(st.none(), st.integers(0, 40)),
)
def test_the_calls_meant_whatever_the_quirks(
    stream: tuple[bytes, list[tuple[str, str, Any]], dict[str, str]],
    seed: int,
    watch: int | None,
) -> None:
    body, meant, received = stream
    acc = ChatCompletionAccumulator(compatible=True)
    for k, update in enumerate(acc.updates(random_pieces(body, seed))):
        if watch is not None and k >= watch and update.tool is not None:
            update.tool.changes()  # a reader of the change feed (from then on) changes nothing
    tools = acc.tool_calls()
    assert all(tool.complete for tool in tools), [(t.raw, t.status) for t in tools]
    got = sorted((t.id or "", t.name, dumps(t.final())) for t in tools)
    assert got == sorted((i, n, dumps(a)) for i, n, a in meant)
    listed = acc.completion["choices"][0]["message"]["tool_calls"]
    assert [json.loads(c["function"]["arguments"]) for c in listed] == [t.final() for t in tools]
    # the raw text is what came (an object as compact JSON text), never taken back
    assert {t.id: t.raw for t in tools} == received


# --------------------------------------------------------------------------- hostile

#: Tool-call deltas with the quirks the profile reads: an index missing or repeated, ids that
#: change, arguments as objects (any value, deeper than the recursion limit included).
QUIRKY_CALL = shaped(
    {
        "index": st.one_of(st.sampled_from([0, 0, 1]), INDEX),
        "id": st.sampled_from(["call_1", "call_2", "call_3"]),
        "type": st.just("function"),
        "function": shaped(
            {
                "name": TEXT,
                "arguments": st.one_of(
                    st.sampled_from(['{"a":1}', '{"a":1}{"b":2}', '{"a"', "}", ""]),
                    st.dictionaries(st.text(max_size=3), VALUE, max_size=3),
                ),
            }
        ),
    }
)
DETAILS = st.lists(
    shaped({"index": INDEX, "type": TEXT, "text": TEXT, "summary": TEXT, "signature": VALUE}),
    max_size=2,
)
QUIRKY_CHUNKS = st.one_of(
    CHUNKS,
    st.builds(
        lambda calls, details, reason, vendor: {
            "id": "c",
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": calls,
                        "reasoning_details": details,
                        "reasoning": TEXT_ONE,
                    },
                    "finish_reason": reason,
                }
            ],
            **vendor,
        },
        st.lists(QUIRKY_CALL, max_size=3),
        st.one_of(DETAILS, VALUE),
        st.sampled_from([None, None, "tool_calls"]),
        st.sampled_from([{}, {"x_groq": {"id": "r"}}, {"system_fingerprint": "fp_ollama"}]),
    ),
)
TEXT_ONE = "r"


@settings(max_examples=examples(100, default=50), suppress_health_check=[HealthCheck.too_slow])
@given(chunks=st.lists(QUIRKY_CHUNKS, max_size=6), compatible=st.sampled_from([True, None]))
@example(  # a glued call, then a reused index, then the end
    chunks=[
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {"index": 0, "id": "a", "function": {"arguments": '{"a":1}{"b":2}'}}
                        ]
                    }
                }
            ]
        },
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {"index": 0, "id": "b", "function": {"arguments": {"c": [[[]]]}}}
                        ]
                    }
                }
            ]
        },
        "[DONE]",
    ],
    compatible=True,
)
def test_quirky_hostile_chunks(chunks: list[Any], compatible: bool | None) -> None:
    check(lambda: ChatCompletionAccumulator(compatible=compatible), None, chunks)


# --------------------------------------------------------------------------- ids

#: What a delta after a call's first one says of its id: nothing (OpenAI), the same id again,
#: or a new one (servers that make an id per chunk).
ID_STYLES = ["none", "same", "new"]
#: Deltas that bring nothing to a call (the whitespace ones only once its text is whole).
EMPTY: list[dict[str, Any]] = [
    {},
    {"type": "function"},
    {"function": {}},
    {"function": {"arguments": ""}},
]
TRAILING: list[dict[str, Any]] = [
    {"function": {"arguments": " "}},
    {"function": {"arguments": "\n"}},
]


@st.composite
def id_streams(draw: st.DrawFn) -> tuple[list[list[Any]], list[list[Any]], bool]:
    """The tool-call deltas of a stream (one list per chunk) whose ids are changed, repeated
    or missing after each call's first delta, with empty deltas here and there; the same
    deltas with the id in each call's first delta only; whether they have indices."""
    indexed = draw(st.booleans())
    varied: list[list[Any]] = []
    stable: list[list[Any]] = []
    serial = 0

    def add(k: int, body: dict[str, Any], call_id: str, first: bool = False) -> None:
        nonlocal serial
        entry: dict[str, Any] = {"index": k} if indexed else {}
        reference = {**entry, **body}
        if first:
            reference["id"] = call_id
        style = "same" if first else draw(st.sampled_from(ID_STYLES))
        serial += 1
        if style != "none":
            entry["id"] = call_id if style == "same" else f"{call_id}_chunk{serial}"
        varied.append([{**entry, **body}])
        stable.append([reference])

    for k in range(draw(st.integers(1, 3))):
        call_id, name, text = f"call_{k}", draw(NAMES), dumps(draw(ARGS))
        cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=4)))
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        add(k, {"type": "function", "function": {"name": name, "arguments": ""}}, call_id, True)
        for piece in pieces:
            for empty in draw(st.lists(st.sampled_from(EMPTY), max_size=1)):
                add(k, empty, call_id)
            add(k, {"function": {"arguments": piece}}, call_id)
        for empty in draw(st.lists(st.sampled_from(EMPTY + TRAILING), max_size=3)):
            add(k, empty, call_id)  # after the arguments are whole: the quirk's place
    return varied, stable, indexed


def tools_body(deltas: list[list[Any]]) -> list[Any]:
    return [chunk(*calls) for calls in deltas] + [chunk(finish="tool_calls"), "[DONE]"]


def reading(acc: ChatCompletionAccumulator) -> Any:
    tools = [(t.index, t.id, t.name, t.status, t.raw, t.final()) for t in acc.tool_calls()]
    return tools, acc.completion, acc.quirks


@settings(max_examples=examples(80), suppress_health_check=[HealthCheck.too_slow])
@given(stream=id_streams(), compatible=st.sampled_from([True, None, False]))
@example(  # an empty delta under a new id once the arguments are whole (once a second call
    # named '', its input {})
    stream=(
        [
            [{"index": 0, "id": "a", "type": "function", "function": {"name": "f"}}],
            [{"index": 0, "function": {"arguments": '{"x": 1}'}}],
            [{"index": 0, "id": "b", "function": {"arguments": ""}}],
        ],
        [
            [{"index": 0, "id": "a", "type": "function", "function": {"name": "f"}}],
            [{"index": 0, "function": {"arguments": '{"x": 1}'}}],
            [{"index": 0, "function": {"arguments": ""}}],
        ],
        True,
    ),
    compatible=True,
)
def test_unstable_ids_and_empty_deltas_read_as_stable_ids(
    stream: tuple[list[list[Any]], list[list[Any]], bool], compatible: bool | None
) -> None:
    varied, stable, indexed = stream
    if not indexed:
        compatible = True  # (without an index, a new id is a new call by OpenAI's rules)
    got = ChatCompletionAccumulator(compatible=compatible).read(tools_body(varied))
    want = ChatCompletionAccumulator(compatible=compatible).read(tools_body(stable))
    assert reading(got) == reading(want)
    firsts = [d[0] for d in stable if "id" in d[0]]
    assert [(t.id, t.name) for t in want.tool_calls()] == [
        (d["id"], d["function"]["name"]) for d in firsts
    ]
    assert all(t.complete for t in want.tool_calls())
    if indexed:  # the SDK reads the stable ids as we do (it needs a "function" in each delta)
        sdk = [[{"function": {}, **d} for d in calls] for calls in stable]
        lines = b"".join(f"data: {dumps(c)}\n\n".encode() for c in tools_body(sdk)[:-1])
        assert common(want.completion) == theirs([lines + b"data: [DONE]\n\n"])


def theirs(body: list[bytes]) -> dict[str, Any]:
    completion = common(sdk_final(body), sdk=True)
    completion.pop("system_fingerprint", None)
    return completion

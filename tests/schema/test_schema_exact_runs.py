"""Strings whose characters a schema checks (``maxLength``, ``enum``, ``const``, ``pattern``,
``minLength``, a string in ``anyOf``/``oneOf`` or under ``uniqueItems``) keep the lane and the
runs of escapes decoded at once: the checker vets each run whole (``SchemaChecker.run``,
``TextChecks.fits``), and a run it refuses is read again one escape at a time.

Held here to the parser with those fast paths off (``GENERAL``: each such string is read one
escape at a time, as before they were kept), fed whole, one character at a time, at 2-way and
at random splits: the same return of every ``feed()``, the same snapshot after it, the same
violations (message, keyword, position, start, path) or error (and its line and column), the
same final value; with faults at every character of a run (its first, the middle, its last,
across fragments, inside an escape and after one), in both ``on_violation`` modes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import pytest

from chunking import chunkings
from fast_configs import ALONE, EAGER
from feeding import observe as observed
from jsonsnap import Parser, SchemaError
from jsonsnap._parse.fast import DEFAULT, GENERAL

#: The fast-path configurations held to GENERAL (the exact path): all of them, each alone.
VETTED = {
    "all": DEFAULT,
    "eager": EAGER,
    "lane": ALONE["lane"],
    "runs": ALONE["runs"],
    "lane and runs": replace(GENERAL, lane=True, runs=True),
}

#: String content as written in JSON: plain text, simple and \\u escapes, an escaped quote and
#: backslash, a surrogate pair, a lone high surrogate, a tab as an escape and astral text.
CONTENTS = [
    r"abc\ndef\tg\u00e9hij\\k\"lmn",
    r"\n\n\u0041\u00e9\\x",
    r"plain text, no escape at all",
    r"x\ud83d\ude00y\ud800z😀\u2028end\/",
]


def decoded(content: str) -> str:
    value: str = json.loads(f'"{content}"')
    return value


def document(content: str) -> str:
    """A document that holds ``content`` in a member on its third line."""
    return '{"n": 1,\n  "other": "x\\ny",\n  "content": "' + content + '", "after": 2}'


def schema_of(content: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "other": {"type": "string"}, "content": content},
    }


def observe(
    doc: str, fragments: Sequence[str], schema: dict[str, Any], mode: str, fast: Any
) -> list[Any]:
    """What a parser shows and says, fragment by fragment, then at close()."""
    return observed(Parser(schema=schema, on_violation=mode, _fast_paths=fast), fragments)


def first_fault(seen: list[Any]) -> dict[str, Any]:
    """The fields of the first violation among what :func:`observe` saw."""
    for step in seen:
        if step[0] == "schema":
            return dict(step[2])
        if step[0] != "closed" and step[3]:
            return dict(step[3][0][2])
    raise AssertionError("no violation")


def held_to_the_exact_path(
    content: str, schema: dict[str, Any], *, rounds: int = 2, configs: Sequence[str] = ()
) -> None:
    doc = document(content)
    whole = schema_of(schema)
    for mode in ("raise", "collect"):
        for label, fragments in chunkings(doc, rounds=rounds):
            expected = observe(doc, fragments, whole, mode, GENERAL)
            for name in configs or VETTED:
                got = observe(doc, fragments, whole, mode, VETTED[name])
                assert got == expected, (name, mode, label, schema)


def _cases() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for content in CONTENTS:
        text = decoded(content)
        n = len(text)
        # maxLength: over the limit at each character (and never).
        for limit in sorted({0, 1, n // 2, n - 2, n - 1, n}):
            yield f"maxLength {limit}", content, {"type": "string", "maxLength": max(limit, 0)}
        # enum and const: the first character no candidate has, at each place.
        for k in sorted({0, 1, n // 3, n // 2, n - 1}):
            wrong = text[:k] + "\x01"
            yield f"enum off at {k}", content, {"enum": [wrong, text[:k] + "\x02zz"]}
            yield f"const off at {k}", content, {"const": wrong}
        yield "enum: a longer value only", content, {"enum": [text + "!", text + "?"]}
        yield "enum: the value", content, {"enum": ["a", text, text + "x"]}
        yield "const: the value", content, {"const": text, "maxLength": n}
        yield "pattern", content, {"pattern": "^[^\\x01]*$", "minLength": n + 1}
        yield "pattern refused", content, {"pattern": "^(?:[a-z]|\\n)*$"}
        # Branches that die at different places, and one that outlives them.
        yield (
            "anyOf",
            content,
            {"anyOf": [{"maxLength": 2}, {"const": text[:3] + "\x01"}, {"maxLength": n - 1}]},
        )
        yield "oneOf", content, {"oneOf": [{"maxLength": n}, {"enum": [text]}]}


CASES = list(_cases())


@pytest.mark.parametrize(("name", "content", "schema"), CASES, ids=[c[0] for c in CASES])
def test_a_checked_string_reads_as_it_does_one_escape_at_a_time(
    name: str, content: str, schema: dict[str, Any]
) -> None:
    held_to_the_exact_path(content, schema, rounds=1, configs=("all", "lane", "runs"))


@pytest.mark.parametrize("content", CONTENTS)
def test_every_fast_path_configuration_reads_a_checked_string_as_the_exact_path(
    content: str,
) -> None:
    n = len(decoded(content))
    held_to_the_exact_path(content, {"maxLength": n // 2, "pattern": "z"}, rounds=3)
    held_to_the_exact_path(content, {"enum": [decoded(content)[: n // 2]]}, rounds=3)


def test_faults_inside_and_after_an_escape_and_across_fragments() -> None:
    content = r"ab\u00e9\n\\cd"  # "abé\n\\cd"
    text = decoded(content)
    doc = document(content)
    start = doc.index(content)
    # The character over maxLength 2 is the é of the \u escape: its backslash is the place.
    expected = {2: start + 2, 3: start + 8, 4: start + 10, 5: start + 12}
    for limit, pos in expected.items():
        for mode in ("raise", "collect"):
            for fast in (DEFAULT, GENERAL):
                got = observe(doc, [doc], schema_of({"maxLength": limit}), mode, fast)
                fault = first_fault(got)
                assert (fault["pos"], fault["lineno"]) == (pos, 3), (limit, mode, fast)
    # Cut inside the escape and between escapes: the fragments the lane holds back.
    for cut in range(start, start + len(content) + 1):
        fragments = [doc[:cut], doc[cut : cut + 3], doc[cut + 3 :]]
        for limit in range(len(text) + 1):
            for mode in ("raise", "collect"):
                whole = schema_of({"maxLength": limit})
                expected_seen = observe(doc, fragments, whole, mode, GENERAL)
                assert observe(doc, fragments, whole, mode, DEFAULT) == expected_seen


def test_a_long_checked_string_in_small_fragments_keeps_the_lane() -> None:
    text = "line of text\\n\\t\\u00e9 " * 40
    doc = '{"content": "' + text + '"}'
    parser = Parser(schema=schema_of({"maxLength": 10_000, "pattern": "^[^\\x00]*$"}))
    parser.feed(doc[:20])
    parser.feed(doc[20:30])
    lane = parser._lane
    assert lane is not None and lane.check is not None  # the lane, vetting
    for i in range(30, len(doc), 7):
        parser.feed(doc[i : i + 7])
    assert parser.close() == json.loads(doc)


def test_a_string_over_its_limit_in_one_large_run_is_read_once_more_at_most() -> None:
    # A run refused whole is read again one escape at a time up to the end of the input at
    # hand, not offered again after each escape: the fault is found in linear time.
    content = "\\n" * 50_000
    doc = '{"content": "' + content + '"}'
    with pytest.raises(SchemaError) as info:
        Parser(schema=schema_of({"maxLength": 49_999})).feed(doc)
    assert info.value.keyword == "maxLength" and info.value.pos == 13 + 2 * 49_999

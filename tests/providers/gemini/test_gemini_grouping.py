"""Gemini parts grouped into chunks at random: the reading does not depend on the grouping.

A stream is a list of parts: answer text, thoughts, whole ``functionCall`` parts, and Vertex
AI's streamed calls (a part that names the function with ``willContinue``, parts with
``partialArgs`` entries, and a part without ``willContinue`` that ends the call), several of
them, to the same function or not, one after another. The parts are grouped into chunks at
random (a chunk may end one streamed call and open the next, or carry text after it), and the
accumulator's response, its calls (name, status, final value) and its updates are those of the
one-part-per-chunk reading; the calls and the text are the ones meant, and what a user of the
``google-genai`` SDK holds from the same chunks (its own types, as in ``test_gemini_sdk.py``).

Then atomicity: a part that breaks the stream (a bad path, a value of another type, a call to
another function or a text while a call's arguments stream), put at a random place in a
random chunk, makes that chunk a :class:`StreamError` that changes nothing: fed again without
the bad part, the stream ends as it would have. And parts drawn with no care for the
protocol (openers, entries and ends in any order) raise nothing but :class:`StreamError`.
"""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import pytest
from google.genai import types
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from effort import examples
from gemini_args import ARGS, leaves, path_text, pieces_of
from gemini_sdk import held, mine
from hostile_events import check
from jsonsnap.gemini import GenerateContentAccumulator, _arguments, _path
from jsonsnap.streams import StreamError, Update

NAMES = st.sampled_from(["get_weather", "get_weather", "write_file"])
WORDS = st.text(alphabet=st.sampled_from("ab \n\u00e9\U0001f600"), min_size=1, max_size=6)
#: What a part is, drawn: text, a thought, a whole call, a streamed call.
KINDS = ["text", "thought", "call", "streamed", "streamed"]


def entries_of(args: dict[str, Any], draw: st.DrawFn) -> list[dict[str, Any]]:
    """The partialArgs entries of ``args`` (strings cut into pieces that go on)."""
    out: list[dict[str, Any]] = []
    for path, leaf in leaves(args):
        where = path_text(path)
        if isinstance(leaf, str):
            pieces = pieces_of(leaf, draw, 2)
            for i, piece in enumerate(pieces):
                entry: dict[str, Any] = {"jsonPath": where, "stringValue": piece}
                if i < len(pieces) - 1:
                    entry["willContinue"] = True
                out.append(entry)
        elif leaf is None:
            out.append({"jsonPath": where, "nullValue": "NULL_VALUE"})
        elif isinstance(leaf, bool):
            out.append({"jsonPath": where, "boolValue": leaf})
        else:
            out.append({"jsonPath": where, "numberValue": leaf})
    return out


def streamed(name: str, entries: list[dict[str, Any]], draw: st.DrawFn) -> list[dict[str, Any]]:
    """The parts of one streamed call: the part that opens it (with the first entries, or
    none), parts of entries, and the end (a part of its own, or the last entries)."""
    cuts = sorted(set(draw(st.lists(st.integers(0, len(entries)), max_size=3))))
    groups = [entries[a:b] for a, b in itertools.pairwise([0, *cuts, len(entries)])]
    own_end = draw(st.booleans()) or not groups[-1]
    parts: list[dict[str, Any]] = []
    for i, group in enumerate(groups):
        call: dict[str, Any] = {"name": name} if i == 0 else {}
        if group:
            call["partialArgs"] = group
        if own_end or i < len(groups) - 1:
            call["willContinue"] = True
        if group or i == 0 or not call.get("willContinue"):
            parts.append({"functionCall": call})
    if own_end:
        parts.append({"functionCall": {}})
    return parts


@st.composite
def streams(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[Any], str, str]:
    """Parts, the calls they mean (``(name, args)``), and the answer text and thoughts."""
    parts: list[dict[str, Any]] = []
    calls: list[Any] = []
    text = thoughts = ""
    for kind in draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=6)):
        if kind in ("text", "thought"):
            words = draw(WORDS)
            part: dict[str, Any] = {"text": words}
            if kind == "thought":
                part["thought"] = True
                thoughts += words
            else:
                text += words
            parts.append(part)
            continue
        name, args = draw(NAMES), draw(ARGS)
        calls.append((name, args))
        if kind == "call":
            parts.append({"functionCall": {"name": name, "args": args}})
        else:
            parts += streamed(name, entries_of(args, draw), draw)
    return parts, calls, text, thoughts


def grouped(parts: list[Any], cuts: list[int]) -> list[list[Any]]:
    ends = sorted({c % (len(parts) + 1) for c in cuts} | {0, len(parts)})
    return [parts[a:b] for a, b in itertools.pairwise(ends) if b > a]


def chunks_of(groups: list[list[Any]]) -> list[dict[str, Any]]:
    """One chunk per group of parts; the last one has the finishReason."""
    chunks: list[dict[str, Any]] = []
    for k, group in enumerate(groups):
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": group}}
        if k == len(groups) - 1:
            candidate["finishReason"] = "STOP"
        chunks.append({"candidates": [candidate], "modelVersion": "gemini-test"})
    return chunks


def told(updates: list[Update]) -> list[tuple[Any, ...]]:
    """What the updates say, without the live blocks."""
    return [
        (u.event, u.index, u.text, u.thinking, u.fragment, u.changed, u.tool and u.tool.index)
        for u in updates
    ]


def read(chunks: list[Any]) -> tuple[GenerateContentAccumulator, list[Update]]:
    acc = GenerateContentAccumulator()
    updates = [update for chunk in chunks for update in acc.feed(chunk)]
    return acc, updates


def calls_of(acc: GenerateContentAccumulator) -> list[tuple[str, str, Any]]:
    return [(t.name, t.status, t.final() if t.complete else t.raw) for t in acc.tool_calls()]


Stream = tuple[list[dict[str, Any]], list[Any], str, str]

#: A streamed call ended, then another to the same function, in one chunk (once an
#: AttributeError, the chunk half applied); then text after an ended call.
PARALLEL: Stream = (
    [
        {"functionCall": {"name": "f", "willContinue": True}},
        {"functionCall": {"partialArgs": [{"jsonPath": "$.a", "numberValue": 1}]}},
        {"functionCall": {"name": "f", "willContinue": True}},
        {"functionCall": {"partialArgs": [{"jsonPath": "$.b", "stringValue": "x"}]}},
        {"text": "done"},
    ],
    [("f", {"a": 1}), ("f", {"b": "x"})],
    "done",
    "",
)


@settings(max_examples=examples(60), suppress_health_check=[HealthCheck.too_slow])
@given(stream=streams(), cuts=st.lists(st.integers(0, 60), max_size=5))
@example(stream=PARALLEL, cuts=[0, 3])
@example(stream=PARALLEL, cuts=[1, 4])
def test_the_reading_does_not_depend_on_the_grouping(stream: Stream, cuts: list[int]) -> None:
    parts, meant, text, thoughts = stream
    chunks = chunks_of(grouped(parts, cuts))
    acc, updates = read(chunks)
    one, one_updates = read(chunks_of([[part] for part in parts]))
    assert acc.response == one.response
    assert calls_of(acc) == calls_of(one)
    assert told(updates) == told(one_updates)
    assert [(name, "complete", args) for name, args in meant] == calls_of(acc)
    got = mine(acc)
    assert (got["text"], got["thoughts"]) == (text, thoughts)
    # the SDK's own types, from the same chunks: what its user holds, and what we read of them
    responses = [types.GenerateContentResponse.model_validate(chunk) for chunk in chunks]
    want = held(responses)
    got.pop("usage"), want.pop("usage")
    assert got == json.loads(json.dumps(want))
    assert read(responses)[0].response == acc.response


#: Parts that break a stream, by where they go: anywhere, or while a call's arguments stream.
BREAKING = [
    {"functionCall": {"partialArgs": [{"jsonPath": "$[0]", "stringValue": "x"}]}},
    {"functionCall": {"name": "f", "partialArgs": [{"jsonPath": "a", "numberValue": 1}]}},
    {"functionCall": {"name": "f", "args": {"a": float("nan")}}},
    {"text": 5},
]
WHILE_STREAMING = [
    {"text": "not now"},
    {"functionCall": {"name": "another_function", "willContinue": True}},
    {"functionCall": {"partialArgs": [{"jsonPath": "$", "stringValue": "x"}]}},
    {"functionCall": {"partialArgs": [{"jsonPath": "$.a", "numberValue": "1"}]}},
]


def snapshot_of(acc: GenerateContentAccumulator) -> Any:
    return copy.deepcopy(acc.response), [(t.name, t.status, t.raw) for t in acc.tool_calls()]


@settings(max_examples=examples(60), suppress_health_check=[HealthCheck.too_slow])
@given(
    stream=streams(),
    cuts=st.lists(st.integers(0, 60), max_size=5),
    where=st.integers(0, 10**6),
    bad=st.sampled_from(BREAKING + WHILE_STREAMING),
)
@example(stream=PARALLEL, cuts=[4], where=1, bad=WHILE_STREAMING[0])
@example(stream=PARALLEL, cuts=[2], where=3, bad=WHILE_STREAMING[1])
def test_a_refused_chunk_changes_nothing(
    stream: Stream, cuts: list[int], where: int, bad: dict[str, Any]
) -> None:
    parts = stream[0]
    groups = grouped(parts, cuts)
    want, want_updates = read(chunks_of(groups))
    # the bad part goes into one chunk, at one place (after the parts before it)
    place = where % (len(parts) + 1)
    acc = GenerateContentAccumulator()
    updates: list[Update] = []
    seen = 0
    for k, group in enumerate(groups):
        chunk = chunks_of(groups)[k]
        if seen <= place <= seen + len(group) and (bad in BREAKING or inside(parts, place)):
            spoiled = copy.deepcopy(chunk)
            spoiled["candidates"][0]["content"]["parts"].insert(place - seen, bad)
            before = snapshot_of(acc)
            with pytest.raises(StreamError):
                acc.feed(spoiled)
            assert snapshot_of(acc) == before
            place = -1  # spoiled once
        updates += acc.feed(chunk)
        seen += len(group)
    assert acc.response == want.response
    assert calls_of(acc) == calls_of(want)
    assert told(updates) == told(want_updates)


def inside(parts: list[dict[str, Any]], place: int) -> bool:
    """Whether ``parts[place]`` would come while a streamed call's arguments stream."""
    open_ = False
    for part in parts[:place]:
        call = part.get("functionCall")
        if call is not None:
            open_ = bool(call.get("willContinue"))
    return open_


def test_a_long_json_path_costs_its_length(monkeypatch: pytest.MonkeyPatch) -> None:
    """A path of many segments is read and checked segment by segment, once: a path is
    written out (``_show``, which takes time in its length) only for the message of an error,
    never once per segment (that was quadratic: 5 s for 4,000 segments)."""
    shown: list[str] = []

    def counted(*args: Any) -> str:
        shown.append(real(*args))
        return shown[-1]

    real = _path.show
    monkeypatch.setattr(_arguments, "show", counted)
    deep = "$" + ".a" * 2_000
    entries = [
        {"jsonPath": deep, "stringValue": "x"},
        {"jsonPath": deep + "[0]", "boolValue": True},
    ]
    acc = GenerateContentAccumulator()
    acc.feed(chunks_of([[{"functionCall": {"name": "f", "partialArgs": entries[:1]}}]])[0])
    [tool] = acc.tool_calls()
    assert tool.complete and tool.raw == '{"a": ' * 2_000 + '"x"' + "}" * 2_000
    assert shown == []
    with pytest.raises(StreamError, match=r"goes back to \$\.a\.a\.a.*\.\.\., which is finished"):
        GenerateContentAccumulator().feed(
            chunks_of([[{"functionCall": {"name": "f", "partialArgs": entries}}]])[0]
        )
    assert len(shown) == 1 and len(shown[0]) <= 123


#: Parts of streamed calls drawn with no care for the protocol: openers, entries, ends, text.
LOOSE_PART = st.one_of(
    st.builds(
        lambda name, go_on, entries: {
            "functionCall": {
                **({"name": name} if name else {}),
                **({"willContinue": True} if go_on else {}),
                **({"partialArgs": entries} if entries else {}),
            }
        },
        st.sampled_from(["f", "g", None]),
        st.booleans(),
        st.lists(
            st.builds(
                lambda path, value, go_on: (
                    {"jsonPath": path, **value} | ({"willContinue": True} if go_on else {})
                ),
                st.sampled_from(["$.a", "$.b", "$.a[0]", "$.a.b", "$"]),
                st.sampled_from([{"stringValue": "x"}, {"numberValue": 1}, {"boolValue": True}]),
                st.booleans(),
            ),
            max_size=2,
        ),
    ),
    st.just({"text": "t"}),
    st.just({"functionCall": {"name": "f", "args": {"a": 1}}}),
)


@settings(max_examples=examples(80), suppress_health_check=[HealthCheck.too_slow])
@given(
    parts=st.lists(LOOSE_PART, max_size=10),
    cuts=st.lists(st.integers(0, 60), max_size=5),
    finish=st.booleans(),
)
@example(  # (once an AttributeError, the chunk half applied)
    parts=[
        {"functionCall": {"name": "f", "willContinue": True}},
        {"functionCall": {"partialArgs": [{"jsonPath": "$.a", "numberValue": 1}]}},
        {"functionCall": {"name": "f", "willContinue": True}},
        {"functionCall": {"partialArgs": [{"jsonPath": "$.b", "numberValue": 2}]}},
    ],
    cuts=[1],
    finish=False,
)
def test_loose_streamed_parts_raise_only_stream_errors(
    parts: list[dict[str, Any]], cuts: list[int], finish: bool
) -> None:
    """Either the chunk is read, or it is a StreamError that changes nothing; never another
    exception, whatever the order of openers, entries and ends."""
    chunks = chunks_of(grouped(parts, cuts)) if parts else []
    if not finish and chunks:
        del chunks[-1]["candidates"][0]["finishReason"]
    check(GenerateContentAccumulator, None, chunks)

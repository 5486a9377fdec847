"""The hot form of Chat Completions chunks (``ChatCompletionAccumulator._hot``) against the
general way.

A stream's commonest chunk, one piece of one choice's text or of one call's arguments, is read
from its data text (``openai/_hot.py``) instead of being decoded whole. Each body here is read
by the accumulator and by one whose ``_hot`` always declines (every chunk the general way), and
the two must agree on everything: each update as it comes (every field, its block, tool input
and snapshot at that moment), the error that stops a body, and the state after it (the
completion, the profile and its quirks, the tool inputs, the structured outputs, the count of
events). The bodies: every Chat recording, cut anywhere, and generated streams (random heads,
indices, pieces with escapes, non-ASCII and lone surrogates, the tails servers send and others,
malformed chunks), whole and at random splits.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import effort
import paths
from chunking import per_event, random_splits
from jsonsnap.openai import ChatCompletionAccumulator, StreamError
from jsonsnap.openai._tool_input import ChatToolInput
from jsonsnap.streams import ToolInput, Update

FIXTURES: Final = sorted(
    [
        *(paths.FIXTURES / "openai").glob("chat_*.sse"),
        *(paths.FIXTURES / "openai-compatible").glob("*.sse"),
    ]
)


class Either(ChatCompletionAccumulator):
    """The accumulator, or with ``cold=True`` one whose every chunk goes the general way (an
    interpreted subclass: on either build); ``took`` counts the chunks the hot form took, and
    ``again`` those the body's loop read again as the last hot one (``_repeat``), without
    ``_hot``."""

    took = 0
    again = 0

    def __init__(self, *, cold: bool = False, **options: Any) -> None:
        self.cold = cold
        super().__init__(**options)

    def _hot(self, text: str) -> list[Update] | None:
        updates = None if self.cold else super()._hot(text)
        if updates is not None:
            Either.took += 1
            Either.again -= 1
        return updates

    def _repeat(self, piece: str) -> list[Update]:
        Either.again += 1
        return super()._repeat(piece)


def described(tool: ToolInput | None) -> Any:
    """A tool input as it is now, everything a caller can read of it."""
    if tool is None:
        return None
    error = tool.error
    return {
        "where": (tool.index, tool.name, tool.id, tool.raw, tool.status),
        "snapshot": repr(tool.snapshot),
        "error": None if error is None else (error.msg, error.pos),
        "violations": [repr(v) for v in tool.violations],
        "quirks": repr(tool.quirks) if isinstance(tool, ChatToolInput) else None,
        "last_piece": tool.last_piece if isinstance(tool, ChatToolInput) else None,
    }


def observed(update: Update) -> dict[str, Any]:
    """Every field of an update, its block and tool input as they are when it comes."""
    # (every public field and property: a compiled Update has no __slots__ to list them)
    fields = [name for name in dir(update) if not name.startswith("_")]
    seen: dict[str, Any] = {name: repr(getattr(update, name)) for name in fields}
    seen["tool"] = described(update.tool)
    structured = update.structured
    seen["structured"] = None if structured is None else (structured.raw, structured.status)
    seen["snapshot"] = repr(update.snapshot)
    return seen


def outcome(acc: ChatCompletionAccumulator, pieces: Iterable[bytes | str]) -> Any:
    """What reading a body does: the updates as they come and the error that stopped it (if
    one did), then the state after."""
    updates = acc.updates(pieces)
    seen: list[Any] = []
    while True:
        try:
            update = next(updates, None)
        except StreamError as exc:
            seen.append(("error", str(exc)))
            break
        if update is None:
            break
        seen.append(observed(update))
    outputs = [acc.structured_output(choice) for choice in range(4)]
    return (
        seen,
        repr(acc.completion),
        (acc.events, acc.done, acc.closed, acc.compatible, acc.compatible_reason),
        repr(acc.quirks),
        [[described(tool) for tool in acc.tool_calls(choice)] for choice in range(4)],
        [described(acc.function_call(choice)) for choice in range(4)],
        [None if out is None else (out.raw, out.status) for out in outputs],
    )


def same_both_ways(
    body: bytes | str, cuts: Iterable[Sequence[bytes | str]] = (), **options: Any
) -> int:
    """The body read hot and cold agree, whole, one event per chunk and at every cut; how many
    chunks the hot form took of the whole body."""
    expected = outcome(Either(cold=True, **options), [body])
    took = []
    events = per_event(body if isinstance(body, bytes) else body.encode("utf-8", "surrogatepass"))
    ways: list[Sequence[bytes | str]] = [[body], events, *cuts]
    for pieces in ways:
        Either.took = 0
        assert outcome(Either(**options), pieces) == expected
        took.append(Either.took)
    return took[0]


def request_options(path: Path) -> dict[str, Any]:
    """The tools and response format of a recording's request (if it has one), and the
    profile its folder is read with."""
    options: dict[str, Any] = {}
    if path.parent.name == "openai-compatible":
        options["compatible"] = True
    request = path.parent / "schemas" / f"{path.stem}.request.json"
    if request.exists():
        sent = json.loads(request.read_text())
        options["tools"] = sent.get("tools")
        options["output_schema"] = sent.get("response_format")
    return options


@pytest.mark.parametrize("path", FIXTURES, ids=[path.stem for path in FIXTURES])
@pytest.mark.parametrize("repair", [False, True])
def test_every_recording_reads_the_same_hot_and_cold(path: Path, repair: bool) -> None:
    body = path.read_bytes()
    rng = random.Random(len(body))
    cuts: list[Sequence[bytes | str]] = [
        random_splits(body, rng, max_piece=size) for size in (1, 7, 64)
    ]
    cuts.append(random_splits(body.decode(), rng, max_piece=16))
    same_both_ways(body, cuts, repair=repair, **request_options(path))


def test_the_recordings_take_the_hot_form() -> None:
    """(So that the tests here test something: most pieces of a real stream are hot.)"""
    hot = again = pieces = 0
    for path in FIXTURES:
        body = path.read_bytes()
        hot += same_both_ways(body, **request_options(path))
        Either.again = 0
        outcome(Either(**request_options(path)), per_event(body))
        again += Either.again
        pieces += body.count(b'"delta":{"tool_calls":[{"index":') + body.count(b'{"content":"')
    assert hot > 0.8 * pieces > 300
    assert again > 0.4 * pieces


# --------------------------------------------------------------------------- generated streams

#: The fields of a head: those servers send, and (less often) others.
HEAD_FIELDS: Final = (
    '"id":"chatcmpl-1"',
    '"id":"chatcmpl-2"',
    '"object":"chat.completion.chunk"',
    '"created":1747391230',
    '"model":"gpt-4.1"',
    '"model":"other"',
    '"system_fingerprint":"fp_1"',
    '"system_fingerprint":null',
    '"service_tier":"default"',
)
ODD_FIELDS: Final = (
    '"system_fingerprint":"fp_ollama"',
    '"x_groq":{"id":"req"}',
    '"usage":{"total_tokens":3}',
    '"usage":null',
    '"error":null',
    '"obfuscation":"x"',
    '"meta":{"choices":[1]}',
    '"model" : "spaced"',
    '"choices":[]',
)
#: Pieces of a string's JSON text: valid ones (with escapes, non-ASCII, surrogate pairs and
#: lone halves), and (less often) others: a raw quote, a control character, a bad escape.
RAW: Final = (
    "a",
    "{",
    '\\"key\\":',
    " 1,",
    "\\\\",
    "\\n",
    "\\u00e9",
    "é",
    "😀",
    "\\ud83d\\ude00",
    "\\ud83d",
    "\\ude00",
    "}",
    "[",
    ',\\"obfuscation\\":\\"',
)
ODD_RAW: Final = ('"', "\x01", "\\x", "\\u12")
#: What follows a piece's delta: in the choice, then in the chunk.
CHOICE_ENDS: Final = (
    ',"logprobs":null,"finish_reason":null',
    "",
    ',"logprobs":null',
    ',"finish_reason":null',
    ',"finish_reason":null,"logprobs":null',
)
ODD_CHOICE_ENDS: Final = (
    ',"finish_reason":"stop"',
    ',"logprobs":{"content":[{"token":"a"}]}',
    ',"message":null',
    ',"logprobs":null,"logprobs":null',
)
CHUNK_ENDS: Final = (
    "}]}",
    '}],"usage":null}',
    '}],"obfuscation":"K2Z"}',
    '}],"usage":null,"obfuscation":"qh9"}',
)
ODD_CHUNK_ENDS: Final = (
    '}],"obfuscation":"a-b"}',
    '}],"obfuscation":""}',
    '}],"usage":{"total_tokens":3}}',
    '}],"id":"chatcmpl-9"}',
    '}],"obfuscation":"a"b"}',
    '}],"obfuscation":"\x01"}',
    "}]",
    "}]} ",
)
INDICES: Final = ("0", "1", "2")
ODD_INDICES: Final = ("01", "7", "-1", "1.0")


def often(draw: st.DrawFn, usual: Sequence[str], odd: Sequence[str]) -> str:
    """One of ``usual``, or now and then one of ``odd``."""
    return draw(st.sampled_from(odd if draw(st.integers(0, 24)) == 0 else usual))


@st.composite
def heads(draw: st.DrawFn) -> str:
    fields = [often(draw, HEAD_FIELDS, ODD_FIELDS) for _ in range(draw(st.integers(0, 5)))]
    return "{" + "".join(f"{field}," for field in fields) + '"choices":'


@st.composite
def opener(draw: st.DrawFn, head: str, choice: str) -> str:
    """A choice's first chunk: its role, and maybe calls with their ids and names."""
    calls = draw(st.lists(st.sampled_from(INDICES), unique=True, max_size=2))
    kind = draw(st.sampled_from(["function", "function", "function", "custom"]))
    text = "input" if kind == "custom" else "arguments"
    parts = [
        f'{{"index":{call},"id":"call_{call}","type":"{kind}","{kind}":{{"name":"f","{text}":""}}}}'
        for call in calls
    ]
    tools = f',"tool_calls":[{",".join(parts)}]' if parts else ""
    return f'{head}[{{"index":{choice},"delta":{{"role":"assistant","content":""{tools}}}}}]}}'


@st.composite
def piece(draw: st.DrawFn, head: str, choices: Sequence[str]) -> str:
    """A chunk of one piece, in the hot form or near it."""
    choice = often(draw, choices, ODD_INDICES)
    raw = "".join(often(draw, RAW, ODD_RAW) for _ in range(draw(st.integers(0, 4))))
    ends = often(draw, CHOICE_ENDS, ODD_CHOICE_ENDS) + often(draw, CHUNK_ENDS, ODD_CHUNK_ENDS)
    field = often(draw, ["tool_calls", "tool_calls", "content", "reasoning"], ["refusal", "role"])
    if field == "tool_calls":
        call = often(draw, INDICES, ODD_INDICES)
        name = often(draw, [""], ['"name":"f",', '"name":"g",', '"name":null,'])
        lead = f'"tool_calls":[{{"index":{call},"function":{{{name}"arguments":"'
        return f'{head}[{{"index":{choice},"delta":{{{lead}{raw}"}}}}]}}{ends}'
    return f'{head}[{{"index":{choice},"delta":{{"{field}":"{raw}"}}{ends}'


@st.composite
def streams(draw: st.DrawFn) -> str:
    """A stream's data texts, as a body (its head one of two, chunk by chunk)."""
    two = [draw(heads()), draw(heads())]
    choices = [draw(st.sampled_from(INDICES))]
    events = [draw(opener(two[0], choices[0]))]
    for _ in range(draw(st.integers(0, 12))):
        head = two[draw(st.sampled_from([0, 0, 0, 1]))]
        kind = often(draw, ["piece"], ["opener", "done", "cut", "comment", "finish"])
        if kind == "piece":
            events.append(draw(piece(head, choices)))
        elif kind == "opener":
            choices.append(draw(st.sampled_from(INDICES)))
            events.append(draw(opener(head, choices[-1])))
        elif kind == "finish":
            finish = f'[{{"index":{choices[0]},"delta":{{}},"finish_reason":"stop"}}]}}'
            events.append(head + finish)
        elif kind == "done":
            events.append("[DONE]")
        elif kind == "cut":
            text = draw(piece(head, choices))
            events.append(text[: draw(st.integers(0, len(text)))])
        else:
            events.append(": keepalive")
    return "".join(f"data: {event}\n\n" for event in events)


SCHEMA: Final = {"type": "object", "properties": {"a": {"type": "string"}}}
OPTIONS: Final = st.fixed_dictionaries(
    {
        "compatible": st.sampled_from([None, True, False]),
        "repair": st.booleans(),
        "tools": st.sampled_from(
            [None, [{"type": "function", "function": {"name": "f", "parameters": SCHEMA}}]]
        ),
        "output_schema": st.sampled_from([None, SCHEMA]),
    }
)


@settings(
    max_examples=effort.examples(300, default=150),
    suppress_health_check=[HealthCheck.too_slow],
    deadline=None,
)
@given(body=streams(), options=OPTIONS, seed=st.integers(0, 2**16))
def test_generated_streams_read_the_same_hot_and_cold(
    body: str, options: dict[str, Any], seed: int
) -> None:
    rng = random.Random(seed)
    cuts = [random_splits(body, rng, max_piece=size) for size in (1, 16)]
    same_both_ways(body, [*cuts, [body.encode()]], **options)


@pytest.mark.parametrize(
    ("chunk", "took"),
    [
        ('{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"}}]}', 2),
        ('{"choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null}]}', 2),
        ('{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"}}],"obfuscation":"Zz9"}', 2),
        ('{"id":"c","choices":[{"index":0,"delta":{"content":""}}]}', 0),  # (empty text)
        (
            '{"id":"c","choices":[{"index":1,"delta":{"content":"Hi"}}]}',
            1,
        ),  # (the 2nd: choice 1 begun)
        ('{"id":"c","choices":[{"index":0,"delta":{"content":"\\q"}}]}', 0),  # (an error)
        ('{"id":"c","choices":[{"index":0,"delta":{"content":"H\x01"}}]}', 0),
        ('{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"}}],"usage":{}}', 0),
        ('{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"}}],"obfuscation":"-"}', 0),
        ('{"id":"c" "choices":[{"index":0,"delta":{"content":"Hi"}}]}', 0),
        ('{"a":{"choices":[{"index":0,"delta":{"content":"Hi"}}]}}', 0),
        (
            '{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":'
            '{"arguments":"{}"}}]}}]}',
            2,
        ),
        (
            '{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":'
            '{"arguments":"{}"}}]}}]}',
            1,
        ),  # (the second: the first began call 1)
        (
            '{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":00,"function":'
            '{"arguments":"{}"}}]}}]}',
            0,
        ),
    ],
)
def test_the_edges_of_the_hot_form(chunk: str, took: int) -> None:
    first = (
        '{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,'
        '"id":"call_0","type":"function","function":{"name":"f","arguments":""}}]}}]}'
    )
    body = "".join(f"data: {data}\n\n" for data in (first, chunk, chunk, "[DONE]"))
    assert same_both_ways(body, [random_splits(body, random.Random(0), max_piece=5)]) == took


def call_chunk(
    field: str = "",
    choice: str = "0",
    call: str = "0",
    raw: str = "a",
    ends: str = "",
    last: str = "}]}",
) -> str:
    """A chunk of a call's piece in the hot form, each part as given."""
    return (
        f'{{"id":"c",{field}"choices":[{{"index":{choice},"delta":{{"tool_calls":[{{"index":{call},'
        f'"function":{{"arguments":"{raw}"}}}}]}}{ends}{last}'
    )


def odd_chunks() -> list[str]:
    """A chunk of one call's piece with each odd form of a part of it (and a text's piece with
    each odd choice index)."""
    return [
        *(call_chunk(field=f"{field},") for field in ODD_FIELDS),
        *(call_chunk(raw=raw) for raw in ODD_RAW),
        *(call_chunk(ends=ends) for ends in ODD_CHOICE_ENDS),
        *(call_chunk(last=last) for last in ODD_CHUNK_ENDS),
        *(call_chunk(choice=index) for index in ODD_INDICES),
        *(call_chunk(call=index) for index in ODD_INDICES),
        *(
            f'{{"choices":[{{"index":{index},"delta":{{"content":"a"}}}}]}}'
            for index in ODD_INDICES
        ),
    ]


@pytest.mark.parametrize("chunk", odd_chunks())
def test_the_odd_forms_read_the_same_hot_and_cold(chunk: str) -> None:
    first = (
        '{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,'
        '"id":"call_0","type":"function","function":{"name":"f","arguments":""}}]}}]}'
    )
    body = "".join(f"data: {data}\n\n" for data in (first, chunk, chunk, "[DONE]"))
    same_both_ways(body, [random_splits(body, random.Random(1), max_piece=9)])

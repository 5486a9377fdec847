"""``jsonsnap.openai`` against the official ``openai`` SDK, on the same SSE bytes.

The SDK is driven the way a user drives it, without a network: ``openai.OpenAI`` gets an
``openai.DefaultHttpxClient`` (an ``httpx2.Client``: this SDK is built on ``httpx2``, not
``httpx``) whose ``httpx2.MockTransport`` answers every request with ``200``,
``content-type: text/event-stream`` and the stream's bytes, in the chunks the test chose (so the
SDK's own SSE decoder sees the cuts too).

The oracle for Chat Completions is ``openai.lib.streaming.chat.ChatCompletionStreamState``: the
``ChatCompletionChunk`` objects that ``chat.completions.create(..., stream=True)`` yields are
fed to it and ``get_final_completion()`` is taken; ``chat.completions.stream(...)`` (with plain,
non-strict tools) and its ``get_final_completion()`` must give the same. Ours is
``ChatCompletionAccumulator.completion`` after ``read(chunks)``. For the Responses API the oracle
is ``responses.stream(...).get_final_response()`` against ``ResponseAccumulator.response``.

How the two are compared (:func:`common`), and why that is fair:

- The SDK's result is dumped with ``to_dict()`` (``exclude_unset``), but its accumulator
  rebuilds the message from a full ``model_dump`` on every chunk, so every field of its model
  comes out set: ``refusal``, ``annotations``, ``audio``, ``function_call`` (``None``), and it
  adds ``parsed`` and, per tool call, ``function.parsed_arguments`` (``None`` without a
  response format or strict tools). We keep the API's non-streamed shape and leave out what
  the wire did not carry. So on both sides every dict entry whose value is ``None`` is
  dropped: ``None`` and absent mean the same. A value that is not ``None`` on one side only
  (a ``parsed_arguments`` that got parsed, a ``usage`` one side lost) still differs.
- The SDK keeps ``index`` inside each tool call (its list is positional, so ``index`` is the
  position); the API's non-streamed tool calls have no ``index``: dropped from the SDK's side.
- The Responses API's final response is the one ``response.completed`` carries on both sides;
  the SDK adds ``parsed_arguments`` to function calls, ``parsed`` to text parts and
  ``output_parsed``: dropped when ``None``, like any other ``None``.

The well-formed streams (the ``fixtures/openai`` files whose expected ``.json`` says done, no
error, every tool complete; hand-written ones; hypothesis-generated ones in the shape of the
SDK's happy path: calls one after the other, id/type/name in each call's first delta) must give
equal completions. Two well-formed fixtures make the SDK raise (``SDK_RAISES``) and one makes
it double ids and names (``SDK_REPEATS``): that is checked instead. The deliberate differences,
where the SDK doubles, sums, resets, loses or crashes on data that we keep, each have a test
that pins down both behaviours.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import openai
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from openai.lib.streaming.chat import (
    FunctionToolCallArgumentsDeltaEvent,
    FunctionToolCallArgumentsDoneEvent,
)
from openai.types.chat import ChatCompletionChunk, ChatCompletionToolUnionParam

import paths
import strategies
from chat_sdk import (
    MESSAGES,
    MODEL,
    PLAIN_TOOLS,
    common,
    function_tool,
    sdk_chunks,
    sdk_client,
    sdk_final,
    sdk_state,
    sdk_stream_final,
)
from effort import examples
from jsonsnap.openai import ChatCompletionAccumulator, ResponseAccumulator, ToolInputError
from recordings import byte_cuts, chunks_of, well_formed

FIXTURES = paths.FIXTURES / "openai"


def ours(chunks: Sequence[bytes]) -> ChatCompletionAccumulator:
    acc = ChatCompletionAccumulator()
    acc.read(chunks)
    return acc


def assert_same(
    chunks: Sequence[bytes],
    sdk_chunks: Sequence[bytes] | None = None,
    label: str = "",
    adjust: Callable[[dict[str, Any], dict[str, Any]], None] | None = None,
) -> ChatCompletionAccumulator:
    """Both sides on ``chunks`` (the SDK on ``sdk_chunks`` if given): the stream is whole and
    well-formed, and our completion equals the SDK's, through the state and through
    ``.stream()`` (after ``adjust(ours, sdk)`` undoes a known difference, if given)."""
    acc = ours(chunks)
    assert acc.done, label
    for choice in acc.completion["choices"]:
        for tool in acc.tool_calls(choice["index"]):
            assert tool.complete and tool.error is None, (label, tool)
    theirs = chunks if sdk_chunks is None else sdk_chunks
    for sdk in (sdk_final(theirs), sdk_stream_final(theirs)):
        got, expected = common(acc.completion), common(sdk, sdk=True)
        if adjust is not None:
            adjust(got, expected)
        assert got == expected, label
    return acc


# --------------------------------------------------------------------------- building streams


def render(
    chunks: Sequence[dict[str, Any]],
    *,
    newline: str = "\n",
    ensure_ascii: bool = False,
    done: bool = True,
) -> bytes:
    """The chunks as the API sends them: ``data: <json>`` and a blank line, then ``[DONE]``."""
    out = [f"data: {json.dumps(c, ensure_ascii=ensure_ascii)}{newline}{newline}" for c in chunks]
    if done:
        out.append(f"data: [DONE]{newline}{newline}")
    return "".join(out).encode()


def chunk(*choices: dict[str, Any], **fields: Any) -> dict[str, Any]:
    base = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": MODEL,
        "system_fingerprint": "fp_1",
        "choices": list(choices),
    }
    return {**base, **fields}


def delta(
    index: int = 0, finish: str | None = None, logprobs: Any = None, **fields: Any
) -> dict[str, Any]:
    return {"index": index, "delta": fields, "logprobs": logprobs, "finish_reason": finish}


def call(
    index: int | None,
    arguments: str | None = None,
    *,
    id: str | None = None,
    name: str | None = None,
    kind: str = "function",
) -> dict[str, Any]:
    """A tool-call delta; ``id`` and ``name`` (with the type) for the call's first delta."""
    entry: dict[str, Any] = {}
    if index is not None:
        entry["index"] = index
    if id is not None:
        entry["id"] = id
        entry["type"] = kind
    body: dict[str, Any] = {}
    if name is not None:
        body["name"] = name
    if arguments is not None:
        body["input" if kind == "custom" else "arguments"] = arguments
    entry[kind] = body
    return entry


def tools_chunk(*calls: dict[str, Any], choice: int = 0) -> dict[str, Any]:
    return chunk(delta(choice, tool_calls=list(calls)))


def token_logprobs(token: str) -> dict[str, Any]:
    return {
        "content": [
            {"token": token, "logprob": -0.25, "bytes": list(token.encode()), "top_logprobs": []}
        ],
        "refusal": None,
    }


ROLE = chunk(delta(role="assistant", content=None))
USAGE = {"prompt_tokens": 12, "completion_tokens": 40, "total_tokens": 52}


def tool_calls_stream(*calls: tuple[str, str, Sequence[str]]) -> list[dict[str, Any]]:
    """Calls ``(id, name, pieces)`` one after the other, indices 0, 1, ...; id, type and name
    in each call's first delta only (the SDK's happy path)."""
    chunks = [ROLE]
    for index, (call_id, name, pieces) in enumerate(calls):
        first, *rest = pieces or [""]
        chunks.append(tools_chunk(call(index, first, id=call_id, name=name)))
        chunks += [tools_chunk(call(index, piece)) for piece in rest]
    chunks.append(chunk(delta(finish="tool_calls")))
    return chunks


# --------------------------------------------------------------------------- fixtures


CHAT_FIXTURES = sorted(p for p in FIXTURES.glob("chat_*.sse") if well_formed(p))
RESPONSES_FIXTURES = sorted(p for p in FIXTURES.glob("responses_*.sse") if well_formed(p))


#: Well-formed fixtures the SDK cannot read, and what it raises (see the deliberate
#: differences below: a first tool-call index of 1, tool-call deltas without an index).
SDK_RAISES: dict[str, type[Exception]] = {
    "chat_index_gap": IndexError,
    "chat_missing_index": TypeError,
}
#: Well-formed fixtures from a server that repeats ``id`` and ``function.name`` in every
#: delta, which the SDK concatenates (see test_server_repeats_id_and_name_in_every_chunk).
SDK_REPEATS = {"chat_repeated_id_name"}


def undo_repeats(got: dict[str, Any], sdk: dict[str, Any]) -> None:
    """Check that each tool call's id and name in ``sdk`` are ours repeated (more than once),
    and put ours in their place."""
    for our_choice, sdk_choice in zip(got["choices"], sdk["choices"], strict=True):
        our_calls = our_choice["message"].get("tool_calls", [])
        sdk_calls = sdk_choice["message"].get("tool_calls", [])
        for our_call, sdk_call in zip(our_calls, sdk_calls, strict=True):
            for where, key in ((our_call, "id"), (our_call["function"], "name")):
                there = sdk_call if where is our_call else sdk_call["function"]
                times, rest = divmod(len(there[key]), len(where[key]))
                assert times > 1 and rest == 0 and there[key] == where[key] * times
                there[key] = where[key]


@pytest.mark.parametrize("path", CHAT_FIXTURES, ids=lambda p: p.stem)
def test_well_formed_chat_fixtures_give_the_sdks_completion(path: Path) -> None:
    body = path.read_bytes()
    error = SDK_RAISES.get(path.stem)
    if error is not None:
        with pytest.raises(error):
            sdk_final([body])
        with pytest.raises(error):
            sdk_stream_final([body])
        assert ours([body]).done  # our side is checked against the .json by test_openai_fixtures
        return
    adjust = undo_repeats if path.stem in SDK_REPEATS else None
    for label, chunks in byte_cuts(body, 2):
        assert_same(chunks, [body], f"{path.name}, ours {label}", adjust)
        assert_same([body], chunks, f"{path.name}, SDK {label}", adjust)


# --------------------------------------------------------------------------- parity by hand


RICH_STREAM = [
    chunk(delta(role="assistant", content="", refusal=None), service_tier="default", usage=None),
    chunk(delta(reasoning_content="Let me "), usage=None),
    chunk(delta(reasoning_content="think \u2713"), usage=None),
    chunk(delta(content="I'll write ", logprobs=token_logprobs("I'll write ")), usage=None),
    chunk(delta(1, role="assistant", content=""), usage=None),
    chunk(delta(content="the file \U0001f600.", logprobs=token_logprobs(".")), usage=None),
    chunk(delta(1, content="Only text here."), usage=None),
    chunk(delta(tool_calls=[call(0, "", id="call_1", name="write_file")]), usage=None),
    chunk(delta(tool_calls=[call(0, '{"path": "a.py", ')]), usage=None),
    chunk(delta(tool_calls=[call(0, '"content": "x = 1\\n\\u00e9"}')]), usage=None),
    chunk(delta(tool_calls=[call(1, '{"query"', id="call_2", name="search")]), usage=None),
    chunk(
        delta(tool_calls=[call(1, ': "jsonsnap", "n": [1, 2.5e3, -0, true, null]}')]), usage=None
    ),
    chunk(delta(1, finish="stop"), usage=None),
    chunk(delta(finish="tool_calls"), usage=None),
    chunk(usage={**USAGE, "completion_tokens_details": {"reasoning_tokens": 7}}),
]


def test_text_reasoning_tools_two_choices_and_usage_give_the_sdks_completion() -> None:
    for newline in ("\n", "\r\n"):
        body = render(RICH_STREAM, newline=newline)
        for size in (len(body), 1, 2, 7, 64):
            acc = assert_same(chunks_of(body, size), label=f"{newline!r} {size}")
    choices = acc.completion["choices"]
    assert [c["finish_reason"] for c in choices] == ["tool_calls", "stop"]
    assert choices[0]["message"]["reasoning_content"] == "Let me think \u2713"
    assert [t.final() for t in acc.tool_calls()] == [
        {"path": "a.py", "content": "x = 1\n\u00e9"},
        {"query": "jsonsnap", "n": [1, 2500.0, 0, True, None]},
    ]
    assert acc.completion["usage"]["completion_tokens_details"] == {"reasoning_tokens": 7}


def test_refusal_and_empty_arguments_give_the_sdks_completion() -> None:
    refusal = [
        chunk(delta(role="assistant", content=None, refusal="")),
        chunk(delta(refusal="I can't ")),
        chunk(delta(refusal="help with that.")),
        chunk(delta(finish="stop")),
    ]
    assert_same([render(refusal)])
    no_arguments = tool_calls_stream(("call_1", "f", [""]), ("call_2", "g", ["{}"]))
    acc = assert_same([render(no_arguments)])
    assert [t.final() for t in acc.tool_calls()] == [{}, {}]


def test_legacy_function_call_gives_the_sdks_completion() -> None:
    arguments = ['{"loc', 'ation": "Par', 'is", "unit": "c', '"}']
    legacy = [
        chunk(delta(role="assistant", content=None, function_call={"name": "w", "arguments": ""})),
        *(chunk(delta(function_call={"arguments": piece})) for piece in arguments),
        chunk(delta(finish="function_call")),
    ]
    acc = assert_same([render(legacy)])
    function = acc.function_call()
    assert function is not None and function.final() == {"location": "Paris", "unit": "c"}


# --------------------------------------------------------------------------- generated streams


@st.composite
def arguments_text(draw: st.DrawFn) -> str:
    """A JSON object as a serializer writes it (``json.dumps``), from a value of
    ``strategies.json_values()`` (wrapped in an object when it is not one)."""
    value = json.loads(draw(strategies.json_values(max_leaves=12)))
    if not isinstance(value, dict):
        value = {"value": value}
    options: dict[str, Any] = {
        "separators": draw(st.sampled_from([None, (",", ":"), (", ", ": ")])),
        "indent": draw(st.sampled_from([None, None, 2])),
    }
    try:
        text = json.dumps(value, allow_nan=False, ensure_ascii=draw(st.booleans()), **options)
        text.encode()
    except ValueError:  # 1e400 read as inf, which JSON cannot write
        reject()
    except UnicodeEncodeError:  # a lone surrogate, which UTF-8 cannot carry raw: escape it
        text = json.dumps(value, allow_nan=False, ensure_ascii=True, **options)
    return text


@st.composite
def pieces_of(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` cut at random places (pieces may be empty, as the API's first one often is)."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=10)))
    return strategies.fragments_at(text, cuts)


TEXT = st.text(st.characters(codec="utf-8"), max_size=8)


@st.composite
def choice_deltas(draw: st.DrawFn, index: int, calls: list[str]) -> list[dict[str, Any]]:
    """One choice's chunks in order: role, reasoning, content, tool calls one after the other,
    finish. The call's arguments texts are appended to ``calls``."""
    out = [delta(index, role="assistant", content=draw(st.sampled_from(["", None])))]
    out += [delta(index, reasoning_content=p) for p in draw(st.lists(TEXT, max_size=3))]
    with_logprobs = draw(st.booleans())
    for piece in draw(st.lists(TEXT, max_size=4)):
        logprobs = token_logprobs(piece) if with_logprobs else None
        out.append(delta(index, logprobs=logprobs, content=piece))
    for k in range(draw(st.integers(0, 3))):
        text = draw(arguments_text())
        calls.append(text)
        first, *rest = draw(pieces_of(text))
        name = draw(st.sampled_from(["write_file", "search", "f"]))
        first_call = call(k, first, id=f"call_{index}_{k}", name=name)
        out.append(delta(index, tool_calls=[first_call]))
        out += [delta(index, tool_calls=[call(k, piece)]) for piece in rest]
    out.append(
        delta(
            index, finish="tool_calls" if any(c["delta"].get("tool_calls") for c in out) else "stop"
        )
    )
    return out


@st.composite
def chat_streams(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[str]]:
    """A whole stream of one or two choices (their chunks interleaved, choice 0 first) and
    the arguments texts of its tool calls."""
    calls: list[str] = []
    per_choice = [draw(choice_deltas(i, calls)) for i in range(draw(st.integers(1, 2)))]
    order = [0] * len(per_choice[0]) + [1] * (len(per_choice[1]) if len(per_choice) > 1 else 0)
    rest = draw(st.permutations(order[1:]))
    choices = [per_choice[k].pop(0) for k in [0, *rest]]
    include_usage = draw(st.booleans())
    fields: dict[str, Any] = {"usage": None} if include_usage else {}
    if draw(st.booleans()):
        fields["service_tier"] = "default"
    if draw(st.booleans()):  # what the API adds unless stream_options.include_obfuscation=false
        fields["obfuscation"] = "x9Qz"
    if not draw(st.booleans()):
        fields["system_fingerprint"] = None
    chunks = [chunk(c, **fields) for c in choices]
    if include_usage:
        counts = st.integers(0, 100_000)
        usage = {"prompt_tokens": draw(counts), "completion_tokens": draw(counts)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        chunks.append(chunk(**{**fields, "usage": usage}))
    return chunks, calls


@st.composite
def sse_bodies(draw: st.DrawFn) -> tuple[list[bytes], list[str]]:
    """A generated stream rendered to SSE bytes, cut at random byte positions."""
    chunks, calls = draw(chat_streams())
    body = render(
        chunks,
        newline=draw(st.sampled_from(["\n", "\r\n"])),
        ensure_ascii=draw(st.booleans()),
    )
    cuts = draw(strategies.split_points(len(body)))
    bounds = [0, *cuts, len(body)]
    return [body[a:b] for a, b in itertools.pairwise(bounds)], calls


@settings(max_examples=examples(80, default=40), suppress_health_check=[HealthCheck.too_slow])
@given(sse_bodies())
def test_generated_streams_give_the_sdks_completion(drawn: tuple[list[bytes], list[str]]) -> None:
    chunks, calls = drawn
    acc = assert_same(chunks)
    finals = [t.final() for c in acc.completion["choices"] for t in acc.tool_calls(c["index"])]
    assert finals == [json.loads(text) for text in calls]


# --------------------------------------------------------------------------- SDK chunk objects


def test_feed_takes_the_sdks_chunk_objects() -> None:
    """Feeding what ``create(stream=True)`` yields gives the completion the decoded dicts
    give (the SDK does not pass ``[DONE]`` on: it is fed by hand)."""
    body = render(RICH_STREAM)
    objects = sdk_chunks(chunks_of(body, 5))
    assert objects and all(isinstance(c, ChatCompletionChunk) for c in objects)
    acc = ChatCompletionAccumulator()
    for obj in objects:
        acc.feed(obj)
    acc.feed("[DONE]")
    assert acc.completion == ours([body]).completion
    assert acc.tool_calls()[1].final() == {"query": "jsonsnap", "n": [1, 2500.0, 0, True, None]}


# --------------------------------------------------------------------------- deliberate differences
# Each test shows what we build and what the SDK builds from the same bytes.


INTERLEAVED = [
    ROLE,
    tools_chunk(call(0, "", id="call_a", name="f")),
    tools_chunk(call(1, "", id="call_b", name="g")),
    tools_chunk(call(0, '{"city": "Par')),
    tools_chunk(call(1, '{"q": ')),
    tools_chunk(call(0, 'is"}')),
    tools_chunk(call(1, "2}")),
    chunk(delta(finish="tool_calls")),
]


def test_interleaved_parallel_calls() -> None:
    """Indices 0, 1, 0, 1: the final completions agree (the SDK's list is positional, and
    both calls exist before their arguments come). But ``.stream()`` says a call is done when
    the next index shows up: ``tool_calls.function.arguments.done`` for call 0 comes with
    ``arguments == ""``, before any of its arguments, and never again; with strict tools the
    SDK then ``json.loads("")`` and the stream dies with ``JSONDecodeError``. We keep a live
    snapshot per call, whatever the order, and close each when the choice finishes."""
    chunks = [render(INTERLEAVED)]
    acc = assert_same(chunks)
    assert [t.final() for t in acc.tool_calls()] == [{"city": "Paris"}, {"q": 2}]

    with sdk_client(chunks).chat.completions.stream(
        model=MODEL, messages=MESSAGES, tools=PLAIN_TOOLS
    ) as stream:
        done = [
            (event.index, event.arguments)
            for event in stream
            if event.type == "tool_calls.function.arguments.done"
        ]
    assert done == [(0, ""), (1, "")]

    strict = [function_tool("f", strict=True), function_tool("g", strict=True)]
    with (
        pytest.raises(json.JSONDecodeError),
        sdk_client(chunks).chat.completions.stream(
            model=MODEL, messages=MESSAGES, tools=strict
        ) as stream,
    ):
        stream.until_done()

    live = ChatCompletionAccumulator()
    snapshots = []
    for c in INTERLEAVED:
        live.feed(c)
        snapshots.append(copy.deepcopy([t.snapshot for t in live.tool_calls()]))
    assert snapshots[3:7] == [
        [{"city": "Par"}, {}],
        [{"city": "Par"}, {}],
        [{"city": "Paris"}, {}],
        [{"city": "Paris"}, {"q": 2}],
    ]


def test_first_tool_call_index_is_1() -> None:
    """A server whose first tool call has index 1 (a gap): the SDK's positional list puts the
    call at position 0, then looks it up at position 1 and raises ``IndexError`` (whether the
    call starts in the first chunk or a later one). We key calls by their index."""
    for chunks_ in (
        [ROLE, tools_chunk(call(1, "", id="call_1", name="f"))],
        [
            chunk(
                delta(
                    role="assistant", content=None, tool_calls=[call(1, "", id="call_1", name="f")]
                )
            )
        ],
    ):
        stream = [*chunks_, tools_chunk(call(1, '{"a": ')), tools_chunk(call(1, "1}"))]
        stream.append(chunk(delta(finish="tool_calls")))
        chunks = [render(stream)]
        with pytest.raises(IndexError):
            sdk_state(chunks)
        acc = ours(chunks)
        assert list(acc.tools) == [1] and acc.tools[1].final() == {"a": 1}
        calls = acc.completion["choices"][0]["message"]["tool_calls"]
        assert calls == [
            {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
        ]


def test_tool_call_delta_without_index() -> None:
    """Tool-call deltas without ``index`` (some OpenAI-compatible servers): the SDK builds the
    chunk object anyway (``index=None``) and its state raises ``TypeError`` on it. We continue
    the call with the same id, or the last call."""
    stream = [
        ROLE,
        tools_chunk(call(None, "", id="call_1", name="f")),
        tools_chunk(call(None, '{"a": ')),
        tools_chunk(call(None, "1}")),
        chunk(delta(finish="tool_calls")),
    ]
    chunks = [render(stream)]
    assert sdk_chunks(chunks)[1].choices[0].delta.tool_calls[0].index is None  # type: ignore[index]
    with pytest.raises(TypeError, match="NoneType"):
        sdk_state(chunks)
    acc = ours(chunks)
    assert acc.tools[0].final() == {"a": 1}
    assert acc.completion["choices"][0]["message"]["tool_calls"][0]["id"] == "call_1"


def test_server_repeats_id_and_name_in_every_chunk() -> None:
    """A server that repeats ``id``, ``type`` and ``function.name`` in every delta: the SDK
    concatenates every string, so the id becomes ``"call_1call_1call_1"`` and the name
    ``"fff"`` (``type`` alone is replaced). We set them once."""
    stream = [
        ROLE,
        tools_chunk(call(0, "", id="call_1", name="f")),
        tools_chunk(call(0, '{"a": ', id="call_1", name="f")),
        tools_chunk(call(0, "1}", id="call_1", name="f")),
        chunk(delta(finish="tool_calls")),
    ]
    chunks = [render(stream)]
    got_ours, got_sdk = common(ours(chunks).completion), common(sdk_final(chunks), sdk=True)
    sdk_call = got_sdk["choices"][0]["message"]["tool_calls"][0]
    our_call = got_ours["choices"][0]["message"]["tool_calls"][0]
    assert (sdk_call["id"], sdk_call["function"]["name"]) == ("call_1call_1call_1", "fff")
    assert (our_call["id"], our_call["function"]["name"]) == ("call_1", "f")
    sdk_call["id"], sdk_call["function"]["name"] = "call_1", "f"
    assert got_ours == got_sdk  # and nothing else differs


def test_repeated_number_and_boolean_fields_in_deltas() -> None:
    """A vendor field that a server repeats in every delta (here a ``created`` time stamp and a
    ``cached`` flag): the SDK adds numbers up, and booleans too, since a ``bool`` is an ``int``
    (``True + True == 2``, ``False + False == 0``: the flag turns into a count). We keep the
    latest value of a field we do not know."""
    stream = [
        chunk(delta(role="assistant", content="", created=1700000000, cached=True)),
        chunk(delta(content="a", created=1700000000, cached=True)),
        chunk(delta(content="b", created=1700000000, cached=False)),
        chunk(delta(finish="stop")),
    ]
    chunks = [render(stream)]
    got_ours = common(ours(chunks).completion)
    got_sdk = common(sdk_final(chunks), sdk=True)
    sdk_message, our_message = got_sdk["choices"][0]["message"], got_ours["choices"][0]["message"]
    assert (sdk_message["created"], sdk_message["cached"]) == (5100000000, 2)
    assert type(sdk_message["cached"]) is int
    assert (our_message["created"], our_message["cached"]) == (1700000000, False)
    sdk_message.update(created=1700000000, cached=False)
    assert got_ours == got_sdk


def test_late_chunk_without_usage() -> None:
    """A chunk after the usage chunk with ``usage: null`` (and no ``system_fingerprint``): the
    SDK sets ``usage`` and ``system_fingerprint`` from every chunk, so both are lost. We keep
    what a chunk carried until another one carries something else."""
    stream = [
        ROLE,
        chunk(delta(content="Hi")),
        chunk(delta(finish="stop")),
        chunk(usage=USAGE),
        chunk(usage=None, system_fingerprint=None),
    ]
    chunks = [render(stream)]
    sdk = sdk_state(chunks).get_final_completion()
    assert sdk.usage is None and sdk.system_fingerprint is None
    acc = ours(chunks)
    assert acc.completion["usage"] == USAGE
    assert acc.completion["system_fingerprint"] == "fp_1"
    # Without the late chunk, both agree.
    assert_same([render(stream[:-1])])


def test_live_argument_snapshots() -> None:
    """``.stream()`` with plain (non-strict) tools gives no parsed arguments, live or final:
    ``parsed_arguments`` is ``None`` on every ``arguments.delta`` and on ``arguments.done``.
    With ``strict`` tools it parses each prefix with jiter's ``partial_mode=True``, which
    leaves out a string until it is closed. We give a snapshot per delta for every call,
    the unfinished string included, and the strict value at the end."""
    pieces = ['{"path": "a', '.py", "content": "x = ', '1\\n"}']
    chunks = [render(tool_calls_stream(("call_1", "write_file", pieces)))]

    def sdk_parsed(tools: list[ChatCompletionToolUnionParam]) -> list[tuple[str, Any]]:
        with sdk_client(chunks).chat.completions.stream(
            model=MODEL, messages=MESSAGES, tools=tools
        ) as stream:
            return [
                (event.type.rsplit(".", 1)[1], event.parsed_arguments)
                for event in stream
                if isinstance(
                    event, (FunctionToolCallArgumentsDeltaEvent, FunctionToolCallArgumentsDoneEvent)
                )
            ]

    assert sdk_parsed(PLAIN_TOOLS) == [("delta", None)] * 3 + [("done", None)]
    assert sdk_parsed([function_tool("write_file", strict=True)]) == [
        ("delta", {}),
        ("delta", {"path": "a.py"}),
        ("delta", {"path": "a.py", "content": "x = 1\n"}),
        ("done", {"path": "a.py", "content": "x = 1\n"}),
    ]
    acc = ChatCompletionAccumulator()
    seen = [(u.event, copy.deepcopy(u.snapshot)) for u in acc.updates(chunks) if u.tool]
    assert seen == [
        ("tool_call", {"path": "a"}),
        ("tool_call", {"path": "a.py", "content": "x = "}),
        ("tool_call", {"path": "a.py", "content": "x = 1\n"}),
        ("tool_call_done", {"path": "a.py", "content": "x = 1\n"}),  # at finish_reason
    ]
    assert acc.tools[0].final() == {"path": "a.py", "content": "x = 1\n"}


def test_length_inside_an_argument_string() -> None:
    """``finish_reason: "length"`` with the arguments cut inside a string: the SDK's
    ``get_final_completion()`` raises ``LengthFinishReasonError`` (for any ``"length"``,
    tools or not); its snapshot has the raw arguments and no parsed value. We keep the
    unfinished string in the snapshot and mark the call ``"incomplete"``; ``final()`` raises."""
    sent = [
        ROLE,
        tools_chunk(call(0, "", id="call_1", name="write_file")),
        tools_chunk(call(0, '{"path": "a.py", "content": "line 1\\nli')),
        chunk(delta(finish="length")),
    ]
    chunks = [render(sent)]
    state = sdk_state(chunks)
    with pytest.raises(openai.LengthFinishReasonError):
        state.get_final_completion()
    with (
        pytest.raises(openai.LengthFinishReasonError),
        sdk_client(chunks).chat.completions.stream(
            model=MODEL, messages=MESSAGES, tools=PLAIN_TOOLS
        ) as stream,
    ):
        stream.get_final_completion()
    snapshot: dict[str, Any] = state.current_completion_snapshot.to_dict()
    sdk_call = snapshot["choices"][0]["message"]["tool_calls"][0]
    assert sdk_call["function"]["parsed_arguments"] is None
    acc = ours(chunks)
    tool = acc.tools[0]
    assert tool.status == "incomplete" and tool.error is None
    assert tool.snapshot == {"path": "a.py", "content": "line 1\nli"}
    with pytest.raises(ToolInputError, match="cut off"):
        tool.final()
    assert common(acc.completion) == common(snapshot, sdk=True)  # the raw text agrees


def test_logprobs_of_a_choice_that_starts_after_the_first_chunk() -> None:
    """``n=2`` with logprobs: a choice first seen after the first chunk is built from its
    chunk (logprobs included) and then its logprobs are appended again, so its first token is
    counted twice by the SDK. We take each chunk's logprobs once."""
    stream = [
        chunk(delta(0, logprobs=token_logprobs("a"), role="assistant", content="a")),
        chunk(delta(1, logprobs=token_logprobs("b"), role="assistant", content="b")),
        chunk(delta(0, logprobs=token_logprobs("c"), content="c")),
        chunk(delta(1, logprobs=token_logprobs("d"), content="d")),
        chunk(delta(0, finish="stop"), delta(1, finish="stop")),
    ]
    chunks = [render(stream)]
    sdk_tokens = [
        [t["token"] for t in c["logprobs"]["content"]] for c in sdk_final(chunks)["choices"]
    ]
    assert sdk_tokens == [["a", "c"], ["b", "b", "d"]]
    our_tokens = [
        [t["token"] for t in c["logprobs"]["content"]] for c in ours(chunks).completion["choices"]
    ]
    assert our_tokens == [["a", "c"], ["b", "d"]]


def test_custom_tool_call() -> None:
    """A ``custom`` tool call (free-text input): the SDK's snapshot has it (its ``custom``
    part left a plain dict), and ``get_final_completion()`` then fails on it with
    ``AttributeError`` while logging that custom calls are ignored; so does ``.stream()``. We
    keep the call, its input concatenated, never parsed; the snapshot agrees with us."""
    stream = [
        ROLE,
        tools_chunk(call(0, "print(", id="call_1", name="python", kind="custom")),
        tools_chunk(call(0, "1)", kind="custom")),
        chunk(delta(finish="tool_calls")),
    ]
    chunks = [render(stream)]
    state = sdk_state(chunks)
    with pytest.raises(AttributeError, match="'dict' object has no attribute 'name'"):
        state.get_final_completion()
    with pytest.raises(AttributeError, match="'dict' object has no attribute 'name'"):
        sdk_stream_final(chunks)
    acc = ours(chunks)
    expected = {"id": "call_1", "type": "custom", "custom": {"name": "python", "input": "print(1)"}}
    assert acc.completion["choices"][0]["message"]["tool_calls"] == [expected]
    assert acc.tools == {}
    snapshot = common(state.current_completion_snapshot.to_dict(), sdk=True)
    assert common(acc.completion) == snapshot


# --------------------------------------------------------------------------- Responses API


def sdk_response(chunks: Sequence[bytes]) -> dict[str, Any]:
    """``responses.stream(...).get_final_response()``, as a dict."""
    client = sdk_client(chunks, path="/v1/responses")
    with client.responses.stream(model=MODEL, input="hi") as stream:
        return stream.get_final_response().to_dict()


def assert_same_response(
    chunks: Sequence[bytes], sdk_chunks: Sequence[bytes] | None = None, label: str = ""
) -> ResponseAccumulator:
    acc = ResponseAccumulator()
    acc.read(chunks)
    assert acc.done and acc.response is not None, label
    for tool in acc.tools.values():
        assert tool.complete and tool.error is None, (label, tool)
    theirs = chunks if sdk_chunks is None else sdk_chunks
    assert common(acc.response) == common(sdk_response(theirs)), label
    return acc


def response_object(status: str, output: list[Any], **fields: Any) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1700000000,
        "status": status,
        "model": MODEL,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        **fields,
    }


def render_events(events: Sequence[dict[str, Any]]) -> bytes:
    """Responses API events: ``event: <type>`` and ``data: <json>`` lines, numbered."""
    out = []
    for number, event in enumerate(events):
        data = {**event, "sequence_number": number}
        out.append(f"event: {event['type']}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n")
    return "".join(out).encode()


def _response_stream() -> list[dict[str, Any]]:
    text = "Writing it \u2713."
    arguments = '{"path": "a.py", "content": "x = 1\\n"}'
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    function_call = {
        "id": "fc_1",
        "type": "function_call",
        "call_id": "call_1",
        "name": "write_file",
        "arguments": arguments,
        "status": "completed",
    }
    reasoning = {"id": "rs_1", "type": "reasoning", "summary": []}
    usage = {
        "input_tokens": 12,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 40,
        "output_tokens_details": {"reasoning_tokens": 7},
        "total_tokens": 52,
    }
    item = {"item_id": "msg_1", "output_index": 1, "content_index": 0}
    fc = {"item_id": "fc_1", "output_index": 2}
    return [
        {"type": "response.created", "response": response_object("in_progress", [])},
        {"type": "response.in_progress", "response": response_object("in_progress", [])},
        {"type": "response.output_item.added", "output_index": 0, "item": reasoning},
        {"type": "response.output_item.done", "output_index": 0, "item": reasoning},
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {**message, "status": "in_progress", "content": []},
        },
        {
            "type": "response.content_part.added",
            **item,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
        {"type": "response.output_text.delta", **item, "delta": text[:7], "logprobs": []},
        {"type": "response.output_text.delta", **item, "delta": text[7:], "logprobs": []},
        {"type": "response.output_text.done", **item, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **item, "part": message["content"][0]},
        {"type": "response.output_item.done", "output_index": 1, "item": message},
        {
            "type": "response.output_item.added",
            "output_index": 2,
            "item": {**function_call, "arguments": "", "status": "in_progress"},
        },
        *(
            {"type": "response.function_call_arguments.delta", **fc, "delta": arguments[a:b]}
            for a, b in itertools.pairwise([0, 9, 20, len(arguments)])
        ),
        {"type": "response.function_call_arguments.done", **fc, "arguments": arguments},
        {"type": "response.output_item.done", "output_index": 2, "item": function_call},
        {
            "type": "response.completed",
            "response": response_object(
                "completed", [reasoning, message, function_call], usage=usage
            ),
        },
    ]


def _final_output(events: list[dict[str, Any]], output: list[Any] | None) -> None:
    """Make the ``response.completed`` event carry ``output`` (``None``: no such field)."""
    response = dict(events[-1]["response"])
    del response["output"]
    if output is not None:
        response["output"] = output
    events[-1] = {**events[-1], "response": response}


@pytest.mark.parametrize("whole", [True, False], ids=["final output", "no final output"])
def test_responses_stream_gives_the_sdks_response(whole: bool) -> None:
    """With the items repeated whole in ``response.completed``, and without them (both sides
    then build the output from the streamed items and their ``output_item.done``)."""
    events = _response_stream()
    if not whole:
        _final_output(events, None)
    body = render_events(events)
    for size in (len(body), 1, 64):
        acc = assert_same_response(chunks_of(body, size), label=str(size))
    assert acc.tools[2].final() == {"path": "a.py", "content": "x = 1\n"}
    assert [item["type"] for item in acc.response["output"]] == [  # type: ignore[index]
        "reasoning",
        "message",
        "function_call",
    ]


def test_responses_completed_with_an_empty_output() -> None:
    """``response.completed`` with ``output: []`` (not the items again): the SDK takes that
    list as the output and the streamed items are gone; we keep the streamed items."""
    events = _response_stream()
    _final_output(events, [])
    body = render_events(events)
    assert sdk_response([body])["output"] == []
    acc = ResponseAccumulator()
    acc.read([body])
    assert acc.response is not None
    assert [item["id"] for item in acc.response["output"]] == ["rs_1", "msg_1", "fc_1"]


@pytest.mark.parametrize("path", RESPONSES_FIXTURES, ids=lambda p: p.stem)
def test_well_formed_responses_fixtures_give_the_sdks_response(path: Path) -> None:
    body = path.read_bytes()
    for label, chunks in byte_cuts(body, 2):
        assert_same_response(chunks, [body], f"{path.name}, ours {label}")

"""Bodies that are not event streams, and bodies that break: what every accumulator says.

A body that brings no event is no answer: a reply that was not streamed (the request lacked
``stream=True``), an error page, an empty body, a file's name passed for its contents. Every
accumulator of the registry refuses it with a ``StreamError`` that says what the body is, at
the end of the body (``read()``, ``updates()``, ``aupdates()``) or at ``close()`` (a stream fed
event by event that brought none). A body whose iterable raises (boto3 raises its own error
for an exception event; a connection drops) ends the stream: the exception goes on, and the
call it cut short is ``"incomplete"``, not ``"streaming"`` for ever.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunking import random_splits
from effort import examples
from jsonsnap.bedrock import EventStreamDecoder
from jsonsnap.sse import iter_events
from jsonsnap.streams import PROTOCOLS, Accumulator, StreamError
from recordings import ROOT, chunks_of

#: The protocols whose bodies are binary (bytes only: a ``str`` body is a ``TypeError``).
BINARY = {"bedrock", "bedrock-anthropic"}
#: How each protocol's own request asks for a stream.
ASKED = {
    "bedrock": "converse_stream() (not converse())",
    "bedrock-anthropic": "invoke_model_with_response_stream() (not invoke_model())",
}
CHAT_REPLY = json.dumps(
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"}}],
    },
    indent=2,
)
GEMINI_REPLY = json.dumps([{"candidates": [{"content": {"parts": [{"text": "Hi"}]}}]}])
ERROR_PAGE = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head></html>\n"

#: Each body, and what the error says it is ({asked}: how the protocol asks for a stream).
BODIES: list[tuple[str, str, str]] = [
    ("json-reply", CHAT_REPLY, "the body is a JSON object, not an event stream: was the "
     "request made with {asked}?"),
    ("json-reply-bom", "\ufeff \r\n" + CHAT_REPLY, "the body is a JSON object"),
    ("gemini-array", GEMINI_REPLY, "the body is a JSON array, not an event stream: was the "
     "request made with {asked}? (Gemini's streamGenerateContent answers with an array "
     "without alt=sse)"),
    ("html", ERROR_PAGE, "the body is HTML, not an event stream: an error page?"),
    ("empty", "", "the body is empty: the stream brought no event"),
    ("whitespace", " \r\n\t\n", "the body is only whitespace: the stream brought no event"),
    ("path", "fixtures/anthropic/parallel_tools.sse", "the body is the text "
     "'fixtures/anthropic/parallel_tools.sse', not an event stream: read() and updates() take "
     "the body itself"),
    ("windows-path", "C:\\recordings\\run.sse\n", "the body is the text "
     "'C:\\\\recordings\\\\run.sse', not an event stream"),
    ("text", "Internal Server Error", "the body is not an event stream: it has no data: lines "
     "(it begins with 'Internal Server Error')"),
    ("comments", ": ping\n\n: ping\n\n", "it has no data: lines"),
]  # fmt: skip


def said(message: str, protocol: str) -> str:
    return message.format(asked=ASKED.get(protocol, "stream=True"))


def bodies_of(protocol: str, text: str, seed: int) -> list[tuple[str, Any]]:
    """``text`` as each way of giving a body: whole (bytes, and str where the protocol takes
    text), at random splits, and as an iterable of chunks."""
    data = text.encode("utf-8", "surrogatepass")  # (a lone surrogate: bytes that are no UTF-8)
    ways: list[tuple[str, Any]] = [
        ("bytes", data),
        ("random", random_splits(data, random.Random(seed), 7)),
        ("1-byte", chunks_of(data, 1)),
    ]
    if protocol not in BINARY:
        ways += [("str", text), ("str-random", random_splits(text, random.Random(seed), 5))]
    return ways


def events_of(protocol: str, body: Any) -> Iterator[Any]:
    """The events a caller decodes from ``body`` to feed them one by one."""
    chunks: list[Any] = [body] if isinstance(body, (bytes, str)) else body
    if protocol in BINARY:
        decoder = EventStreamDecoder()
        for chunk in chunks:
            yield from decoder.feed(chunk)
        yield from decoder.close()
    else:
        yield from iter_events(chunks)


def fed(acc: Accumulator, protocol: str, body: Any) -> None:
    for event in events_of(protocol, body):
        acc.feed(event)
    acc.close()


async def aread(acc: Accumulator, body: Any) -> None:
    async for _ in acc.aupdates(body):
        pass


def refusals(protocol: str, body: Any, *, closed: bool = True) -> list[StreamError]:
    """What each way of reading ``body`` raises (each must be a ``StreamError``), and that the
    stream is closed when the body is read (``closed``: unless an event of it was refused)."""
    cls = PROTOCOLS[protocol]
    errors: list[StreamError] = []
    for read in (
        lambda acc: acc.read(body),
        lambda acc: list(acc.updates(body)),
        lambda acc: asyncio.run(aread(acc, body)),
        lambda acc: fed(acc, protocol, body),
    ):
        acc = cls()
        with pytest.raises(StreamError) as caught:
            read(acc)
        assert acc.events == 0 and acc.tool_calls() == []
        # (fed event by event, the caller's own decoder may refuse the body before close())
        assert acc.closed or len(errors) == 3 or not closed
        errors.append(caught.value)
    return errors


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
@pytest.mark.parametrize(("kind", "text", "message"), BODIES, ids=[b[0] for b in BODIES])
def test_a_body_that_is_no_event_stream_is_refused(
    protocol: str, kind: str, text: str, message: str
) -> None:
    # The binary framing's decoder refuses what is not a message as soon as it sees it: it
    # says what is wrong with it, unless the body is plainly something else from its start.
    binary_text = protocol in BINARY and kind in ("text", "comments", "path", "windows-path")
    for way, body in bodies_of(protocol, text, len(text)):
        read, updates, aupdates, by_events = refusals(protocol, body)
        for error in (read, updates, aupdates):
            if binary_text:
                assert "event stream" in str(error), (way, error)
            else:
                assert said(message, protocol) in str(error), (way, str(error))
        assert by_events.error_type is None  # (a broken protocol, not an error it reports)


def test_a_str_body_of_a_binary_protocol_is_misuse() -> None:
    for protocol in sorted(BINARY):
        with pytest.raises(TypeError, match="an event stream is binary"):
            PROTOCOLS[protocol]().read("fixtures/bedrock/converse_text_tool.bin")


def test_close_refuses_a_stream_that_brought_no_event() -> None:
    for cls in PROTOCOLS.values():
        acc = cls()
        for _ in range(2):  # and again: it stays refused
            with pytest.raises(StreamError, match="ended before its first event"):
                acc.close()
        assert acc.closed
        with pytest.raises(StreamError, match=r"after close\(\)"):
            acc.feed({"type": "anything"})


def _json_text(value: Any, indent: int | None) -> str:
    return json.dumps(value, indent=indent)


scalars = st.one_of(st.integers(), st.text(max_size=8), st.booleans(), st.none())
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
blank = st.text(alphabet=" \t\r\n", max_size=6)
PATH = r"(/|[a-z]:\\)?[a-z_]{1,8}([/\\][a-z_]{1,8}){0,3}\.(sse|txt|json|bin)"
#: Bodies that are no event stream, in every kind the issue names.
not_streams = st.one_of(
    st.tuples(
        blank,
        st.dictionaries(st.text(max_size=6), json_values, max_size=4),
        st.sampled_from([None, 2]),
    ).map(lambda t: t[0] + _json_text(t[1], t[2])),
    st.tuples(blank, st.lists(json_values, max_size=4)).map(lambda t: t[0] + json.dumps(t[1])),
    st.text(max_size=60).map(lambda t: "<!DOCTYPE html><html><body>" + t),
    blank,
    st.from_regex(PATH, fullmatch=True),
    # Text with no data: line (a line that is "data", or begins "data:", is one).
    st.lists(
        st.text(st.characters(blacklist_characters="\r\n"), max_size=30).filter(
            lambda line: not line.startswith("data")
        ),
        max_size=5,
    ).map("\n".join),
)


@settings(max_examples=examples(100))
@given(
    protocol=st.sampled_from(list(PROTOCOLS)),
    text=not_streams,
    seed=st.integers(0, 2**16),
    bom=st.booleans(),
)
def test_generated_bodies_that_are_no_event_stream_are_refused(
    protocol: str, text: str, seed: int, bom: bool
) -> None:
    text = "\ufeff" + text if bom else text
    for _, body in bodies_of(protocol, text, seed):
        refusals(protocol, body, closed=False)


# --------------------------------------------------------------------------- bodies that break

#: A recording of each protocol with a tool call whose input streams in several pieces.
WITH_A_TOOL = {
    "anthropic": ROOT / "anthropic" / "parallel_tools.sse",
    "chat": ROOT / "openai" / "chat_parallel_interleaved.sse",
    "responses": ROOT / "openai" / "responses_function_call.sse",
    "gemini": ROOT / "gemini" / "vertex_partial_args.sse",
    "bedrock": ROOT / "bedrock" / "converse_parallel_tools.bin",
    "bedrock-anthropic": ROOT / "bedrock" / "invoke_anthropic_tool.bin",
    "ui-message": ROOT / "vercel" / "from_anthropic_text_then_write_file.sse",
}


class Dropped(ConnectionError):
    """What the body's iterable raises (as boto3 raises its EventStreamError)."""


def breaking(acc: Accumulator, chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The chunks, until a tool input is streaming: then the iterable raises."""
    for chunk in chunks:
        yield chunk
        if any(tool.status == "streaming" and tool.raw for tool in acc.tool_calls()):
            raise Dropped("the connection dropped")
    raise AssertionError("no tool input was streaming")  # pragma: no cover


async def abreaking(acc: Accumulator, chunks: Iterable[bytes]) -> Any:
    for chunk in breaking(acc, chunks):
        yield chunk


def _read(acc: Accumulator, body: Iterable[bytes]) -> None:
    acc.read(body)


def _updates(acc: Accumulator, body: Iterable[bytes]) -> None:
    for _ in acc.updates(body):
        pass


def _aupdates(acc: Accumulator, body: Iterable[bytes]) -> None:
    asyncio.run(aread(acc, abreaking(acc, body)))


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
@pytest.mark.parametrize("how", [_read, _updates, _aupdates], ids=["read", "updates", "aupdates"])
def test_a_body_that_raises_ends_the_stream(protocol: str, how: Any) -> None:
    assert set(WITH_A_TOOL) == set(PROTOCOLS)
    data = Path(WITH_A_TOOL[protocol]).read_bytes()
    acc = PROTOCOLS[protocol]()
    chunks = chunks_of(data, 16)
    body = chunks if how is _aupdates else breaking(acc, chunks)
    with pytest.raises(Dropped):  # the body's own exception, unchanged
        how(acc, body)
    assert acc.closed and not acc.done
    cut = [tool for tool in acc.tool_calls() if tool.status == "incomplete"]
    assert cut and all(tool.ended for tool in acc.tool_calls())
    assert any(tool.raw and tool.snapshot is not None for tool in cut)  # what came is kept
    with pytest.raises(StreamError, match=r"after close\(\)"):
        acc.feed({"type": "anything"})


def test_stopping_early_leaves_the_stream_open() -> None:
    """A caller that stops reading ``updates()`` (``break``) has not ended the stream: it may
    go on feeding it."""
    data = Path(WITH_A_TOOL["anthropic"]).read_bytes()
    acc = PROTOCOLS["anthropic"]()
    updates = acc.updates(chunks_of(data, 16))
    next(updates)
    updates.close()  # type: ignore[attr-defined]
    assert not acc.closed

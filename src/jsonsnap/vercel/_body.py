"""The body of a UI message stream response: the encoder's chunks as server-sent events, from
an accumulator's updates, sync or async, with the stream's framing (``start``, its end, and
``[DONE]``) and the error chunk a :class:`~jsonsnap.streams.StreamError` ends it with."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping
from typing import Any, Final

from ..streams import Accumulator, StreamError, Update
from ._encoder import UIMessageEncoder
from ._protocol import DONE, finish_reason_of, sse

#: The key of the message's id in a protocol's result, where it is not ``"id"``: Gemini's
#: ``responseId``. (Bedrock's result has none, nor a UI message stream without ``start``.)
_ID_KEYS: Final = {"gemini": "responseId"}


def _id_of(accumulator: Accumulator | None) -> str | None:
    """The id of the message the accumulator's result is (``None``: it has none)."""
    if accumulator is None:
        return None
    result = accumulator.result
    key = _ID_KEYS.get(accumulator.protocol, "id")
    found = result.get(key) if isinstance(result, Mapping) else None
    return found if isinstance(found, str) and found else None


#: The protocols whose stream may hold several answers, and the key of their list in the
#: result: Chat Completions' choices (``n``), Gemini's candidates (``candidateCount``).
_ANSWERS: Final = {"chat": "choices", "gemini": "candidates"}


def _first_answer(accumulator: Accumulator | None) -> Callable[[Update], bool]:
    """Which updates go into the message: all of them, but of a stream with several answers
    (:data:`_ANSWERS`) only the first's, index 0 (a UI message is one answer). Text names its
    answer (``update.index``); a tool call's answer is looked up once, at its first update:
    the one answer so far, or, of several, the first's when the call is there (a Gemini
    call's part is at its index in candidate 0's parts; a Chat Completions call is among the
    accumulator's ``tools``, choice 0's calls by their index, or is its legacy
    ``function_call``)."""
    key = None if accumulator is None else _ANSWERS.get(accumulator.protocol)
    if key is None:
        return lambda update: True
    source: Any = accumulator
    seen: dict[int, bool] = {}

    def keep(update: Update) -> bool:
        tool = update.tool
        if tool is None:
            return update.index in (None, 0)
        first = seen.get(id(tool))
        if first is None:
            answers: list[Any] = (source.result or {}).get(key) or []
            if len(answers) < 2:
                first = all(answer.get("index") == 0 for answer in answers)
            elif key == "candidates":
                parts = answers[0]["content"]["parts"] if answers[0].get("index") == 0 else []
                first = tool.index < len(parts) and parts[tool.index] is update.block
            else:
                first = source.tools.get(tool.index) is tool or source.function_call(0) is tool
            seen[id(tool)] = first
        return first

    return keep


def _ending(
    encoder: UIMessageEncoder, accumulator: Accumulator | None, error: StreamError | None,
    on_error: Callable[[StreamError], str],
) -> Iterator[str]:  # fmt: skip
    if error is not None:
        chunks = encoder.error(on_error(error))
    else:
        result = None if accumulator is None else accumulator.result
        chunks = encoder.finish(finish_reason_of(result))
    for chunk in chunks:
        yield sse(chunk)
    yield DONE


def ui_message_stream(
    updates: Iterable[Update],
    *,
    accumulator: Accumulator | None = None,
    message_id: str | None = None,
    metadata: Any = None,
    on_error: Callable[[StreamError], str] = str,
) -> Iterator[str]:
    """The body of a UI message stream (send it with :data:`HEADERS`): one string per event,
    from the updates of an accumulator (``acc.updates(body)``, or ``feed()``'s).

    ``accumulator``: the one the updates come from; the ``messageId`` is then its result's id
    (Gemini's ``responseId``; unless ``message_id`` is given; a new ``msg-<uuid>`` when the
    result has none, as Bedrock's) and ``finish`` carries its finish reason
    (:func:`finish_reason_of`); of a stream with several answers (a Chat Completions stream
    with several choices, a Gemini stream with several candidates), only the first (index 0)
    goes into the message, as a UI message is one answer (without ``accumulator``, every
    update does). A :class:`StreamError` from ``updates`` ends the body with an ``error``
    chunk whose text is ``on_error(error)`` (the error's message by default: pass a function
    to hide it from the page); other exceptions are not caught.
    """
    encode = _Encoding(accumulator, message_id, metadata)

    def run() -> Iterator[str]:
        error = None
        try:
            for update in updates:
                yield from encode(update)
        except StreamError as exc:
            error = exc
        yield from _ending(encode.encoder, accumulator, error, on_error)

    return run()


def aui_message_stream(
    updates: AsyncIterable[Update] | Iterable[Update],
    *,
    accumulator: Accumulator | None = None,
    message_id: str | None = None,
    metadata: Any = None,
    on_error: Callable[[StreamError], str] = str,
) -> AsyncIterator[str]:
    """:func:`ui_message_stream` for async updates (``acc.aupdates(body)``); a synchronous
    iterable is taken too."""
    encode = _Encoding(accumulator, message_id, metadata)

    async def source() -> AsyncIterator[Update]:
        if isinstance(updates, AsyncIterable):
            async for update in updates:
                yield update
        else:
            for update in updates:
                yield update

    async def run() -> AsyncIterator[str]:
        error = None
        try:
            async for update in source():
                for text in encode(update):
                    yield text
        except StreamError as exc:
            error = exc
        for text in _ending(encode.encoder, accumulator, error, on_error):
            yield text

    return run()


class _Encoding:
    """What each update adds to the body (for the sync and async streams alike): the events
    of its chunks, the first answer's only."""

    __slots__ = ("accumulator", "encoder", "keep")

    def __init__(self, accumulator: Accumulator | None, message_id: str | None, metadata: Any):
        self.accumulator = accumulator
        self.encoder = UIMessageEncoder(message_id=message_id, metadata=metadata)
        self.keep = _first_answer(accumulator)

    def __call__(self, update: Update) -> list[str]:
        if not self.keep(update):
            return []
        encoder = self.encoder
        if not encoder.started and encoder.message_id is None:
            encoder.message_id = _id_of(self.accumulator)
        return [sse(chunk) for chunk in encoder.encode(update)]

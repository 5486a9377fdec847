"""The loops of an async body (``Accumulator.aupdates()``): async generators, which mypyc does
not compile, so this module is plain Python in both builds; what each step does is the
accumulator's (compiled), as for a synchronous body.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any

from .body import item_events

if TYPE_CHECKING:
    from ..sse import SSEDecoder
    from .accumulator import Accumulator
    from .body import BodyDecoder, BodyHead
    from .update import Update


async def as_async(items: Iterable[Any]) -> AsyncIterator[Any]:
    """A synchronous body's items, as an async body gives them."""
    for item in items:
        yield item


async def aupdates(
    acc: Accumulator, items: AsyncIterable[Any], decoder: BodyDecoder, seen: BodyHead
) -> AsyncIterator[Update]:
    """What ``acc.aupdates()`` yields: ``Accumulator.updates()`` of an async body (a chunk that
    repeats the last hot event but for its string read again, as there)."""
    sse = acc._pairs_of(decoder)
    async for item, pairs, events in _aevents(acc, items, decoder, sse, seen):
        if pairs is None:  # (the chunk read again: ``events`` is its string)
            for update in acc._repeat(events):
                yield update
            continue
        for event in events:
            if not pairs:
                updates = acc.feed(event)
            else:
                updates = acc._sse_updates(*event)
                acc._keep(item, event[1], sse)
            for update in updates:
                yield update
    for update in acc._ended(seen):
        yield update


async def _aevents(
    acc: Accumulator,
    items: AsyncIterable[Any],
    decoder: BodyDecoder,
    sse: SSEDecoder | None,
    seen: BodyHead,
) -> AsyncIterator[tuple[Any, bool | None, Any]]:
    """Each item of an async body with its events, as ``Accumulator._body_updates()`` takes
    them (``None`` and its string for a chunk read again as the last hot event)."""
    try:  # (what fails here is the body's: a synchronous body's loop does the same)
        async for item in items:
            if sse is not None and type(item) is bytes:
                again = acc._repeated(item, sse)
                if again:
                    yield item, None, again
                    continue
            yield (item, *item_events(item, decoder, sse, seen))
        seen.ended = True
        yield (None, True, sse._close(True)) if sse is not None else (None, False, decoder.close())
    except BaseException as exc:
        acc._body_failed(exc, seen)

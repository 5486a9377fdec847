"""The loops of an async body (``Accumulator.aupdates()``): async generators, which mypyc does
not compile, so this module is plain Python in both builds; what each step does is the
accumulator's (compiled), as for a synchronous body.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any

from .body import item_events

if TYPE_CHECKING:
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
    """What ``acc.aupdates()`` yields: ``Accumulator.updates()`` of an async body."""
    async for pairs, events in _aevents(acc, items, decoder, seen):
        for event in events:
            updates = acc._sse_updates(*event) if pairs else acc.feed(event)
            for update in updates:
                yield update
    for update in acc._ended(seen):
        yield update


async def _aevents(
    acc: Accumulator, items: AsyncIterable[Any], decoder: BodyDecoder, seen: BodyHead
) -> AsyncIterator[tuple[bool, list[Any]]]:
    """The events of each item of an async body, as ``Accumulator._body_updates()`` takes them."""
    sse = acc._pairs_of(decoder)
    try:  # (what fails here is the body's: a synchronous body's loop does the same)
        async for item in items:
            yield item_events(item, decoder, sse, seen)
        seen.ended = True
        yield (True, sse._close(True)) if sse is not None else (False, decoder.close())
    except BaseException as exc:
        acc._body_failed(exc, seen)

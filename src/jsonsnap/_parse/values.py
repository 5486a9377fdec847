"""Several values of a stream, each as it completes: ``iter_values`` and ``aiter_values``.

Thin loops at the edge over a :class:`~jsonsnap.Parser` with ``multiple_values=True`` (kept
apart from the parser, which a compiled build compiles: these stay plain Python).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from .parser import Parser

__all__ = ["aiter_values", "iter_values"]


def iter_values(chunks: Iterable[str | bytes], **options: Any) -> Iterator[Any]:
    """Each value of a stream of several (concatenated, or one per line), final, as soon as it
    is complete: a :class:`Parser` with ``multiple_values=True`` fed ``chunks`` one by one.
    ``options`` are the parser's (``repair=True`` reads them tolerantly)."""
    parser = Parser(multiple_values=True, **options)
    for chunk in chunks:
        parser.feed(chunk)
        yield from parser.read_values()
    yield from parser.close()


async def aiter_values(chunks: AsyncIterable[str | bytes], **options: Any) -> AsyncIterator[Any]:
    """:func:`iter_values` over an asynchronous iterable of chunks."""
    parser = Parser(multiple_values=True, **options)
    async for chunk in chunks:
        parser.feed(chunk)
        for value in parser.read_values():
            yield value
    for value in parser.close():
        yield value

"""The one-shot calls: ``loads`` and ``parse_partial``, a :class:`~jsonsnap.Parser` fed once."""

from __future__ import annotations

from typing import Any

from .fast import FastPaths
from .observer import NOTHING
from .options import text_of
from .parser import Parser

__all__ = ["loads", "parse_partial"]


def parse_partial(
    text: str | bytes | bytearray | memoryview, default: Any = None, **options: Any
) -> Any:
    """The best-effort value of a prefix of a JSON document, by the snapshot rules.

    Equivalent to ``Parser(**options)``, ``feed(text)``, ``snapshot(default)``; raises
    :class:`JSONDecodeError` if ``text`` cannot begin any valid document. With
    ``multiple_values=True``, the list of the values so far, the last one as it shows.
    """
    # A prefix rarely holds its whole top-level value: offering it to the C scanner whole
    # would only scan it twice.
    data = text_of(text, "parse_partial()")
    parser = Parser(**options, _fast_paths=_PARTIAL)
    parser.feed(data)
    if options.get("multiple_values") is True:
        values = parser.read_values()
        if not parser.done and (last := parser.snapshot(NOTHING)) is not NOTHING:
            values.append(last)
        return values
    return parser.snapshot(default)


_PARTIAL = FastPaths(scan_top=False)


def loads(text: str | bytes | bytearray | memoryview, **options: Any) -> Any:
    """Parse a complete JSON document strictly (or as repaired, with ``repair=``): a
    :class:`Parser` fed once and closed (with ``multiple_values=True``: the list of values)."""
    data = text_of(text, "loads()")
    parser = Parser(**options)
    parser.feed(data)
    return parser.close()

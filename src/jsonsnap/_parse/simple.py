"""Simple escapes (``\\n``, ``\\"``, ``\\\\``...) decoded a character at a time: the compiled
build's way (``FastPaths.chars``).

Code streamed as a tool call's argument is dense in simple escapes, and the fragments are
short. The general way decodes a run of content with escapes through the standard library's C
string scanner: a call that, compiled, costs several times what decoding a short run here
costs (its arguments parsed, a copy of the run with a quote after it). Interpreted, the C
scanner is the faster, so the pure build keeps it.

Each function decodes exactly what the general way decodes, to the same text and the same
stop, or declines (anything but plain text and simple escapes: a ``\\u`` escape, which may
be half a surrogate pair) and leaves the input to the general way; the tests of the fast
paths hold them to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .chars import plain_end
from .grammar import SIMPLE_ESCAPES

if TYPE_CHECKING:
    from .tree import Tree

__all__ = ["simple_run", "simple_text"]


def simple_run(buf: str, start: int, pos: int, end: int, tree: Tree) -> int:
    """``fast.escaped_run`` (without ``vet``) for a run whose escapes are all simple (``\\n``,
    ``\\"``...), decoded here a character at a time (the ``chars`` way, the compiled build's):
    the same text appended in one piece, the same stop; -1, with nothing appended, when the
    run holds a ``\\u`` escape (``escaped_run`` reads it). ``buf[pos]`` is a backslash."""
    parts = [buf[start:pos]]
    while pos + 1 < end:
        kind = buf[pos + 1]
        text = SIMPLE_ESCAPES.get(kind)
        if text is None:
            if kind == "u":
                return -1
            break  # not an escape: the run stops before it, as RUN_RE's does
        parts.append(text)
        k = plain_end(buf, pos + 2, end)
        parts.append(buf[pos + 2 : k])
        pos = k
        if pos == end or buf[pos] != "\\":
            break
    if pos > start:
        tree.append("".join(parts))
    return pos


def simple_text(buf: str, stop: int) -> str | None:
    """``buf[:stop]`` decoded, when it is string content of printable text and simple escapes
    only (``buf[stop:]`` is nothing, or a backslash held back): what the C string scanner
    decodes it to. ``None`` for anything else (a quote that may end the string, a character
    that is not printable, a ``\\u`` escape), which the lane reads the general way."""
    if not buf.isprintable():
        return None
    quotes = i = 0
    parts: list[str] = []
    b = buf.find("\\", 0, stop)
    while b >= 0:
        if b + 1 == stop:
            return None
        kind = buf[b + 1]
        text = SIMPLE_ESCAPES.get(kind)
        if text is None:
            return None
        if kind == '"':
            quotes += 1
        parts.append(buf[i:b])
        parts.append(text)
        i = b + 2
        b = buf.find("\\", i, stop)
    if buf.count('"', 0, stop) != quotes:  # a quote not escaped
        return None
    parts.append(buf[i:stop])
    return "".join(parts)

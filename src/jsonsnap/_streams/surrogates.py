"""Surrogate pairs cut between two pieces of a streamed text, joined as a client joins them.

A stream's JSON may escape a character beyond the BMP as a pair, ``\\ud83d\\ude00``, and cut the
pair between two events: each event's JSON then decodes to a lone surrogate. JavaScript (the
``ai`` client, a browser) holds strings as UTF-16, so its ``text += delta`` joins the halves into
one character; Python's ``str`` does not. :class:`HeldHalves` gives the accumulators the
client's result in time proportional to the pieces: a high surrogate at the end of a piece is
held back (never shown alone, never the last character of a text that grows), and the next
piece of the same text joins it to its low half, or, if that piece does not start with one,
takes it back as it came. A half still held when its text ends is released as it came. (A
pair inside one piece, which a JSON decoder joins but a piece built in Python may hold, is
joined too.)
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterator
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)

#: A surrogate pair inside one piece (a piece built in Python rather than decoded from JSON).
_PAIR = re.compile(f"[{chr(0xD800)}-{chr(0xDBFF)}][{chr(0xDC00)}-{chr(0xDFFF)}]")


def _joined(pair: re.Match[str]) -> str:
    high, low = ord(pair[0][0]), ord(pair[0][1])
    return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))


def _high(char: str) -> bool:
    return 0xD800 <= ord(char) <= 0xDBFF


class HeldHalves(Generic[K]):
    """The high surrogate each streamed text ends with, held back until its next piece; keyed
    by what names the text (a block index and field, the place of a part)."""

    __slots__ = ("held",)

    def __init__(self) -> None:
        #: The halves held back, by where they go (read by a caller that skips :meth:`join`
        #: for a piece with nothing to join: none held, and the piece ASCII).
        self.held: dict[K, str] = {}

    def join(self, where: K, piece: str) -> str:
        """What to append of ``piece`` to the text at ``where`` now: the half held before it
        and ``piece``, each pair in them joined, but for a high surrogate at the end, which is
        held back for the next piece."""
        if self.held:
            piece = self.held.pop(where, "") + piece
        if piece.isascii():  # (the commonest piece: no surrogate in it, none to hold)
            return piece
        if _PAIR.search(piece) is not None:
            piece = _PAIR.sub(_joined, piece)
        if piece and _high(piece[-1]):
            self.held[where] = piece[-1]
            return piece[:-1]
        return piece

    def release(self, where: K) -> str:
        """The half held for the text at ``where`` (``""`` if none), which has ended."""
        return self.held.pop(where, "")

    def release_all(self) -> Iterator[tuple[K, str]]:
        """Every half still held, each with where it goes (the stream has ended)."""
        held, self.held = self.held, {}
        yield from held.items()

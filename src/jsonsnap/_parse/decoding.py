"""UTF-8 input: the bytes a parser is fed, decoded as they come.

A character may be split across fragments: :class:`Utf8` holds back an unfinished sequence
until the next bytes, and text that comes after bytes finds them ended with a whole character
or not (:meth:`Utf8.flush`). Bad bytes are an error at the first of them, made by
:func:`invalid` once the parser has read the text decoded before them (a JSON error there
comes first).
"""

from __future__ import annotations

import codecs

from .._errors import JSONDecodeError
from .tokens import Tokens

__all__ = ["Utf8", "invalid"]


class Utf8:
    """An incremental UTF-8 decoder that says where bad bytes are."""

    __slots__ = ("decoder",)

    def __init__(self) -> None:
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")

    def decode(self, data: bytes, final: bool) -> tuple[str, UnicodeDecodeError | None]:
        """The text of ``data`` (and the bytes held back); with bad bytes, the text before
        them and the error."""
        try:
            return self.decoder.decode(data, final), None
        except UnicodeDecodeError as exc:
            return exc.object[: exc.start].decode("utf-8"), exc

    def flush(self) -> tuple[str, UnicodeDecodeError | None]:
        """Text comes after bytes: the bytes must have ended with a whole character."""
        return self.decode(b"", True)


def invalid(auto: Tokens, exc: UnicodeDecodeError, final: bool) -> JSONDecodeError:
    """The error of bad bytes, where the automaton is (it has read the text before them)."""
    incomplete = exc.end >= len(exc.object) and final
    return auto.fail(
        f"Invalid UTF-8 ({exc.reason})", auto.tail, len(auto.tail), incomplete=incomplete
    )

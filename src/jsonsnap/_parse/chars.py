"""The members and elements fast paths read a character at a time: the compiled build's way.

``Automaton._key`` and ``Automaton._value`` read a whole member (a plain key, its colon and a
whole scalar value) or a whole scalar element, with what ends it, in one match of
``grammar.MEMBER_RE`` or ``grammar.ELEMENT_RE``. Compiled, a regex call costs more than a
small member read here one character at a time: the call sets up a match state and makes a
match object and a tuple of its groups, where ``ord(buf[i])`` is one machine load. So the
compiled build reads them here (``FastPaths.chars``, on by default in the compiled build
only: interpreted, the regex is much the faster).

Each function reads exactly what its pattern matches and stops where it stops, so that the
values, states and positions are those of the regex path (the tests hold each to it and to
the automaton alone). Anything else declines, and the automaton reads it token by token and
finds the error there. Before each builder call they make, they place what it is about for
a schema checker (``observer.Cursor``), in the automaton's own terms and without a match
object: ``quote``, the key's opening quote (a key without escapes: it ends ``len(key) + 1``
later); ``number_at``, the value's first character; ``at``, the character after it (after a
string's closing quote). Runs of plain string content longer than ``SHORT_RUN`` are finished by
``PLAIN_RE``, whose scan is faster than a loop once it has been set up.
"""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType
from typing import TYPE_CHECKING, Any, Final

from .grammar import AFTER, KEY, LITERAL_VALUES, PLAIN_RE, VALUE

if TYPE_CHECKING:
    from .tokens import Tokens

__all__ = ["COMPILED", "DECLINED", "elements", "members", "plain_end", "scalar", "whole_value"]

#: Plain string content read a character at a time before ``PLAIN_RE`` takes over.
SHORT_RUN: Final = 32
#: The most digits in the integer part of a number read whole (``MEMBER_RE``'s limit: a
#: longer one may be too long for ``int()``).
INT_DIGITS: Final = 600
#: What a state of -1 says: nothing read, the automaton reads on.
DECLINED: Final = -1
_QUOTE: Final = 34  # "
_BACKSLASH: Final = 92  # \
_COMMA: Final = 44  # ,
_COLON: Final = 58  # :
_RIGHT_BRACE: Final = 125  # }
_RIGHT_BRACKET: Final = 93  # ]
_LITERAL_STARTS: Final = (116, 102, 110)  # t f n


def plain_end(buf: str, i: int, end: int) -> int:
    """Where plain string content from ``buf[i]`` ends (``PLAIN_RE.match(buf, i).end()``):
    at the first quote, backslash or control character, or ``end``."""
    stop = i + SHORT_RUN if end - i > SHORT_RUN else end
    while i < stop:
        c = ord(buf[i])
        if c in (_QUOTE, _BACKSLASH) or c < 32:
            return i
        i += 1
    if i == end:
        return i
    j: int = PLAIN_RE.match(buf, i).end()  # type: ignore[union-attr]
    return j


def ws_end(buf: str, i: int, end: int) -> int:
    """Where the JSON whitespace from ``buf[i]`` ends."""
    while i < end:
        c = ord(buf[i])
        if c != 32 and c != 10 and c != 13 and c != 9:
            return i
        i += 1
    return i


def _digits_end(buf: str, i: int, end: int) -> int:
    while i < end:
        c = ord(buf[i])
        if c < 48 or c > 57:
            return i
        i += 1
    return i


def number_end(buf: str, i: int, end: int, closer: int) -> tuple[int, bool]:
    """Where the number at ``buf[i]`` ends when it is whole and a delimiter (whitespace, a
    comma or ``closer``) follows it, -1 when no whole number is there; and whether it has a
    fraction or an exponent."""
    j = i + 1 if ord(buf[i]) == 45 else i  # -
    if j >= end:
        return -1, False
    c = ord(buf[j])
    if c == 48:  # 0: no digit may follow
        j += 1
    elif 49 <= c <= 57:
        k = _digits_end(buf, j + 1, end)
        if k - j > INT_DIGITS:
            return -1, False
        j = k
    else:
        return -1, False
    real = False
    if j < end and ord(buf[j]) == 46:  # .
        k = _digits_end(buf, j + 1, end)
        if k == j + 1:
            return -1, False
        j = k
        real = True
    if j < end and (ord(buf[j]) | 32) == 101:  # e or E
        k = j + 1
        if k < end and (ord(buf[k]) == 43 or ord(buf[k]) == 45):  # + or -
            k += 1
        m = _digits_end(buf, k, end)
        if m == k:
            return -1, False
        j = m
        real = True
    if j >= end:
        return -1, False
    c = ord(buf[j])
    if c in (32, _COMMA, closer, 10, 13, 9):
        return j, real
    return -1, False


def scalar(
    buf: str,
    i: int,
    end: int,
    closer: int,
    to_int: Callable[[str], Any],
    to_float: Callable[[str], Any],
) -> tuple[Any, int]:
    """The whole scalar at ``buf[i]`` (``i < end``) and where it ends, or ``(None, -1)``:
    a string without escapes, a number a delimiter ends, or a literal."""
    c = ord(buf[i])
    if c == _QUOTE:
        k = plain_end(buf, i + 1, end)
        if k < end and ord(buf[k]) == _QUOTE:
            return buf[i + 1 : k], k + 1
        return None, -1
    if c == 116 or c == 102 or c == 110:  # t f n
        return _literal(buf, i, end)
    j, real = number_end(buf, i, end, closer)
    if j < 0:
        return None, -1
    text = buf[i:j]
    # int() and float() called directly where they are the converters (the compiled build then
    # converts without a call through Python; both read the same text the same way)
    if real:
        return (float(text) if to_float is float else to_float(text)), j
    return (int(text) if to_int is int else to_int(text)), j


def _literal(buf: str, i: int, end: int) -> tuple[Any, int]:
    """The literal at ``buf[i]`` (a ``t``, ``f`` or ``n``) and where it ends, or
    ``(None, -1)``."""
    c = ord(buf[i])
    word = "true" if c == 116 else "false" if c == 102 else "null"
    size = len(word)
    if end - i < size:
        return None, -1
    for k in range(1, size):
        if ord(buf[i + k]) != ord(word[k]):
            return None, -1
    return LITERAL_VALUES[word], i + size


def _after(buf: str, j: int, end: int) -> tuple[int, bool]:
    """The whitespace after a scalar and its comma, if any: where they end, and whether the
    comma is there."""
    j = ws_end(buf, j, end)
    if j < end and ord(buf[j]) == _COMMA:
        return ws_end(buf, j + 1, end), True
    return j, False


def members(buf: str, pos: int, end: int, auto: Tokens) -> tuple[int, int]:
    """Read whole members from ``buf[pos]`` (a quote) into ``auto``'s tree, member after
    member, as the loop of ``MEMBER_RE`` matches in ``Automaton._key`` does. Return where
    reading stopped and the state there: ``KEY`` or ``AFTER`` after a member, ``VALUE`` after
    a key and its colon whose value is not there whole; ``(pos, DECLINED)`` when not even that
    is there."""
    tree = auto.tree
    to_int = auto.to_int
    to_float = auto.to_float
    offset = auto.offset
    state = DECLINED
    while True:
        k = plain_end(buf, pos + 1, end)
        if k >= end or ord(buf[k]) != _QUOTE:
            return pos, state
        j = ws_end(buf, k + 1, end)
        if j >= end or ord(buf[j]) != _COLON:
            return pos, state
        key = buf[pos + 1 : k]
        j = ws_end(buf, j + 1, end)
        value: Any = None
        stop = -1
        if j < end:
            value, stop = scalar(buf, j, end, _RIGHT_BRACE, to_int, to_float)
        auto.quote = offset + pos  # (places for a checker: see the module docstring)
        if stop < 0:
            tree.key(key)
            return j, VALUE
        auto.number_at = offset + j
        auto.at = offset + stop
        tree.member(key, value)
        pos, comma = _after(buf, stop, end)
        if not comma:
            return pos, AFTER
        state = KEY
        if pos == end or ord(buf[pos]) != _QUOTE:
            return pos, state


def elements(buf: str, pos: int, end: int, auto: Tokens) -> tuple[int, int]:
    """Read whole scalar elements of the open array from ``buf[pos]`` into ``auto``'s tree,
    element after element, as the loop of ``ELEMENT_RE`` matches in ``Automaton._value``
    does. Return where reading stopped and the state there (``VALUE`` after a comma,
    ``AFTER`` after an element without one), or ``(pos, DECLINED)`` when no element is there
    whole."""
    tree = auto.tree
    to_int = auto.to_int
    to_float = auto.to_float
    offset = auto.offset
    state = DECLINED
    while pos < end:
        value, stop = scalar(buf, pos, end, _RIGHT_BRACKET, to_int, to_float)
        if stop < 0:
            return pos, state
        auto.number_at = offset + pos  # (places for a checker: see the module docstring)
        auto.at = offset + stop
        tree.element(value)
        pos, comma = _after(buf, stop, end)
        if not comma:
            return pos, AFTER
        state = VALUE
    return pos, state


#: Whether this module is compiled (its functions are then built-in functions): the default of
#: ``FastPaths.chars``.
COMPILED: Final = not isinstance(ws_end, FunctionType)


def whole_value(tokens: Tokens, buf: str, pos: int, end: int) -> int:
    """``chars``, for ``tokens``: the whole number or literal at ``pos``, when it is the value
    of a member whose key came before it (the members fast path reads the others), read as the
    members fast path reads its values; where it ends, or 0 when it is not there whole."""
    stack = tokens.tree.stack
    if not stack or type(stack[-1]) is not dict:
        return 0
    value, stop = scalar(buf, pos, end, 125, tokens.to_int, tokens.to_float)  # 125: }
    if stop < 0:
        return 0
    # Placed as the automaton places them: a literal at its first character, a number from
    # its first character to the one after it.
    at = tokens.number_at = tokens.offset + pos
    tokens.at = at if ord(buf[pos]) in _LITERAL_STARTS else at + stop - pos
    tokens.tree.scalar(value)
    tokens.state = AFTER
    return stop

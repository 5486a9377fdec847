"""A slow, obviously-correct reference recognizer for JSON text (RFC 8259, as json.loads reads it).

It is independent of jsonsnap: a pushdown automaton that reads one character at a time, with an
explicit stack of open containers and no recursion. It answers two questions about a text:

* :func:`first_error` -- the index of the first character at which ``text[:i+1]`` stops being
  the beginning of any valid JSON document (``None`` when every prefix is one);
* :func:`is_complete` -- whether ``text`` is a whole valid document.

one helper for testing the recognizer itself: :func:`completion`, a suffix that turns a valid
prefix into a whole document; and :func:`snapshot_model`, the snapshot the jsonsnap spec
prescribes for a valid prefix, written as a plain token walk that leans on ``json.loads`` for
every complete token.

The grammar is exactly what ``json.loads`` accepts with NaN/Infinity/-Infinity refused:

* whitespace is exactly space, tab, LF, CR, around any token;
* a string is ``"`` ... ``"`` with no raw U+0000-U+001F; escapes are ``\\" \\\\ \\/ \\b \\f \\n \\r
  \\t`` and ``\\u`` with four hex digits of either case; any ``\\uXXXX`` is accepted, lone
  surrogates included (json.loads keeps them);
* numbers are ``-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?`` with ASCII digits only;
* literals are ``true``, ``false``, ``null``;
* exactly one top-level value; a leading BOM is not whitespace, so it is an error at 0.

A number has no end marker, so a digit-final number at the top level is complete at end of text
(``12`` is a document), and the character after a number is judged as the character after a
value (``01``: the ``0`` is a whole value, then ``1`` cannot follow it, error at 1).
"""

from __future__ import annotations

import json
from typing import Any

from values import NOTHING

__all__ = [
    "NOTHING",
    "Recognizer",
    "completion",
    "first_error",
    "is_complete",
    "partial_string",
    "snapshot_model",
]

WHITESPACE = frozenset(" \t\n\r")
DIGITS = frozenset("0123456789")
HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
SHORT_ESCAPES = frozenset('"\\/bfnrt')

# States between tokens.
VALUE = "value"  # a value must come next (top level start, after ':' or after ',' in an array)
ARRAY_FIRST = "array-first"  # just after '[': a value or ']'
OBJECT_FIRST = "object-first"  # just after '{': a key or '}'
KEY = "key"  # after ',' in an object: a key
COLON = "colon"  # after a key: ':'
AFTER = "after"  # after a whole value: ',' or the closing bracket, or (top level) only whitespace
# States inside tokens.
STRING = "string"
ESCAPE = "escape"  # after a backslash
UNICODE = "unicode"  # inside \uXXXX, self.hex_left digits to go
LITERAL = "literal"  # inside true/false/null, self.literal_left characters to go
N_MINUS = "n-minus"  # '-'
N_ZERO = "n-zero"  # '-?0'
N_INT = "n-int"  # '-?[1-9][0-9]*'
N_DOT = "n-dot"  # int '.'
N_FRAC = "n-frac"  # int '.' digits
N_E = "n-e"  # mantissa [eE]
N_ESIGN = "n-esign"  # mantissa [eE][+-]
N_EXP = "n-exp"  # mantissa [eE][+-]?digits

#: Number states in which the number could end here.
NUMBER_CAN_END = frozenset({N_ZERO, N_INT, N_FRAC, N_EXP})
NUMBER_STATES = frozenset({N_MINUS, N_DOT, N_E, N_ESIGN}) | NUMBER_CAN_END

ARRAY = "["
OBJECT = "{"


class Recognizer:
    """Reads JSON text one character at a time; :meth:`step` says whether it may be read."""

    def __init__(self) -> None:
        self.stack: list[str] = []  # open containers, innermost last: ARRAY or OBJECT
        self.state = VALUE
        self.in_key = False  # the current STRING/ESCAPE/UNICODE state is inside an object key
        self.hex_left = 0
        self.literal_left = ""
        self.dead = False

    @property
    def complete(self) -> bool:
        """The characters read so far form a whole document."""
        if self.dead or self.stack:
            return False
        return self.state == AFTER or self.state in NUMBER_CAN_END

    def step(self, c: str) -> bool:
        """Read one character; ``False`` (and the recognizer dies) if no document continues so."""
        if self.dead:
            return False
        ok = self._step(c)
        if not ok:
            self.dead = True
        return ok

    # The transition function. Every branch either moves to a new state and returns True, or
    # returns False. A character that ends a number is read again in state AFTER.
    def _step(self, c: str) -> bool:
        state = self.state

        if state in NUMBER_STATES:
            if self._number_step(c):
                return True
            if state not in NUMBER_CAN_END:
                return False
            self.state = AFTER  # the number ended just before c; c must follow a value
            return self._after(c)

        if state == STRING:
            if c == '"':
                self.state = COLON if self.in_key else AFTER
                return True
            if c == "\\":
                self.state = ESCAPE
                return True
            return ord(c) >= 0x20

        if state == ESCAPE:
            if c in SHORT_ESCAPES:
                self.state = STRING
                return True
            if c == "u":
                self.state = UNICODE
                self.hex_left = 4
                return True
            return False

        if state == UNICODE:
            if c not in HEX_DIGITS:
                return False
            self.hex_left -= 1
            if self.hex_left == 0:
                self.state = STRING
            return True

        if state == LITERAL:
            if c != self.literal_left[0]:
                return False
            self.literal_left = self.literal_left[1:]
            if not self.literal_left:
                self.state = AFTER
            return True

        if c in WHITESPACE:
            return True  # between tokens, in every remaining state

        if state == VALUE:
            return self._start_value(c)

        if state == ARRAY_FIRST:
            if c == "]":
                self.stack.pop()
                self.state = AFTER
                return True
            return self._start_value(c)

        if state == OBJECT_FIRST:
            if c == "}":
                self.stack.pop()
                self.state = AFTER
                return True
            return self._start_key(c)

        if state == KEY:
            return self._start_key(c)

        if state == COLON:
            if c == ":":
                self.state = VALUE
                return True
            return False

        assert state == AFTER, state
        return self._after(c)

    def _after(self, c: str) -> bool:
        """``c`` follows a whole value."""
        if c in WHITESPACE:
            return True
        if not self.stack:
            return False  # the top-level value is finished: only whitespace may follow
        top = self.stack[-1]
        if c == ",":
            self.state = VALUE if top == ARRAY else KEY
            return True
        if (top, c) in ((ARRAY, "]"), (OBJECT, "}")):
            self.stack.pop()
            self.state = AFTER
            return True
        return False

    def _start_key(self, c: str) -> bool:
        if c != '"':
            return False
        self.state = STRING
        self.in_key = True
        return True

    def _start_value(self, c: str) -> bool:
        if c == "{":
            self.stack.append(OBJECT)
            self.state = OBJECT_FIRST
        elif c == "[":
            self.stack.append(ARRAY)
            self.state = ARRAY_FIRST
        elif c == '"':
            self.state = STRING
            self.in_key = False
        elif c == "-":
            self.state = N_MINUS
        elif c == "0":
            self.state = N_ZERO
        elif c in DIGITS:
            self.state = N_INT
        elif c in ("t", "f", "n"):
            self.state = LITERAL
            self.literal_left = {"t": "rue", "f": "alse", "n": "ull"}[c]
        else:
            return False
        return True

    def _number_step(self, c: str) -> bool:
        """Move inside a number if ``c`` continues it; ``False`` (state unchanged) otherwise."""
        state = self.state
        new: str | None = None
        if state == N_MINUS:
            new = N_ZERO if c == "0" else N_INT if c in DIGITS else None
        elif state == N_ZERO:
            new = N_DOT if c == "." else N_E if c in "eE" else None
        elif state == N_INT:
            new = N_INT if c in DIGITS else N_DOT if c == "." else N_E if c in "eE" else None
        elif state == N_DOT:
            new = N_FRAC if c in DIGITS else None
        elif state == N_FRAC:
            new = N_FRAC if c in DIGITS else N_E if c in "eE" else None
        elif state == N_E:
            new = N_ESIGN if c in "+-" else N_EXP if c in DIGITS else None
        elif state in (N_ESIGN, N_EXP):
            new = N_EXP if c in DIGITS else None
        if new is None:
            return False
        self.state = new
        return True

    def next_completing_char(self) -> str:
        """One character that keeps the text a valid prefix and brings it closer to complete."""
        assert not self.dead and not self.complete
        state = self.state
        if state == STRING:
            return '"'
        if state == ESCAPE:
            return "n"
        if state in (UNICODE, N_MINUS, N_DOT, N_E, N_ESIGN):
            return "0"
        if state == LITERAL:
            return self.literal_left[0]
        if state == VALUE:
            return "n"  # null
        if state == ARRAY_FIRST:
            return "]"
        if state == OBJECT_FIRST:
            return "}"
        if state == KEY:
            return '"'
        if state == COLON:
            return ":"
        # AFTER or a number that can end, inside a container: close the innermost container.
        return "]" if self.stack[-1] == ARRAY else "}"


def first_error(text: str) -> int | None:
    """Index of the first character at which ``text[:i+1]`` is no prefix of any JSON document."""
    recognizer = Recognizer()
    for i, c in enumerate(text):
        if not recognizer.step(c):
            return i
    return None


def is_complete(text: str) -> bool:
    """``text`` is one whole valid JSON document (exactly when ``json.loads`` accepts it)."""
    recognizer = Recognizer()
    return all(recognizer.step(c) for c in text) and recognizer.complete


def completion(text: str) -> str:
    """A suffix that makes the valid prefix ``text`` a whole document (``""`` if it is one)."""
    recognizer = Recognizer()
    for c in text:
        if not recognizer.step(c):
            raise ValueError(f"not a valid prefix: {text!r}")
    out: list[str] = []
    while not recognizer.complete:
        c = recognizer.next_completing_char()
        stepped = recognizer.step(c)
        assert stepped, (text, "".join(out), c)
        out.append(c)
    return "".join(out)


# --------------------------------------------------------------------------- snapshot model

# What snapshot_model returns when the prefix shows nothing yet: the tests' one NOTHING.

_HEX = "0123456789abcdefABCDEF"
#: The characters allowed at each place of a low surrogate escape ``\\uDC00``-``\\uDFFF``.
_LOW_SURROGATE_ESCAPE = ("\\", "u", "dD", "cdefCDEF", _HEX, _HEX)


def _could_become_low_surrogate_escape(tail: str) -> bool:
    """``tail`` (an unfinished escape, maybe empty) can still grow into ``\\uDC00``-``\\uDFFF``."""
    return len(tail) < 6 and all(
        c in allowed for c, allowed in zip(tail, _LOW_SURROGATE_ESCAPE, strict=False)
    )


def _is_high_surrogate_escape(unit: str) -> bool:
    return len(unit) == 6 and unit[1] == "u" and 0xD800 <= int(unit[2:], 16) <= 0xDBFF


def partial_string(raw: str) -> str:
    """What an unfinished string shows, given the raw text after its opening quote.

    Every complete character and escape is decoded (by ``json.loads``, so pairs are combined and
    lone surrogates kept exactly as it does); an unfinished escape is held back, and so is a high
    surrogate escape while the unfinished escape after it could still become a low surrogate.
    """
    units: list[str] = []
    i = 0
    while i < len(raw):
        if raw[i] != "\\":
            units.append(raw[i])
            i += 1
            continue
        size = 6 if raw[i + 1 : i + 2] == "u" else 2
        if i + size > len(raw):
            break
        units.append(raw[i : i + size])
        i += size
    tail = raw[i:]
    if units and _is_high_surrogate_escape(units[-1]) and _could_become_low_surrogate_escape(tail):
        units.pop()
    decoded: str = json.loads('"' + "".join(units) + '"')
    return decoded


def snapshot_model(text: str) -> Any:
    """The snapshot the spec prescribes for the valid prefix ``text`` (no duplicate keys).

    A plain left-to-right walk over tokens with an explicit stack of open containers, each with
    the key waiting for its value. Complete scalars are decoded by ``json.loads``; a container
    shows as soon as it opens; a number shows once a delimiter follows it; an unfinished literal,
    number or key shows nothing; an unfinished string value shows :func:`partial_string`.
    """
    if first_error(text) is not None:
        raise ValueError(f"not a valid prefix: {text!r}")
    root: Any = NOTHING
    stack: list[list[Any]] = []  # [container, key waiting for its value (or None)]

    def attach(value: Any) -> None:
        nonlocal root
        if not stack:
            root = value
        elif isinstance(stack[-1][0], list):
            stack[-1][0].append(value)
        else:
            stack[-1][0][stack[-1][1]] = value
            stack[-1][1] = None

    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in WHITESPACE or c in ",:":
            i += 1
        elif c in "[{":
            container: Any = [] if c == "[" else {}
            attach(container)
            stack.append([container, None])
            i += 1
        elif c in "]}":
            stack.pop()
            i += 1
        elif c == '"':
            is_key = bool(stack) and isinstance(stack[-1][0], dict) and stack[-1][1] is None
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:  # unfinished string
                if not is_key:
                    attach(partial_string(text[i + 1 :]))
                break
            value = json.loads(text[i : j + 1])
            if is_key:
                stack[-1][1] = value
            else:
                attach(value)
            i = j + 1
        else:  # a number or a literal: runs to the next delimiter
            j = i
            while j < n and text[j] not in WHITESPACE and text[j] not in ",]}":
                j += 1
            token = text[i:j]
            if token in ("true", "false", "null") or j < n:
                attach(json.loads(token))
            else:
                break  # unfinished literal, or a number with no delimiter after it yet
            i = j
    return root

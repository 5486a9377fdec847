"""Reading one token at a time: literals, numbers and strings, and the positioned errors.

:class:`Tokens` is the half of the automaton that reads inside a token: the states STRING and
NUMBER, a value's first characters (a literal, a number), escapes and surrogate pairs; and the
one place that turns a place in the input into a positioned ``JSONDecodeError``. The other half,
:class:`~jsonsnap._parse.automaton.Automaton` (derived from it), drives the states and reads the
structure between tokens; the attributes both use are declared here.

A token is read from a position and the method returns the position after it, or ``~pos`` when
the input ends before the token at ``pos`` can be decided (it is then held in the tail and read
again with the next fragment: never more than 24 characters). A number longer than that is read
on where the fragment cut it instead (the NUMBER state), so that no digit is looked at twice.
Like the automaton, it changes the value only through the builder.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from typing import Any, ClassVar, Final

from .._errors import JSONDecodeError
from .chars import plain_end, whole_value
from .fast import FastPaths, LongStrings, escaped_run
from .grammar import (
    AFTER,
    BYTE_ORDER_MARK,
    COLON,
    CONSTANTS,
    CONTROL_CHARACTER,
    DIGITS,
    DONE,
    ENDS,
    EXPECTING_VALUE,
    HEX,
    INT_TOO_LONG,
    INVALID_ESCAPE,
    INVALID_NUMBER,
    INVALID_UNICODE_ESCAPE,
    KEY,
    LITERAL_VALUES,
    LITERALS,
    LOW_SURROGATE,
    NUMBER,
    NUMBER_CHARS_RE,
    NUMBER_CONTEXT,
    NUMBER_RE,
    NUMBER_UNFINISHED,
    PLAIN_RE,
    SIMPLE_ESCAPES,
    VALUE,
    WS,
)
from .observer import NOTHING
from .simple import simple_run
from .tree import Tree, grow

__all__ = ["PROVISIONAL_LIMIT", "SHORT_NUMBER", "Tokens"]

#: An unfinished number at most this long is held in the tail, and read again with the next
#: fragment; a longer one is read incrementally (the NUMBER state).
SHORT_NUMBER: Final = 24
#: Unfinished numbers longer than this are not shown by ``partial_numbers`` (Python refuses
#: ints of more digits by default, and converting the text again at every fragment must
#: stay cheap).
PROVISIONAL_LIMIT: Final = 4300
#: Larger than any input: a threshold that is never reached.
BEYOND: Final = 1 << 62
#: The last fast paths a string was read exactly with and those taken then (see
#: ``Tokens.read_exactly``; compared by identity, which costs less than a dataclass's hash).
_exact: tuple[FastPaths, FastPaths] | None = None


class Tokens:
    """Literals, numbers, strings and positioned errors (see the module docstring)."""

    # The automaton's state: the attributes both halves read (the automaton has a few more).
    __slots__ = (
        "allow_nan",
        "at",
        "buf",
        "closer",
        "constant",
        "exact",
        "exact_fast",
        "fast",
        "final",
        "line_start",
        "lines",
        "long",
        "long_min",
        "match",
        "minus_constant",
        "number",
        "number_at",
        "number_cut",
        "number_int",
        "offset",
        "open_ended",
        "partial_literals",
        "partial_numbers",
        "quote",
        "state",
        "tail",
        "to_float",
        "to_int",
        "tree",
        "vet",
    )

    tree: Tree
    fast: FastPaths
    #: Whether input that strict JSON refuses may be read another way (the tolerant
    #: automaton's), where the reading of a token decides it.
    lenient: ClassVar[bool] = False
    # For a schema checker, where the builder call being made is about (``observer.Cursor``):
    # ``at``, the character it reads (a bracket, a literal's first character, the character
    # after a number), ``buf``, the text being read (from ``offset``), and ``match``, the fast
    # path's last match (an element or a member read whole).
    at: int
    buf: str
    match: Any
    state: int  # a ``State``
    tail: str
    offset: int
    lines: int
    line_start: int
    final: bool
    quote: int
    #: What closes the open string: ``"``; in tolerant mode also ``'``, or ``""`` for an
    #: unquoted key (which any character but a letter, digit, ``_`` or ``$`` ends).
    closer: str
    open_ended: bool
    minus_constant: bool
    number: list[str]
    number_at: int
    number_cut: str
    number_int: tuple[int, int]
    long: LongStrings | None
    long_min: int
    #: While a checker has the open string read exactly: the fast paths and ``long_min`` to
    #: put back (``read_exactly``).
    exact: tuple[FastPaths, int] | None
    exact_fast: FastPaths | None  # the fast paths while exact, made when first needed
    #: While a checker vets the open string's runs (``read_exactly``): what it is asked.
    vet: Callable[[str, int], bool] | None
    to_int: Any
    to_float: Any
    constant: Any
    allow_nan: bool
    partial_numbers: bool
    partial_literals: bool

    # ------------------------------------------------------------------ errors

    def read_exactly(self, on: bool, vet: Callable[[str, int], bool] | None = None) -> None:
        """Read the open string (or key) one escape at a time, so that a checker knows each
        character's place: no runs of escapes decoded in bulk, no lane, no long-string path
        (``False``: the fast paths back). With ``vet``, the lane and the runs stay: each run
        of text they decode (escapes among them) is first ``vet(text, length)`` (``length``:
        the characters it is read from), which counts it or refuses it whole; a run refused
        is read again one escape at a time, with the rest of the input at hand (the lane
        declines it; see ``_string``). A checker asks; nothing else changes them."""
        if on:
            if self.exact is None:
                self.exact = (self.fast, self.long_min)
            self.vet = vet
            self.long_min = BEYOND
            if vet is not None:
                self.fast = self.exact[0]
                return
            fast = self.exact_fast
            if fast is None:
                global _exact
                pair, fast = _exact, self.fast  # (read once: another thread may set it)
                if pair is None or pair[0] is not fast:  # (once, not once per parser)
                    pair = _exact = fast, dataclasses.replace(fast, runs=False, lane=False)
                fast = self.exact_fast = pair[1]
            self.fast = fast
        elif self.exact is not None:
            self.fast, self.long_min = self.exact
            self.exact = None
            self.vet = None

    def fail(self, msg: str, buf: str, index: int, *, incomplete: bool = False) -> JSONDecodeError:
        """The error at ``buf[index]`` (``buf`` starts at ``offset``)."""
        pos = self.offset + index
        newlines = buf.count("\n", 0, index)
        lineno = self.lines + newlines + 1
        colno = index - buf.rfind("\n", 0, index) if newlines else pos - self.line_start + 1
        return JSONDecodeError(
            msg,
            buf,
            pos,
            lineno=lineno,
            colno=colno,
            doc_offset=self.offset,
            incomplete=incomplete,
        )

    def _fail_in_number(self, msg: str, text: str) -> JSONDecodeError:
        """The error at the start of the number ``text`` (which may begin before ``offset``,
        on the line being read: a number holds no newline)."""
        at = self.number_at
        return JSONDecodeError(
            msg,
            text,
            at,
            lineno=self.lines + 1,
            colno=at - self.line_start + 1,
            doc_offset=at,
        )

    # ------------------------------------------------------------------ literals

    def _literal(self, buf: str, pos: int, end: int) -> int:
        """``true``, ``false``, ``null`` (or, with ``allow_nan``, the NaN family) at ``pos``."""
        if self.fast.chars and (stop := whole_value(self, buf, pos, end)):
            return stop
        c = buf[pos]
        name = LITERALS.get(c)
        if name is None:
            name = CONSTANTS.get(c) if self.allow_nan else None
            if name is None:
                raise self.fail(BYTE_ORDER_MARK if c == "\ufeff" else EXPECTING_VALUE, buf, pos)
        stop = pos + len(name)
        if buf.startswith(name, pos):
            value = LITERAL_VALUES.get(name, NOTHING)
            tree = self.tree
            self.number_at = self.at = self.offset + pos
            tree.scalar(self.constant(name) if value is NOTHING else value)
            self.state = AFTER if tree.stack else DONE
            return stop
        for i in range(pos + 1, min(stop, end)):
            if buf[i] != name[i - pos]:
                raise self.fail(EXPECTING_VALUE, buf, i)
        if self.final:
            raise self.fail(EXPECTING_VALUE, buf, end, incomplete=True)
        self.at = self.offset + pos
        self.tree.begins()
        if self.partial_literals:
            self.tree.provisional(self._constant(name))
        return ~pos

    def _constant(self, name: str) -> Any:
        value = LITERAL_VALUES.get(name, NOTHING)
        return self.constant(name) if value is NOTHING else value

    # ------------------------------------------------------------------ numbers

    def _number_start(self, buf: str, pos: int, end: int) -> int:
        if self.fast.chars and (stop := whole_value(self, buf, pos, end)):
            return stop
        m = NUMBER_RE.match(buf, pos)
        j: int = m.end()  # type: ignore[union-attr]
        if j == end and not self.final:
            # Cut by the end of the fragment. A short number is held in the tail and read
            # again with the next fragment (in one match, often); a long one is read on
            # where it stopped, so that no digit is looked at twice.
            self.at = self.offset + pos
            self.tree.begins()
            if j - pos <= SHORT_NUMBER:
                if self.partial_numbers:
                    self._show_number(buf[pos:j], _cut(m))
                return ~pos
            self.number = [buf[pos:j]]
            self.number_at = self.offset + pos
            self.number_cut = _cut(m)
            self.number_int = (0, 0)
            self.state = NUMBER
            return j
        self.number_at = self.offset + pos
        return self._end_number(buf[pos:j], buf, j, end)

    def _number(self, buf: str, pos: int, end: int) -> int:
        """NUMBER: more of a number cut by the end of the last fragment. Only the new
        characters are looked at: they are matched after a short text that puts the number
        grammar where the cut fell."""
        reach: int = NUMBER_CHARS_RE.match(buf, pos).end()  # type: ignore[union-attr]
        context = NUMBER_CONTEXT[self.number_cut]
        m = NUMBER_RE.match(context + buf[pos:reach])
        j: int = pos + m.end() - len(context)  # type: ignore[union-attr]
        if j > pos:
            grow(self.number, 0, buf[pos:j])
        if j == end and not self.final:
            self.number_cut = _cut(m)
            return j
        return self._end_number(self.number[0], buf, j, end)

    def _end_number(self, text: str, buf: str, j: int, end: int) -> int:
        """The number ``text`` (which began at ``number_at``) ended before ``buf[j]`` (or with
        the input)."""
        tree = self.tree
        if text[-1] not in DIGITS:
            if j == end:
                raise self.fail(EXPECTING_VALUE, buf, end, incomplete=True)
            raise self.fail(EXPECTING_VALUE if text == "-" else INVALID_NUMBER, buf, j)
        if "." in text or "e" in text or "E" in text:
            value = self.to_float(text)
        elif self.to_int is not int:
            value = self.to_int(text)
        else:
            try:
                value = int(text)
            except ValueError:  # more digits than sys.get_int_max_str_digits() allows
                raise self._fail_in_number(INT_TOO_LONG, text) from None
        # Show the number only if what follows ends it; otherwise the next state reports the
        # error and the number stays unshown.
        stack = tree.stack
        if (
            j == end
            or buf[j] in WS
            or (stack and buf[j] in ENDS[type(stack[-1]) is list])
            or self.open_ended
        ):
            self.at = self.offset + j
            tree.scalar(value)
        self.state = AFTER if stack else DONE
        return j

    def _show_number(self, text: str, cut: str) -> None:
        """``partial_numbers``: show the unfinished number ``text`` (cut at ``cut``) as the
        longest beginning of it that is a number itself (never through the user's hooks:
        they get final numbers only); nothing when it is too long to convert at every
        fragment, or when Python would not convert it (an int of too many digits)."""
        if len(text) > PROVISIONAL_LIMIT:
            return
        if cut == "int" and len(text) > SHORT_NUMBER:
            value = self._long_int(text)
            if value is NOTHING:
                return
        else:
            text = text[: len(text) - NUMBER_UNFINISHED.get(cut, 0)]
            if not text:
                return
            try:
                value = float(text) if "." in text or "e" in text or "E" in text else int(text)
            except ValueError:
                return
        self.tree.provisional(value)

    def _long_int(self, text: str) -> Any:
        """The value of a long integer being read, from its value at the last fragment: only
        the new digits are converted (``int()`` of the whole text is quadratic in its length)."""
        known, done = self.number_int
        digits = text[done:]
        if done == 0 and text[0] == "-":
            digits = digits[1:]
        if len(text) - (text[0] == "-") > _int_limit():
            return NOTHING
        known = known * 10 ** len(digits) + int(digits) if digits else known
        self.number_int = (known, len(text))
        return -known if text[0] == "-" else known

    # ------------------------------------------------------------------ strings

    def _string(self, buf: str, pos: int, end: int) -> int:
        """STRING: string content, up to the closing quote; ``~pos`` at an escape that the
        rest of the input must decide (incomplete, or a high surrogate that may get its low
        half)."""
        tree = self.tree
        runs = self.fast.runs
        chars = self.fast.chars
        while True:
            if chars:  # noqa: SIM108 - (the regex's line needs its type comment)
                j = plain_end(buf, pos, end)
            else:
                j = PLAIN_RE.match(buf, pos).end()  # type: ignore[union-attr]
            if j < end and buf[j] == "\\":
                if end - j > self.long_min:
                    long = self.long
                    if long is None:
                        long = self.long = LongStrings(self.fast.window)
                    k = long.decode(buf, pos, end, tree)
                    if k > pos:
                        pos = k
                        continue
                if runs:
                    k = -1
                    if chars and self.vet is None:  # simple escapes, without the C scanner
                        k = simple_run(buf, pos, j, end, tree)
                    if k < 0:
                        k = escaped_run(buf, pos, j, end, tree, self.vet)
                    if k >= 0:
                        j = k
                    else:  # refused whole by the checker: the rest is read one escape at a time
                        runs = False
                if not runs and j > pos:
                    tree.append(buf[pos:j])
                pos = j
            elif j > pos:
                tree.append(buf[pos:j])
                pos = j
            if pos == end:
                return pos
            c = buf[pos]
            if c == '"':
                return self._closed(buf, pos + 1, end)
            if c != "\\":
                pos = self._control(buf, pos)
                continue
            j = self._escape(buf, pos, end)
            if j < 0:
                return ~pos
            pos = j

    def _closed(self, buf: str, pos: int, end: int) -> int:
        """The open string was closed before ``pos``. A colon right after a key, or a comma
        right after a value, is read with it (the COLON and AFTER states' commonest input)."""
        tree = self.tree
        if tree.string_end():
            if pos < end and buf[pos] == ":":
                self.state = VALUE
                return pos + 1
            self.state = COLON
            return pos
        stack = tree.stack
        if not stack:
            self.state = DONE
        elif pos < end and buf[pos] == ",":
            self.state = VALUE if type(stack[-1]) is list else KEY
            return pos + 1
        else:
            self.state = AFTER
        return pos

    def _control(self, buf: str, pos: int) -> int:
        """A control character inside a string (strict: an error)."""
        raise self.fail(CONTROL_CHARACTER, buf, pos)

    def _bad_escape(self, buf: str, pos: int, at: int) -> int:
        """The escape at ``pos`` is not one: ``buf[at]`` is where it goes wrong (strict: an
        error there)."""
        raise self.fail(INVALID_ESCAPE if at == pos + 1 else INVALID_UNICODE_ESCAPE, buf, at)

    def _escape(self, buf: str, pos: int, end: int) -> int:
        """Decode the one escape at ``pos``; return the position after it, or -1 if the input
        ends before it can be decided."""
        if pos + 1 == end:
            return -1
        kind = buf[pos + 1]
        if kind in SIMPLE_ESCAPES:
            self.tree.escape(SIMPLE_ESCAPES[kind], 2)
            return pos + 2
        if kind != "u":
            return self._bad_escape(buf, pos, pos + 1)
        stop = pos + 6
        for i in range(pos + 2, min(stop, end)):
            if buf[i] not in HEX:
                return self._bad_escape(buf, pos, i)
        if stop > end:
            return -1
        code = int(buf[pos + 2 : stop], 16)
        if 0xD800 <= code <= 0xDBFF:
            return self._high_surrogate(buf, code, stop, end)
        self.tree.escape(chr(code), 6)
        return stop

    def _high_surrogate(self, buf: str, code: int, stop: int, end: int) -> int:
        """A ``\\uD800``-``\\uDBFF`` escape ends at ``stop``: pair it with the low surrogate
        escape that follows, or keep it alone (as ``json`` does) once what follows cannot
        be one; -1 while that cannot be told yet."""
        low_end = min(stop + 6, end)
        for i in range(stop, low_end):
            c = buf[i]
            if c not in LOW_SURROGATE[i - stop]:
                # What follows cannot pair: a lone high surrogate, unless the character that
                # decides it is itself an error (which, read leniently, is read on its own).
                k = i - stop
                if self.lenient:
                    pass
                elif k == 0 and c < " ":
                    raise self.fail(CONTROL_CHARACTER, buf, i)
                elif k == 1 and c not in SIMPLE_ESCAPES:
                    raise self.fail(INVALID_ESCAPE, buf, i)
                elif k > 1 and c not in HEX:
                    raise self.fail(INVALID_UNICODE_ESCAPE, buf, i)
                self.tree.escape(chr(code), 6)
                return stop
        if low_end < stop + 6:
            return -1
        low = int(buf[stop + 2 : stop + 6], 16)
        self.tree.escape(chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)), 12)
        return stop + 6


def _int_limit() -> int:
    """How many digits ``int()`` converts (``sys.get_int_max_str_digits()``; 0 is no limit)."""
    limit: int = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    return limit or PROVISIONAL_LIMIT


def _cut(m: Any) -> str:
    """Where in the number grammar a match of ``NUMBER_RE`` stopped (``NUMBER_CONTEXT``)."""
    cut: str = m.lastgroup
    return "int0" if cut == "int" and m["int"] == "0" else cut

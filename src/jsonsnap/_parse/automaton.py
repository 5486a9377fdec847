"""The automaton: a resumable tokenizer for the grammar of ``grammar``, one method per state.

An :class:`Automaton` reads text handed to it fragment by fragment and tells the builder
(``tree``) what it read; its whole state is a few attributes, so it can stop after any
character and go on when the next fragment comes:

``state``
    what the grammar expects next (a :class:`~jsonsnap._parse.grammar.State`);
``tail``
    the only input kept between fragments: the beginning of one token that cannot be decided
    yet, a short number (``12`` may become ``123``), a literal (``fal``), an escape
    (``\\u00``) or a high-surrogate escape waiting to see whether a low one follows; at most
    24 characters, read again with the next fragment;
``number``
    in the NUMBER state, the text of a long number so far, and where in the number grammar
    the cut fell (``number_cut``): a number longer than the tail may hold is read
    incrementally, like a string, so it costs time proportional to its length however it is
    cut;
``offset``, ``lines``, ``line_start``
    the absolute position of ``tail[0]``, and the ``\\n`` read before it: the automaton is the
    only owner of positions, and the only code that raises a positioned error.

:meth:`Automaton.run` walks positions, never slices: each state's method reads from a
position and returns the next one (or ``~pos`` when the token at ``pos`` needs more input),
and long runs go to compiled regexes and to the standard library's C string scanner. The fast
paths (``fast``) are tried first where they apply; they read the same grammar in bigger steps.

The automaton never changes the value but through the builder interface, and never decides
what the snapshot shows: that is the builder's business. A schema checker reads where it is
as a read-only ``observer.Cursor`` and may ask it to read a string exactly
(``read_exactly``); no other part sets its attributes but the lane, which hands back the
characters it read and the escape it held (``fast.Lane``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from .._errors import JSONDecodeError, SchemaError
from .chars import DECLINED, elements, members
from .fast import FastPaths, LongStrings, Scanner
from .grammar import (
    AFTER,
    ARRAY_START,
    COLON,
    DIGITS,
    DONE,
    ELEMENT_RE,
    EXPECTING_COLON,
    EXPECTING_COMMA,
    EXPECTING_KEY,
    EXTRA_DATA,
    INCOMPLETE,
    KEY,
    LITERAL_VALUES,
    MEMBER_RE,
    NUMBER,
    OBJECT_START,
    SCALAR_STARTS,
    STRING,
    TRAILING_COMMA,
    UNTERMINATED_STRING,
    VALUE,
    WS,
    skip_ws,
)
from .observer import NOTHING
from .options import Options
from .tokens import BEYOND, Tokens
from .tree import DepthError, Tree

__all__ = ["Automaton"]


class Automaton(Tokens):
    """Reads JSON text, fragment by fragment, into a builder (see the module docstring)."""

    __slots__ = (
        "chars",
        "collected",
        "elements",
        "index",
        "members",
        "multiple",
        "scan_min",
        "scanner",
        "stopped",
        "values",
    )

    #: The state a top-level value begins in.
    first: ClassVar[int] = VALUE

    def __init__(self, tree: Tree, fast: FastPaths, options: Options) -> None:
        """``options`` is the parser's resolved options (see ``options.Options``)."""
        self.tree = tree
        self.fast = fast
        self.partial_numbers = options.partial_numbers
        self.partial_literals = options.partial_literals
        self.allow_nan = options.allow_nan
        self.to_int = options.to_int
        self.to_float = options.to_float
        self.constant = options.constant
        depth = options.max_depth
        hooked = options.hooked
        # The C scanner, made when first offered a container: hooks must run once per value,
        # and max_depth be checked at each bracket, so neither goes with it.
        self.scanner: Scanner | None = None
        scan_min = fast.scan_min
        self.scan_min = BEYOND if scan_min is None or hooked or depth is not None else scan_min
        self.long: LongStrings | None = None  # made when first needed
        self.long_min = BEYOND if fast.long_string is None else fast.long_string
        self.exact: tuple[FastPaths, int] | None = None
        self.exact_fast: FastPaths | None = None
        self.vet = None
        self.elements = fast.elements
        self.members = fast.members
        self.chars = fast.chars
        self.state = self.first
        self.closer = '"'
        self.tail = ""
        self.offset = 0
        # Several values per stream: whether to read them, the index of the value being read,
        # the values completed and not yet handed out, and whether the last one is among them.
        self.multiple = options.multiple_values
        self.index = 0
        self.values: list[Any] = []
        self.collected = False
        # Whether a number ends at any character (the next state decides whether that
        # character may follow it), or only at what may follow a value in strict JSON.
        self.open_ended = self.multiple
        # Whether "-I" begins -Infinity rather than a number.
        self.minus_constant = self.allow_nan
        self.lines = 0
        self.line_start = 0
        # Set before they are read: ``final`` by run(), ``quote`` (the absolute position of
        # the open string's opening quote) when a string opens, ``number``, ``number_at`` and
        # ``number_cut`` when a long number is cut, ``stopped`` when a hook raises.
        self.final: bool
        self.quote: int
        self.number: list[str]
        self.number_at: int
        self.number_cut: str
        self.number_int: tuple[int, int]  # partial_numbers: (value, characters) of a long int
        self.stopped: JSONDecodeError

    # ------------------------------------------------------------------ driving

    def run(self, text: str, final: bool) -> None:
        """Read ``text`` after what is held; with ``final``, the input ends after it."""
        tree = self.tree
        if tree.provisional_at is not None:
            tree.take_back()
        buf = self.tail + text if self.tail else text
        self.buf = buf
        self.final = final
        pos = 0
        end = len(buf)
        try:
            while pos < end:
                # Each state's method, by how often the state is met (a chain of int
                # comparisons and direct calls: the compiled build makes them machine code).
                state = self.state
                if state == STRING:
                    pos = self._string(buf, pos, end)
                elif state <= ARRAY_START:
                    pos = self._value(buf, pos, end)
                elif state == AFTER:
                    pos = self._after(buf, pos, end)
                elif state <= KEY:
                    pos = self._key(buf, pos, end)
                elif state == COLON:
                    pos = self._colon(buf, pos, end)
                elif state == NUMBER:
                    pos = self._number(buf, pos, end)
                elif state == DONE:
                    pos = self._done(buf, pos, end)
                else:
                    pos = self._own_state(buf, pos, end)
                if pos < 0:
                    break
            if final:
                self._finish(buf, pos, end)
        except JSONDecodeError as exc:
            if not (final and exc.incomplete and self._unclosed(buf, end)):
                self.tail = ""
                raise
            pos = end
        except SchemaError:  # the value broke its schema (on_violation="raise"): stop here
            raise
        except BaseException as exc:
            # An exception from a hook (or KeyboardInterrupt) left the state half updated.
            self.stopped = self.fail(f"Parsing stopped by {type(exc).__name__}", buf, 0)
            raise
        if pos < 0:  # the token at ~pos needs more input
            pos = ~pos
        if self.partial_numbers and self.state == NUMBER:
            self._show_number(self.number[0], self.number_cut)
        if tree.retracted is not None:
            tree.settle_retracted()
        newlines = buf.count("\n", 0, pos) if "\n" in buf else 0
        if newlines:
            self.lines += newlines
            self.line_start = self.offset + buf.rindex("\n", 0, pos) + 1
        self.offset += pos
        self.tail = buf[pos:] if pos < end else ""

    def _own_state(self, buf: str, pos: int, end: int) -> int:
        """A state that a derived automaton adds (the tolerant one's: ``tolerant``)."""
        raise NotImplementedError(f"no method for state {self.state}")

    def _finish(self, buf: str, pos: int, end: int) -> None:
        """The input ends (``pos`` is where reading stopped, ``~pos`` at a token held back)."""
        if self.state == NUMBER:
            self._end_number(self.number[0], buf, end, end)
        if pos >= 0:
            if self.state == DONE:
                return
            if self.multiple and self.state == self.first and not self.tree.stack:
                self.state = DONE  # between values: the stream may end there
                return
        raise self._unfinished(buf, end)

    def _unclosed(self, buf: str, end: int) -> bool:
        """The input ended inside a value: whether it was closed as it shows (a repair)."""
        return False

    def _unfinished(self, buf: str, end: int) -> JSONDecodeError:
        message = INCOMPLETE[self.state]
        if message is UNTERMINATED_STRING:
            at = self.quote
            message = (
                f"{message} line {self.lines + 1} column {at - self.line_start + 1} (char {at})"
            )
        return self.fail(message, buf, end, incomplete=True)

    # ------------------------------------------------------------------ the states

    def _value(self, buf: str, pos: int, end: int) -> int:
        """VALUE and ARRAY_START: a value (or ``]`` just after ``[``). With the ``elements``
        fast path, whole scalar elements of the open array one after the other, with their
        commas, in one regex match each (written out here: a call per element costs a tenth of
        the time on arrays of records), or a character at a time (``chars``)."""
        c = buf[pos]
        if c in WS:
            pos = skip_ws(buf, pos, end)
            if pos == end:
                return pos
            c = buf[pos]
        tree = self.tree
        stack = tree.stack
        if stack and type(stack[-1]) is list:
            if self.chars and c in SCALAR_STARTS and self.elements:
                stop, state = elements(buf, pos, end, self)
                if state != DECLINED:
                    self.state = state
                    return stop
            elif c in SCALAR_STARTS and self.elements:
                to_int = self.to_int
                to_float = self.to_float
                while (m := ELEMENT_RE.match(buf, pos)) is not None:
                    self.match = m  # where it is, for a schema checker
                    string, number, fraction, literal, comma = m.groups()
                    if string is not None:
                        tree.element(string)
                    elif number is not None:
                        tree.element(to_float(number) if fraction else to_int(number))
                    else:
                        tree.element(LITERAL_VALUES[literal])
                    pos = m.end()
                    if not comma:
                        self.state = AFTER
                        return pos
                    self.state = VALUE
                    if pos == end or (c := buf[pos]) not in SCALAR_STARTS:
                        return pos
            elif c == "]":
                if self.state == ARRAY_START:
                    return self._close(pos)
                return self._trailing_comma(buf, pos)
        if c == '"':
            self.quote = self.offset + pos
            tree.string_start()
            self.state = STRING
            return pos + 1
        if c == "{" or c == "[":
            if end - pos >= self.scan_min and (stop := self._offer(buf, pos)):
                return stop
            self.at = self.offset + pos
            try:
                tree.open({} if c == "{" else [])
            except DepthError as exc:
                raise self.fail(str(exc), buf, pos) from None
            self.state = OBJECT_START if c == "{" else ARRAY_START
            return pos + 1
        if c in DIGITS or (c == "-" and not (self.minus_constant and buf.startswith("-I", pos))):
            return self._number_start(buf, pos, end)
        return self._literal(buf, pos, end)

    def _offer(self, buf: str, pos: int) -> int:
        """The ``scan_min`` fast path: offer the array or object at ``pos`` whole to the C
        scanner; return where it ends, or 0."""
        tree = self.tree
        scanner = self.scanner
        if scanner is None:
            observed = getattr(tree, "observer", None) is not None
            scanner = self.scanner = Scanner(self.allow_nan, observed, self.fast)
        stop = scanner.offer(buf, pos, self.offset, tree)
        if stop:
            self.state = AFTER if tree.stack else DONE
        return stop

    def _close(self, pos: int) -> int:
        tree = self.tree
        self.at = self.offset + pos
        tree.close()
        self.state = AFTER if tree.stack else DONE
        return pos + 1

    def _key(self, buf: str, pos: int, end: int) -> int:
        """OBJECT_START and KEY: a key (or ``}`` just after ``{``).

        With the ``members`` fast path, a plain key and its colon, with the whole scalar value
        and its comma when they are there, are read in one regex match (or a character at a
        time, ``chars``), member after member (written out here, as in ``_value``)."""
        c = buf[pos]
        if c in WS:
            pos = skip_ws(buf, pos, end)
            if pos == end:
                return pos
            c = buf[pos]
        if c == '"':
            tree = self.tree
            if self.chars and self.members:
                stop, state = members(buf, pos, end, self)
                if state != DECLINED:
                    self.state = state
                    return stop
            elif self.members:
                to_int = self.to_int
                to_float = self.to_float
                while (m := MEMBER_RE.match(buf, pos)) is not None:
                    self.match = m  # where it is, for a schema checker
                    key, string, number, fraction, literal, comma = m.groups()
                    pos = m.end()
                    if string is not None:
                        tree.member(key, string)
                    elif number is not None:
                        tree.member(key, to_float(number) if fraction else to_int(number))
                    elif literal is not None:
                        tree.member(key, LITERAL_VALUES[literal])
                    else:
                        tree.key(key)
                        self.state = VALUE
                        return pos
                    self.state = KEY if comma else AFTER
                    if not comma or pos == end or buf[pos] != '"':
                        return pos
            self.quote = self.offset + pos
            tree.key_start()
            self.state = STRING
            return pos + 1
        if c == "}":
            if self.state == OBJECT_START:
                return self._close(pos)
            return self._trailing_comma(buf, pos)
        return self._no_key(buf, pos, end)

    def _colon(self, buf: str, pos: int, end: int) -> int:
        c = buf[pos]
        if c in WS:
            return skip_ws(buf, pos, end)
        if c != ":":
            return self._no_colon(buf, pos, end)
        self.state = VALUE
        return pos + 1

    def _after(self, buf: str, pos: int, end: int) -> int:
        """AFTER: a comma or the closing bracket, after a member or element (closing brackets
        one after the other)."""
        tree = self.tree
        stack = tree.stack
        while True:  # the state stays AFTER while brackets close
            c = buf[pos]
            if c in WS:
                pos = skip_ws(buf, pos, end)
                if pos == end:
                    return pos
                c = buf[pos]
            in_list = type(stack[-1]) is list
            if c == ",":
                self.state = VALUE if in_list else KEY
                return pos + 1
            if c != ("]" if in_list else "}"):
                return self._no_comma(buf, pos, end)
            self.at = self.offset + pos
            tree.close()
            pos += 1
            if not stack:
                self.state = DONE
                return pos
            if pos == end:
                return pos

    def _done(self, buf: str, pos: int, end: int) -> int:
        if buf[pos] in WS:
            return skip_ws(buf, pos, end)
        return self._extra(buf, pos, end)

    # ------------------------------------------------------------------ where strict JSON ends
    # Each of these is reached only by input that is not JSON (or a second value): strict, it
    # is an error at ``pos``; the tolerant automaton (``tolerant``) repairs what it can.

    def _trailing_comma(self, buf: str, pos: int) -> int:
        """A closing bracket right after a comma."""
        raise self.fail(TRAILING_COMMA[type(self.tree.stack[-1]) is list], buf, pos)

    def _no_key(self, buf: str, pos: int, end: int) -> int:
        raise self.fail(EXPECTING_KEY, buf, pos)

    def _no_colon(self, buf: str, pos: int, end: int) -> int:
        raise self.fail(EXPECTING_COLON, buf, pos)

    def _no_comma(self, buf: str, pos: int, end: int) -> int:
        raise self.fail(EXPECTING_COMMA, buf, pos)

    def _extra(self, buf: str, pos: int, end: int) -> int:
        """Something after the top-level value: with ``multiple``, the next value."""
        if not self.multiple:
            raise self.fail(EXTRA_DATA, buf, pos)
        return self._next_value(pos)

    # ------------------------------------------------------------------ several values

    def _next_value(self, pos: int) -> int:
        """A new top-level value begins at ``pos``: the one before it is handed on."""
        self.collect()
        self.tree.restart()
        self.collected = False
        self.index += 1
        self.state = self.first
        return pos

    def collect(self) -> None:
        """The top-level value is complete: keep it for ``read_values()`` (once)."""
        if not self.collected:
            value = self.tree.box[0]
            if value is not NOTHING:
                self.values.append(value)
            self.collected = True

    def take_values(self) -> list[Any]:
        """The values completed and not yet handed out (``read_values()``), forgotten."""
        if self.state == DONE and not self.tail:
            self.collect()
        values = self.values
        self.values = []
        return values

    # ------------------------------------------------------------------ queries

    def writing(self) -> tuple[str | int, ...] | None:
        """The path being written now (see ``Parser.writing``)."""
        state = self.state
        if state == DONE:
            return None
        tree = self.tree
        depth = len(tree.stack)
        if state == STRING:
            if tree.in_key:
                return (*tree.path_here(depth - 1), tree.pending[0])
            return tree.path_here(depth)
        started = state == NUMBER or bool(self.tail)  # a number or literal begun
        if not depth:
            return () if started else None
        top = tree.stack[-1]
        if state in (VALUE, NUMBER) or (state == ARRAY_START and started):
            if type(top) is list:
                return (*tree.path_here(depth - 1), len(top))
            return tree.path_here(depth)
        if state == COLON:
            return tree.path_here(depth)
        return tree.path_here(depth - 1)

    def is_open(self, path: tuple[str | int, ...], value: Any, parents: list[Any]) -> bool:
        """Whether ``value``, found at ``path`` through ``parents``, is still being read."""
        tree = self.tree
        stack = tree.stack
        depth = len(path)
        # An array or object on the stack, or the unfinished string, at the same place.
        if depth < len(stack) and stack[depth] is value:
            return all(stack[i] is parents[i] for i in range(depth))
        if self.state == STRING and not tree.in_key and tree.slot is not None:
            return path == tree.path_here(len(stack))
        if tree.provisional_at is not None:  # an unfinished number or literal shown for now
            here = tree.path_here(len(stack))
            if stack and type(stack[-1]) is list:
                here = (*here[:-1], len(stack[-1]) - 1)
            return path == here
        return False

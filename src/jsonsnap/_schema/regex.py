"""Schema patterns searched in time linear in the text: :func:`compile_pattern`.

A ``pattern`` (or a ``patternProperties`` key) comes with the schema, and a schema is input: a
tool definition often comes from a server. Python's ``re`` backtracks, so ``^(a+)+$`` takes
seconds on 27 characters, and even ``[a-z]+x`` takes time quadratic in the text it searches.
So a pattern is read by ``re``'s own parser (the syntax and the meaning are Python's) and
searched in one of two ways:

- a pattern without repetition (``*``, ``+``, ``?``, ``{m,n}``) or alternation (``|``) is
  searched by ``re`` itself: each place it is tried costs at most its own length;
- any other is compiled to an automaton (a Thompson NFA), run over the text once, one
  character at a time, with the sets of states it reaches cached as they are met (a lazy DFA):
  time linear in the text, whatever the nesting of quantifiers. Where a set of states reads
  a character and stays the same, the characters it would go on staying on are skipped in
  one ``re`` match of a single repeated character (its *stay*, made from the character
  tests of the set, once): ``^[^a]*$`` over a megabyte is one match, not a loop in Python.

Refused (a :class:`~jsonsnap.SchemaDefinitionError` says which and why): in a pattern that
repeats or alternates, the features no automaton reads in one pass (backreferences, lookahead
and lookbehind, conditional groups, atomic groups and possessive quantifiers); an automaton of
more than :data:`MAX_STATES` states (repetition counts are expanded: ``(a{100}){100}`` has
10,000); and groups nested more than :data:`MAX_NESTING` deep.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable
from typing import Any, Final

from .._jsontext import NOTHING

__all__ = ["MAX_NESTING", "MAX_STATES", "Pattern", "PatternRefused", "compile_pattern"]

#: The most states the automaton of one pattern may have.
MAX_STATES: Final = 10_000
#: The deepest nesting of groups a pattern may have (``re``'s parser recurses).
MAX_NESTING: Final = 100
#: Transitions cached per pattern before the cache starts again.
_CACHE_SIZE: Final = 65_536
#: A stay shorter than this is not tried again for four times as many characters (a set of
#: states that stays for a character or two at a time costs no ``re`` match per character).
_STAY_WORTH: Final = 16

_parser: Any = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")
_c: Any = importlib.import_module(
    "re._constants" if sys.version_info >= (3, 11) else "sre_constants"
)

_CHAR, _SPLIT, _ASSERT, _MATCH = range(4)
_END: Final = ""  # the "character" after the last one
_CATEGORIES: Final = {
    _c.CATEGORY_DIGIT: r"\d",
    _c.CATEGORY_NOT_DIGIT: r"\D",
    _c.CATEGORY_SPACE: r"\s",
    _c.CATEGORY_NOT_SPACE: r"\S",
    _c.CATEGORY_WORD: r"\w",
    _c.CATEGORY_NOT_WORD: r"\W",
}
_REPEATS: Final = (_c.MAX_REPEAT, _c.MIN_REPEAT)
#: What an automaton cannot read in one pass, by the name a refusal gives it.
_UNREADABLE: Final = {
    _c.GROUPREF: "a backreference",
    _c.GROUPREF_EXISTS: "a conditional group",
    _c.ASSERT: "a lookahead or lookbehind",
    _c.ASSERT_NOT: "a lookahead or lookbehind",
    **{
        getattr(_c, name): "an atomic group or a possessive quantifier"
        for name in ("ATOMIC_GROUP", "POSSESSIVE_REPEAT")
        if hasattr(_c, name)
    },
}
#: What makes ``re`` try more than one way from one place.
_BRANCHING: Final = frozenset(
    {*_REPEATS, _c.BRANCH, _c.GROUPREF_EXISTS}
    | {getattr(_c, n) for n in ("ATOMIC_GROUP", "POSSESSIVE_REPEAT") if hasattr(_c, n)}
)
#: Whether ``\B`` matches the empty text (it does from Python 3.14 on).
_EMPTY_NON_BOUNDARY: Final = re.search(r"\B", "") is not None
#: Flags that change what one character matches.
_CHAR_FLAGS: Final = re.IGNORECASE | re.ASCII | re.DOTALL


class PatternRefused(ValueError):
    """A pattern that cannot be searched in linear time (the reason is the message)."""


class Pattern:
    """A compiled schema pattern: :meth:`search` says whether it matches somewhere in a text
    (``re.search`` semantics), in time linear in the text."""

    __slots__ = ("_search", "pattern")

    def __init__(self, pattern: str, search: Callable[[str], bool]) -> None:
        self.pattern = pattern
        self._search = search

    def __repr__(self) -> str:
        return f"<Pattern {self.pattern!r}>"

    def search(self, text: str) -> bool:
        """Whether the pattern matches somewhere in ``text``."""
        return self._search(text)


def compile_pattern(source: str) -> Pattern:
    """``source`` compiled (``re.error`` when it does not compile; :class:`PatternRefused`
    when it cannot be searched in linear time)."""
    depth = _nesting(source)
    if depth > MAX_NESTING:
        raise PatternRefused(f"its groups nest {depth} deep (at most {MAX_NESTING})")
    compiled = re.compile(source)
    tree = _parser.parse(source)
    if _plain(tree):
        search = compiled.search
        return Pattern(source, lambda text: search(text) is not None)
    return Pattern(source, _Automaton(tree).search)


def _nesting(source: str) -> int:
    """How deep the groups of ``source`` nest (escapes and classes skipped)."""
    depth = deepest = 0
    i, n = 0, len(source)
    in_class = False
    while i < n:
        ch = source[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
        elif ch == "[":
            in_class = True
            if source.startswith("^", i + 1):
                i += 1
            if source.startswith("]", i + 1):  # a leading "]" is a literal
                i += 1
        elif ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")":
            depth -= 1
        i += 1
    return deepest


def _plain(tree: Any) -> bool:
    """Whether a parsed pattern has no repetition and no alternation (anywhere in it, its
    lookarounds included)."""
    todo = [tree]
    while todo:
        for op, arg in todo.pop():
            if op in _BRANCHING:
                return False
            if op == _c.SUBPATTERN:
                todo.append(arg[-1])
            elif op in (_c.ASSERT, _c.ASSERT_NOT):
                todo.append(arg[1])
    return True


def _skip(stay: tuple[Any, ...], text: str, pos: int, end: int) -> int:
    """Where the run of characters of ``text[pos:end]`` that some match of ``stay`` (a
    ``_Automaton`` set's) takes, one after the other, ends."""
    while True:
        start = pos
        for run in stay:
            pos = run(text, pos, end).end()
        if pos == start:
            return pos


def _scoped(source: str, flags: int) -> str:
    """One character's pattern with its flags in it (``(?i:...)``): a test that keeps its
    meaning inside a larger pattern."""
    letters = "".join(
        letter
        for flag, letter in ((re.IGNORECASE, "i"), (re.ASCII, "a"), (re.DOTALL, "s"))
        if flags & flag
    )
    return f"(?{letters}:{source})" if letters else source


def _class_source(op: Any, arg: Any) -> str:
    """One character's pattern, as ``re`` source, for a parsed atom."""
    if op == _c.LITERAL:
        return f"\\U{arg:08x}"
    if op == _c.NOT_LITERAL:
        return f"[^\\U{arg:08x}]"
    if op == _c.ANY:
        return "."
    parts = []
    for item, value in arg:  # IN
        if item == _c.NEGATE:
            parts.append("^")
        elif item == _c.LITERAL:
            parts.append(f"\\U{value:08x}")
        elif item == _c.RANGE:
            parts.append(f"\\U{value[0]:08x}-\\U{value[1]:08x}")
        elif item == _c.CATEGORY:
            parts.append(_CATEGORIES[value])
        else:  # pragma: no cover - not made by the parser of a str pattern
            raise PatternRefused(f"a class item {item} is not read")
    return "[" + "".join(parts) + "]"


class _Automaton:
    """A Thompson NFA of a parsed pattern, searched with its state sets cached (a lazy DFA)."""

    __slots__ = (
        "anchored",
        "args",
        "atoms",
        "cache",
        "context",
        "first",
        "kinds",
        "middle",
        "outs",
        "sets",
        "start",
        "stays",
        "tests",
    )

    def __init__(self, tree: Any) -> None:
        self.kinds: list[int] = []
        self.args: list[Any] = []
        self.outs: list[list[int]] = []
        self.atoms: dict[int, str] = {}  # a character state's test, as re source
        self.context = False  # whether an assertion reads the character before
        self.tests: dict[tuple[str, int], Any] = {}  # one character's tests, compiled once
        self.cache: dict[tuple[Any, ...], frozenset[int] | None] = {}
        # Each set of states met, once (so that a set that stays is told by identity), and
        # the stays of those that stay (see _stay).
        self.sets: dict[frozenset[int], frozenset[int]] = {}
        self.stays: dict[frozenset[int], tuple[Any, ...] | None] = {}
        flags = tree.state.flags
        match = self._state(_MATCH, None)
        self.start = self._sequence(tree.data, flags, match)
        self.first = frozenset((self.start,))
        self.sets[self.first] = self.first
        first = tree.data[0] if len(tree.data) else None
        self.anchored = first is not None and (
            first == (_c.AT, _c.AT_BEGINNING_STRING)
            or (first == (_c.AT, _c.AT_BEGINNING) and not flags & re.MULTILINE)
        )
        # Whether every assertion fails between two characters that are neither the first
        # nor the last (no \b, \B, nor ^ or $ of MULTILINE): a step there then depends on
        # the set of states and the character only, so that a set may have a stay.
        self.middle = not self.context and not any(
            kind == _ASSERT and arg[0] == _c.AT_END and arg[1]
            for kind, arg in zip(self.kinds, self.args, strict=True)
        )

    def _state(self, kind: int, arg: Any, outs: list[int] | None = None) -> int:
        if len(self.kinds) >= MAX_STATES:
            raise PatternRefused(
                f"it expands to more than {MAX_STATES} states (repetition counts multiply)"
            )
        self.kinds.append(kind)
        self.args.append(arg)
        self.outs.append(outs if outs is not None else [])
        return len(self.kinds) - 1

    def _sequence(self, items: Any, flags: int, then: int) -> int:
        """The states of ``items`` (a parsed sequence), built from the end, leading to
        ``then``; its first state."""
        for op, arg in reversed(list(items)):
            then = self._item(op, arg, flags, then)
        return then

    def _item(self, op: Any, arg: Any, flags: int, then: int) -> int:
        if op in (_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN):
            source = _class_source(op, arg)
            test = self._test(source, flags & _CHAR_FLAGS)
            state = self._state(_CHAR, test, [then])
            self.atoms[state] = _scoped(source, flags & _CHAR_FLAGS)
            return state
        if op == _c.AT:
            if arg in (_c.AT_BOUNDARY, _c.AT_NON_BOUNDARY) or (
                arg == _c.AT_BEGINNING and flags & re.MULTILINE
            ):
                self.context = True
            word = self._test(r"\w", flags & re.ASCII)
            return self._state(_ASSERT, (arg, bool(flags & re.MULTILINE), word), [then])
        if op == _c.SUBPATTERN:
            _, add, remove, body = arg
            return self._sequence(body, (flags | add) & ~remove, then)
        if op == _c.BRANCH:
            starts = [self._sequence(alt, flags, then) for alt in arg[1]]
            return self._state(_SPLIT, None, starts)
        if op in _REPEATS:
            low, high, body = arg
            if high == _c.MAXREPEAT:
                loop = self._state(_SPLIT, None)
                self.outs[loop] = [self._sequence(body, flags, loop), then]
                then = loop
            else:
                for _ in range(high - low):
                    then = self._state(_SPLIT, None, [self._sequence(body, flags, then), then])
            for _ in range(low):
                then = self._sequence(body, flags, then)
            return then
        what = _UNREADABLE.get(op, f"the construct {op}")
        raise PatternRefused(f"it repeats or alternates, and has {what}")

    def _test(self, source: str, flags: int) -> Any:
        test = self.tests.get((source, flags))
        if test is None:
            test = self.tests[source, flags] = re.compile(source, flags).fullmatch
        return test

    def _holds(self, arg: Any, before: str, after: str, last_newline: bool) -> bool:
        """Whether an assertion holds between ``before`` and ``after`` (``""``: the start or the
        end of the text)."""
        at, multiline, word = arg
        if at == _c.AT_BEGINNING_STRING:
            return before == _END
        if at == _c.AT_BEGINNING:
            return before == _END or (multiline and before == "\n")
        if at == _c.AT_END_STRING:
            return after == _END
        if at == _c.AT_END:
            return after == _END or (after == "\n" and (multiline or last_newline))
        if before == after == _END:  # the empty text
            return at == _c.AT_NON_BOUNDARY and _EMPTY_NON_BOUNDARY
        boundary = (before != _END and word(before) is not None) != (
            after != _END and word(after) is not None
        )
        return boundary if at == _c.AT_BOUNDARY else not boundary

    def _closure(
        self, states: frozenset[int], before: str, after: str, last_newline: bool
    ) -> list[int] | None:
        """The states reached from ``states`` without reading, between ``before`` and
        ``after``: the character states among them; ``None`` when the match state is one."""
        kinds, outs, args = self.kinds, self.outs, self.args
        seen: set[int] = set()
        todo = list(states)
        chars: list[int] = []
        while todo:
            s = todo.pop()
            if s in seen:
                continue
            seen.add(s)
            kind = kinds[s]
            if kind == _MATCH:
                return None
            if kind == _CHAR:
                chars.append(s)
            elif kind == _SPLIT or self._holds(args[s], before, after, last_newline):
                todo.extend(outs[s])
        return chars

    def search(self, text: str) -> bool:
        """Whether the pattern matches somewhere in ``text`` (one pass over it)."""
        cache = self.cache
        if len(cache) > _CACHE_SIZE:
            cache.clear()
            self.sets.clear()
            self.sets[self.first] = self.first
            self.stays.clear()
        states = self.first
        before = _END
        last = len(text) - 1
        context = self.context
        # A set that stays may skip the characters it stays on, where every assertion fails
        # (middle); not the last set found to have no stay, or whose stay was short, before
        # ``retry``.
        stays = self.stays if self.middle else None
        still: frozenset[int] | None = None
        retry = i = 0
        while i <= last:
            for i in range(i, last + 1):  # noqa: B020 (each loop goes on where the last left)
                ch = text[i]
                key = (states, before if context else i == 0, ch, i == last)
                found = cache.get(key, NOTHING)
                if found is NOTHING:
                    found = self._step(states, before, ch, i == last)
                    cache[key] = found
                if found is None:
                    return True
                if not found:
                    return False  # anchored, and nothing left to try
                if found is states and stays is not None and (found is not still or i >= retry):
                    break  # it stays: skip what it stays on
                states = found
                before = ch
            else:
                break
            stay = stays.get(states, NOTHING)
            if stay is NOTHING:
                stay = stays[states] = self._stay(states)
            j = i + 1
            if stay is None:
                still, retry = states, last + 1
            elif j < last:
                j = _skip(stay, text, j, last)
                if j - i < _STAY_WORTH:  # a short stay: not tried again for a while
                    still, retry = states, i + 4 * _STAY_WORTH
            before = text[j - 1]
            i = j
        return self._closure(states, before, _END, False) is None

    def _stay(self, states: frozenset[int]) -> tuple[Any, ...] | None:
        """How to skip the characters that leave ``states`` as they are, where every
        assertion fails (``middle``): the ``match`` of a run of each test that keeps them,
        tried in turn until none goes further; ``None`` when the pattern matches there, or
        when what keeps them is not one union of tests. A character keeps them when for each
        state of the set (but the start of an unanchored search, always there) a test that
        leads to it holds, and no test that leads out of the set does: kept here are the
        sets where every such state is led to by the same tests, and no test leads out."""
        chars = self._closure(states, "\n", "\n", False)  # (any characters: none holds)
        if chars is None:
            return None
        outs, atoms = self.outs, self.atoms
        kept: dict[int, set[str]] = {s: set() for s in states if self.anchored or s != self.start}
        for s in chars:
            target = outs[s][0]
            if target in kept:
                kept[target].add(atoms[s])
            elif target not in states:
                return None  # (a test that leads out: no one union of tests)
        tests = next(iter(kept.values()), None)
        if not tests or any(other != tests for other in kept.values()):
            return None
        return tuple(re.compile(f"(?:{test})*").match for test in sorted(tests))

    def _step(
        self, states: frozenset[int], before: str, ch: str, last: bool
    ) -> frozenset[int] | None:
        """The states after reading ``ch`` (``None``: a match ends before it)."""
        chars = self._closure(states, before, ch, last and ch == "\n")
        if chars is None:
            return None
        args, outs = self.args, self.outs
        reached = {outs[s][0] for s in chars if args[s](ch) is not None}
        if not self.anchored:
            reached.add(self.start)
        found = frozenset(reached)
        return self.sets.setdefault(found, found)

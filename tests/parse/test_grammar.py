"""The grammar as data: the automaton follows its transition table, and the token patterns
are read by the names of their groups.

Every step the automaton takes (one state method reading from one position) is recorded
while generated documents are fed in random pieces, with every fast path off so that each step
reads one token, and each step must be a transition ``TRANSITIONS`` allows: from its state, on
the token it read, to the state it left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jsonsnap
import strategies
from effort import examples
from jsonsnap._parse import automaton as _automaton
from jsonsnap._parse.fast import GENERAL
from jsonsnap._parse.grammar import ELEMENT_RE, MEMBER_RE, NUMBER_RE, TRANSITIONS, WS, State

Step = tuple[State, str, State]


def _token(state: State, buf: str, pos: int, stop: int, after: State) -> str:
    """The class of the token a step read from ``pos`` to ``stop`` (``TRANSITIONS``' keys),
    going to ``after``."""
    if state == State.STRING:
        if after == State.STRING:
            return "text"  # content only (an escaped quote included)
        if stop >= 2 and buf[stop - 1] in ":," and buf[stop - 2] == '"':
            return '"' + buf[stop - 1]  # the colon or comma read with the closing quote
        return '"' if stop > 0 and buf[stop - 1] == '"' else "text"
    if state == State.NUMBER:  # more digits, or the character that ends the number
        return "number" if stop == len(buf) else "end"
    start = pos
    while start < len(buf) and buf[start] in WS:
        start += 1
    if start >= len(buf) or stop <= start:
        return "ws"  # the step read only whitespace
    # AFTER reads closing brackets one after the other, then maybe a comma: the last one
    # decides where it goes (the ones before keep it in AFTER).
    if state == State.AFTER:
        last = stop - 1
        while buf[last] in WS:
            last -= 1
        c = buf[last]
    else:
        c = buf[start]
    if c in "-0123456789":
        return "number"
    if c.isalpha():
        return "literal"
    return c


#: The automaton's method for each state of strict JSON (``Automaton.run`` calls them).
STEP_METHODS = ("_value", "_key", "_colon", "_after", "_string", "_number", "_done")


@contextmanager
def _steps() -> Iterator[list[Step]]:
    """Record each step as (state before, token, state after), by wrapping each state's
    method: a compiled class's methods cannot be wrapped, so this runs on the pure build."""
    if jsonsnap.__build__ == "compiled":
        pytest.skip("wraps the automaton's methods, which a compiled build's are not")
    seen: list[Step] = []

    def traced(step: Callable[..., int]) -> Callable[..., int]:
        def run(auto: Any, buf: str, pos: int, end: int) -> int:
            before = State(auto.state)
            stop = step(auto, buf, pos, end)
            if stop >= 0:
                after = State(auto.state)
                seen.append((before, _token(before, buf, pos, stop, after), after))
            return stop

        return run

    with pytest.MonkeyPatch.context() as m:
        for name in STEP_METHODS:
            m.setattr(_automaton.Automaton, name, traced(getattr(_automaton.Automaton, name)))
        yield seen


def _check(steps: list[Step]) -> None:
    for before, token, after in steps:
        if token == "ws" and after == before:
            continue  # whitespace, or the first part of a token the next fragment finishes
        allowed = TRANSITIONS[before].get(token, frozenset())
        assert after in allowed, f"{before.name} --{token}--> {after.name}"


@settings(max_examples=examples(100))
@given(text=strategies.json_documents(), data=st.data())
def test_the_automaton_follows_the_transition_table(text: str, data: st.DataObject) -> None:
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=8))))
    with _steps() as steps:
        parser = jsonsnap.Parser(_fast_paths=GENERAL)
        start = 0
        for cut in [*cuts, len(text)]:
            parser.feed(text[start:cut])
            start = cut
        parser.close()
    assert steps
    _check(steps)


def test_every_transition_is_taken() -> None:
    """The table holds nothing the automaton never does, on documents that use it all."""
    docs = [
        '{"a": [1, "x", true, {"b": null}, [], {}], "c": "d", "e": -2.5e3, "f": [[1]]}',
        ' [ "s" , 1 , [ ] , { "k" : 0 } ] ',
        '"top"',
        "12",
        "[" + "9" * 40 + ", 1]",
        '{"k": ' + "1" * 40 + "}",
        "true",
        '{"k" : "v" , "l":"w","m": [1,"x"]}',
        "[]",
        "{}",
        "[true, false]",
        "[{}, []]",
    ]
    taken: set[tuple[State, str, State]] = set()
    for doc in docs:
        for piece in (1, 3, len(doc)):
            with _steps() as steps:
                parser = jsonsnap.Parser(_fast_paths=GENERAL)
                for i in range(0, len(doc), piece):
                    parser.feed(doc[i : i + piece])
                parser.close()
            _check(steps)
            taken.update(steps)
    table = {(s, t, n) for s, row in TRANSITIONS.items() for t, nexts in row.items() for n in nexts}
    unused = {(s.name, t, n.name) for s, t, n in table - taken}
    # Whitespace a step reads alone is not recorded; a long number at the top level ends at
    # close(), not in a step.
    assert unused <= {
        ("VALUE", "ws", "VALUE"),
        ("ARRAY_START", "ws", "ARRAY_START"),
        ("OBJECT_START", "ws", "OBJECT_START"),
        ("KEY", "ws", "KEY"),
        ("COLON", "ws", "COLON"),
        ("AFTER", "ws", "AFTER"),
        ("DONE", "ws", "DONE"),
        ("NUMBER", "end", "DONE"),
    }, sorted(unused)


def test_the_patterns_groups_are_read_in_order() -> None:
    # The fast paths unpack m.groups() into names: the order of the groups is the order of
    # these names.
    assert list(ELEMENT_RE.groupindex) == ["string", "number", "fraction", "literal", "comma"]
    assert list(MEMBER_RE.groupindex) == [
        "key",
        "string",
        "number",
        "fraction",
        "literal",
        "comma",
    ]
    assert list(NUMBER_RE.groupindex) == ["sign", "int", "dot", "frac", "e", "esign", "exp"]
    assert sorted(ELEMENT_RE.groupindex.values()) == list(range(1, ELEMENT_RE.groups + 1))
    assert sorted(MEMBER_RE.groupindex.values()) == list(range(1, MEMBER_RE.groups + 1))

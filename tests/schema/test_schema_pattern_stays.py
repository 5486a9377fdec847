"""The pattern automaton's stays: where a set of states reads a character and stays the same,
the characters it stays on are skipped in ``re`` matches of its tests (``_Automaton._stay``).

Held to the same automaton without them (``middle`` off: every character stepped in Python,
the search the generated tests of test_schema_hostile.py hold to ``re``) on long texts made
of runs, where the stays are taken: the same answer, and no more automaton steps.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from effort import examples
from jsonsnap._schema import regex as _regex

ATOMS = st.sampled_from(
    ["a", "b", "[ab]", "[^a]", ".", r"\w", r"\s", "\n", r"\d", "(?:)", "^", "$", r"\Z", r"\A"]
)
QUANTIFIERS = st.sampled_from(["*", "+", "?", "{1,3}", "*?", ""])


def _quantified(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    group = st.builds(lambda p, q: f"(?:{p}){q}", inner, QUANTIFIERS)
    alternation = st.builds(lambda p, q: f"(?:{p}|{q})", inner, inner)
    sequence = st.builds(lambda p, q: p + q, inner, inner)
    return group | alternation | sequence


PATTERNS = st.recursive(ATOMS, _quantified, max_leaves=6)
#: Texts of runs: a piece repeated, then another (the stays skip the repeats).
RUNS = st.lists(
    st.tuples(st.text("abA!\n é1", min_size=1, max_size=3), st.integers(1, 60)),
    min_size=1,
    max_size=4,
).map(lambda runs: "".join(piece * k for piece, k in runs))


def automata(source: str) -> tuple[Any, Any] | None:
    """The automaton of ``source`` twice: with its stays, and without (``None``: ``re``
    searches it, or it is refused)."""
    try:
        with_stays = _regex.compile_pattern(source)
    except _regex.PatternRefused:
        return None
    automaton = getattr(with_stays._search, "__self__", None)
    if not isinstance(automaton, _regex._Automaton):
        return None
    without = _regex.compile_pattern(source)._search.__self__  # type: ignore[attr-defined]
    without.middle = False
    return automaton, without


@settings(max_examples=examples(200), deadline=None)
@given(
    flags=st.sampled_from(["", "(?i)", "(?m)", "(?s)", "(?a)"]),
    pattern=PATTERNS,
    texts=st.lists(RUNS, min_size=1, max_size=4),
)
def test_stays_find_what_stepping_each_character_finds(
    flags: str, pattern: str, texts: list[str]
) -> None:
    both = automata(flags + pattern)
    if both is None:
        return
    fast, slow = both
    for text in texts:
        assert fast.search(text) == slow.search(text), (flags + pattern, text)


@pytest.mark.parametrize(
    "source",
    [
        r"^[\s\S]*$",
        r"^(?:[^\x00]|\n)*$",
        r"^(?i:[a-z]|\d)+$",
        r"^(a+)+$",
        r"^(?:ab|a)*b$",
        r"^.*x$",
        r"(?s)^.*\Z",
        r"^\w+(?:\s\w+)*$",
    ],
)
@pytest.mark.parametrize(
    "text", ["a" * 5000, "ab" * 2500 + "\n", "x\n" * 3000, "word " * 1000 + "end", "A1" * 3000]
)
def test_stays_on_long_texts_agree_with_re(source: str, text: str) -> None:
    both = automata(source)
    assert both is not None
    fast, slow = both
    expected = slow.search(text)
    assert fast.search(text) == expected
    if source not in (r"^(a+)+$", r"^\w+(?:\s\w+)*$"):  # (re backtracks on these)
        assert expected == (re.search(source, text) is not None)


def test_a_megabyte_that_a_set_of_states_stays_on_is_searched_in_few_steps() -> None:
    text = "line of text\n\t é 😀 " * 50_000
    for source in (r"^[\s\S]*$", r"^(?:[^\x00]|\n)*$"):
        compiled = _regex.compile_pattern(source)
        automaton = compiled._search.__self__  # type: ignore[attr-defined]
        started = time.process_time()
        assert compiled.search(text)
        assert time.process_time() - started < 5  # (a loop in Python would take seconds)
        assert len(automaton.cache) <= 8, source  # the steps taken (each a miss, cached)
        assert compiled.search(text + "\x00") == ("x00" not in source)


@pytest.mark.parametrize(
    "source",
    [r"^(?:[ab]*\n|a*!)$", r"^(?:a*!|[ab]*\n)$", r"^(?:[ab]*\Z|a*$)", r"^(?:a*$|[ab]*\Z)"],
)
def test_a_set_stays_only_on_what_keeps_every_state_of_it(source: str) -> None:
    # After "a", both branches are alive; a "b" keeps the first only: the set changes.
    both = automata(source)
    assert both is not None
    texts = ["a" * 500 + "b!", "a" * 500 + "!", "a" * 500 + "b\n", "ab" * 300 + "!"]
    for text in [*texts, "a" * 500 + "b" + "a" * 20 + "\n", "a" * 500 + "\n"]:
        expected = re.search(source, text) is not None
        assert both[0].search(text) == expected == both[1].search(text), text

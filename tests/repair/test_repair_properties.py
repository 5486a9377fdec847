"""Property-based tests of tolerant mode (``repair=``) and of several values per stream.

The spoiled documents come from tests/helpers/spoil.py: a value rendered with a random mix of
the repairs (trailing commas, single quotes, unquoted keys, Python literals, comments, raw control
characters, missing commas, prose and fences around the value, NaN and the infinities), along
with the set of repair kinds the renderer used. Every property is checked under
hypothesis-drawn chunkings (``strategies.split_points``: random cuts, one character at a time,
or the whole text at once).

a. valid JSON in tolerant mode: the final value is ``json.loads``'s, ``repairs == []``, and the
   snapshot after every fragment is the strict parser's (a top-level number or literal is
   shown once what follows it decides that it is the value, not the first word of prose);
b. snapshots of a spoiled document only grow: each one extends the one before it (only the last
   member of a container may still change), and the final value extends the last one;
c. a spoiled document reads back as the value it was rendered from (NaN equal to NaN), both with
   ``repair=True`` and with ``repair=`` only the kinds used; every repair reported is of a kind
   the renderer used, prose or a fence around the value is reported as ``leading_text`` /
   ``trailing_text``, and there are repairs exactly when the text is not strict JSON;
d. arbitrary text (random characters, JSON-ish tokens, the tokens of the repairs, spoiled
   documents with one character changed) either reads as a value or raises
   ``jsonsnap.JSONDecodeError``, never anything else, and the outcome (value, repairs, or the
   error's position) does not depend on how the text was cut;
e. several values per stream (strict): NDJSON or values glued together read as the list of each
   value's ``json.loads``, from ``read_values()`` after each fragment plus ``close()``, from
   ``jsonsnap.iter_values`` and from ``jsonsnap.loads(..., multiple_values=True)``;
f. every ``Repair`` of a spoiled document lies within the text, its line and column agree with
   its position, and the list is the same under every chunking.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import jsonsnap
import strategies
from effort import examples
from feeding import feed_growing, parse, same_outcome, snap
from spoil import KINDS, Spoiled, spoiled_documents
from tolerant_texts import FUZZ_TEXTS, several_values
from values import NOTHING, diff, grows, oracle, strict_loads

# --------------------------------------------------------------------------- helpers


def check_repair_positions(text: str, repairs: Sequence[jsonsnap.Repair], *, end: bool) -> None:
    """Every repair is of a known kind, at a position within ``text`` (or at its very end when
    ``end``: an ``unclosed`` value is repaired there), with line and column as
    ``json.JSONDecodeError`` counts them."""
    limit = len(text) + 1 if end else len(text)
    for repair in repairs:
        assert repair.kind in jsonsnap.REPAIRS, (text, repair)
        assert 0 <= repair.pos < limit, (text, repair)
        lineno = text.count("\n", 0, repair.pos) + 1
        colno = repair.pos - text.rfind("\n", 0, repair.pos)
        assert (repair.lineno, repair.colno) == (lineno, colno), (text, repair)


@st.composite
def chunked_spoiled(draw: st.DrawFn) -> tuple[Any, Spoiled, list[str]]:
    """A value, its spoiled text, and the text cut into fragments."""
    value, spoiled = draw(spoiled_documents())
    cuts = draw(strategies.split_points(len(spoiled.text)), label="cuts")
    return value, spoiled, strategies.fragments_at(spoiled.text, cuts)


# --------------------------------------------------------------------------- a. valid JSON


@settings(max_examples=examples(150, default=75))
@given(strategies.chunked(strategies.json_documents()))
def test_a_valid_json_reads_as_in_strict_mode(case: tuple[str, list[str]]) -> None:
    text, fragments = case
    tolerant, strict = jsonsnap.Parser(repair=True), jsonsnap.Parser()
    fed = ""
    for fragment in fragments:
        tolerant.feed(fragment)
        strict.feed(fragment)
        fed += fragment
        want, got = snap(strict), snap(tolerant)
        if got is NOTHING and not isinstance(want, (str, list, dict)):
            continue  # a top-level number or literal shows once what follows it decides
        assert diff(want, got) is None, (fed, want, got)
    value = tolerant.close()
    assert diff(strict_loads(text), value) is None, (text, value)
    assert tolerant.repairs == [], (text, tolerant.repairs)


# --------------------------------------------------------------------------- b. snapshots grow


@settings(max_examples=examples(150, default=75))
@given(chunked_spoiled())
def test_b_snapshots_of_a_spoiled_document_only_grow(
    case: tuple[Any, Spoiled, list[str]],
) -> None:
    _value, spoiled, fragments = case
    parser = jsonsnap.Parser(repair=True)
    previous = feed_growing(parser, fragments)
    final = parser.close()
    problem = grows(previous, final, settled=True)
    assert problem is None, (spoiled.text, previous, final, problem)


# --------------------------------------------------------------------------- c. value back


@settings(max_examples=examples(200, default=100))
@given(chunked_spoiled())
def test_c_a_spoiled_document_reads_back_as_its_value(
    case: tuple[Any, Spoiled, list[str]],
) -> None:
    value, spoiled, fragments = case
    text, used = spoiled
    got = parse(fragments, repair=True)
    assert got.error is None, (text, sorted(used), got.error)
    assert diff(value, got.value) is None, (text, sorted(used), value, got.value)
    kinds = {repair.kind for repair in got.repairs}
    assert kinds <= used, (text, sorted(used), got.repairs)
    framed = used & {"leading_text", "trailing_text"}
    assert framed <= kinds, (text, sorted(used), got.repairs)
    assert bool(got.repairs) != oracle(text)[0], (text, got.repairs)
    # Only the kinds the renderer used are enough.
    only = parse(fragments, repair=sorted(used))
    assert only.error is None, (text, sorted(used), only.error)
    assert diff(value, only.value) is None, (text, sorted(used), value, only.value)


# --------------------------------------------------------------------------- d. fuzz


@settings(max_examples=examples(400, default=200))
@given(strategies.chunked(FUZZ_TEXTS))
def test_d_arbitrary_text_reads_or_raises_the_same_however_cut(
    case: tuple[str, list[str]],
) -> None:
    text, fragments = case
    whole = parse([text], repair=True)
    cut = parse(fragments, repair=True)
    same_outcome(text, whole, cut, fragments)
    valid, expected = oracle(text)
    if whole.error is not None:
        assert not valid, ("valid JSON rejected", text, whole.error)
        assert 0 <= whole.error.pos <= len(text), (text, whole.error)
        return
    check_repair_positions(text, whole.repairs, end=True)
    if valid:
        assert diff(expected, whole.value) is None, (text, whole.value)
        assert whole.repairs == [], (text, whole.repairs)


# --------------------------------------------------------------------------- e. several values


@settings(max_examples=examples(150, default=60))
@given(st.data())
def test_e_several_values_read_as_each_ones_json_loads(data: st.DataObject) -> None:
    texts, stream = data.draw(several_values(), label="stream")
    fragments = strategies.fragments_at(
        stream, data.draw(strategies.split_points(len(stream)), label="cuts")
    )
    expected = [strict_loads(t) for t in texts]
    parser = jsonsnap.Parser(multiple_values=True)
    got: list[Any] = []
    for fragment in fragments:
        parser.feed(fragment)
        got += parser.read_values()
    got += parser.close()
    assert diff(expected, got) is None, (stream, fragments, expected, got)
    iterated = list(jsonsnap.iter_values(fragments))
    assert diff(expected, iterated) is None, (stream, fragments, expected, iterated)
    loaded = jsonsnap.loads(stream, multiple_values=True)
    assert diff(expected, loaded) is None, (stream, expected, loaded)


# --------------------------------------------------------------------------- f. positions


@settings(max_examples=examples(100, default=50))
@given(chunked_spoiled())
def test_f_repair_positions_are_in_the_text_and_do_not_depend_on_cuts(
    case: tuple[Any, Spoiled, list[str]],
) -> None:
    _value, (text, used), fragments = case
    whole = parse([text], repair=True)
    assert whole.error is None, (text, sorted(used), whole.error)
    check_repair_positions(text, whole.repairs, end=False)
    for cut in (fragments, list(text)):
        same_outcome(text, whole, parse(cut, repair=True), cut)


def test_the_renderer_knows_every_repair_kind_it_uses() -> None:
    assert set(jsonsnap.REPAIRS) >= KINDS

"""Property-based tests of jsonsnap: generated JSON text, fed through random chunkings.

Every property is checked under hypothesis-drawn chunkings: random cut points, one character (or
byte) at a time, or the whole text at once (see ``strategies.split_points``).

a. ``close()`` gives exactly ``json.loads(text)`` (types, float signs and key order included),
   for str input and for UTF-8 bytes cut at random byte offsets;
b. every snapshot extends the one before it, and the last one extends the final value; only
   the last member of a container may still change;
c. every prefix of a valid document feeds without error, and its snapshot does not depend on how
   the prefix was cut;
d. on corrupted documents the parser fails exactly where the reference recognizer
   (tests/helpers/reference.py) says the text stops being a prefix of any document, or succeeds
   exactly when json.loads does;
e. on arbitrary text or bytes the parser either returns a value or raises its own
   JSONDecodeError, never anything else;
f. ``snapshot(copy=True)`` equals the live ``snapshot()``, shares no container with it, and the
   live root container stays the same object;
g. the snapshot of every prefix is exactly what the spec prescribes, as computed by the
   independent model ``reference.snapshot_model`` (b-f would all pass for a parser that showed
   nothing until close(); this one would not).

"Every prefix" in c and g: of a document up to PREFIX_LIMIT characters long; of a longer one, a
sample that hypothesis draws (the thorough profile raises the limit, see conftest.py).
"""

from __future__ import annotations

import codecs
import itertools
import json
import math
from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import effort
import jsonsnap
import strategies
from effort import examples
from feeding import feed_growing, snap
from reference import first_error, is_complete, snapshot_model
from values import NOTHING, diff, grows, strict_loads

#: Documents up to this long get the snapshot of every prefix checked (c, g); longer ones a
#: sample of prefixes drawn by hypothesis. The thorough profile goes further (see conftest.py).
PREFIX_LIMIT = 60
PREFIX_LIMIT_THOROUGH = 400


# --------------------------------------------------------------------------- helpers


def shares_no_container(a: Any, b: Any) -> bool:
    """No list or dict inside ``a`` is the same object as the one at the same place in ``b``."""
    if isinstance(a, list) and isinstance(b, list):
        return a is not b and all(shares_no_container(x, y) for x, y in zip(a, b, strict=False))
    if isinstance(a, dict) and isinstance(b, dict):
        return a is not b and all(shares_no_container(a[k], b[k]) for k in a if k in b)
    return True


def partial(text: str) -> Any:
    return jsonsnap.parse_partial(text, NOTHING)


def decoded_prefix(data: bytes) -> str:
    """The characters whose UTF-8 bytes are all in ``data`` (a cut multi-byte char left out)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    text: str = decoder.decode(data, final=False)
    return text


def _sample_indices(count: int, at_most: int = 30) -> set[int]:
    """Up to ``at_most`` (four times as many when thorough) evenly spread indices in
    ``range(count)``, the last one included."""
    if effort.thorough():
        at_most *= 4
    if count <= at_most:
        return set(range(count))
    step = math.ceil(count / at_most)
    return set(range(0, count, step)) | {count - 1}


def prefix_cuts(data: st.DataObject, n: int, at_most: int) -> Sequence[int]:
    """Every prefix length of a text of ``n`` characters, or (past the limit) a sample of at
    most ``at_most`` of them drawn by hypothesis."""
    if n <= (PREFIX_LIMIT_THOROUGH if effort.thorough() else PREFIX_LIMIT):
        return range(n + 1)
    cuts = data.draw(st.sets(st.integers(0, n), min_size=1, max_size=at_most), label="cuts")
    return sorted(cuts)


# --------------------------------------------------------------------------- a. final value


@settings(max_examples=examples(200, default=100))
@given(strategies.chunked(strategies.json_documents()))
def test_a_final_value_equals_json_loads(case: tuple[str, list[str]]) -> None:
    text, fragments = case
    expected = strict_loads(text)
    parser = jsonsnap.Parser()
    for fragment in fragments:
        parser.feed(fragment)
    got = parser.close()
    assert diff(expected, got) is None, (text, fragments, expected, got)
    assert diff(expected, jsonsnap.loads(text)) is None


@settings(max_examples=examples(150, default=75))
@given(strategies.chunked_bytes(strategies.json_documents()))
def test_a_final_value_from_utf8_bytes_cut_anywhere(case: tuple[str, list[bytes]]) -> None:
    """Bytes cut inside multi-byte characters: same final value, and every snapshot is the
    snapshot of the whole characters received so far."""
    text, fragments = case
    expected = strict_loads(text)
    parser = jsonsnap.Parser()
    received = b""
    check_at = _sample_indices(len(fragments))
    for i, fragment in enumerate(fragments):
        parser.feed(fragment)
        received += fragment
        if i in check_at:
            chars = decoded_prefix(received)
            got_snapshot, want_snapshot = snap(parser), partial(chars)
            problem = diff(want_snapshot, got_snapshot)
            assert problem is None, (received, got_snapshot, want_snapshot, problem)
    got = parser.close()
    assert diff(expected, got) is None, (text, fragments, expected, got)
    assert diff(expected, jsonsnap.loads(text.encode("utf-8"))) is None


# --------------------------------------------------------------------------- b. snapshots grow


@settings(max_examples=examples(200))
@given(strategies.chunked(strategies.json_documents()))
def test_b_every_snapshot_extends_the_previous_one(case: tuple[str, list[str]]) -> None:
    text, fragments = case
    final = strict_loads(text)
    parser = jsonsnap.Parser()
    previous = feed_growing(parser, fragments)
    problem = grows(previous, final, settled=True)
    assert problem is None, (text, previous, final, problem)
    assert diff(final, parser.close()) is None


# --------------------------------------------------------------------------- c. prefixes


@settings(max_examples=examples(150))
@given(st.data())
def test_c_prefix_snapshot_does_not_depend_on_chunking(data: st.DataObject) -> None:
    text = data.draw(strategies.json_documents(), label="text")
    n = len(text)
    cuts = set(prefix_cuts(data, n, 25))
    splits = data.draw(strategies.split_points(n), label="splits")
    parser = jsonsnap.Parser()
    pos = 0
    for point in sorted(set(splits) | cuts | {n}):
        if point > pos:
            parser.feed(text[pos:point])  # a prefix of a valid document never raises
            pos = point
        if point in cuts:
            got, expected = snap(parser), partial(text[:point])
            assert diff(expected, got) is None, (text[:point], expected, got)


# --------------------------------------------------------------------------- d. corruptions


def _check_failed_parser(parser: jsonsnap.Parser, good: str) -> None:
    """After an error: snapshot() is the last good state, and every later call raises."""
    got, expected = snap(parser), partial(good)
    assert diff(expected, got) is None, ("snapshot after error", good, expected, got)
    for action in ("feed", "close"):
        try:
            if action == "feed":
                parser.feed(" ")
            else:
                parser.close()
        except jsonsnap.JSONDecodeError:
            continue
        raise AssertionError(f"{action}() after an error did not raise")


def check_against_reference(text: str, fragments: Sequence[str]) -> None:
    """Feed ``fragments`` (which join to ``text``) and hold the outcome to the reference."""
    bad = first_error(text)
    parser = jsonsnap.Parser()
    offset = 0
    for fragment in fragments:
        try:
            parser.feed(fragment)
        except jsonsnap.JSONDecodeError as err:
            assert bad is not None, ("rejected a valid prefix", text, err.pos, err.msg)
            assert (err.pos, err.incomplete) == (bad, False), (text, bad, err.pos, err.msg)
            assert offset <= bad < offset + len(fragment), ("raised by the wrong feed", text)
            _check_failed_parser(parser, text[:bad])
            return
        offset += len(fragment)
    assert bad is None, ("accepted an impossible character", text, bad)
    complete = is_complete(text)
    try:
        value = parser.close()
    except jsonsnap.JSONDecodeError as err:
        assert not complete, ("close() rejected a whole document", text, err.pos, err.msg)
        assert err.incomplete, ("close() on a valid prefix must say incomplete", text, err.msg)
        return
    assert complete, ("close() accepted an unfinished document", text, value)
    expected = strict_loads(text)
    assert diff(expected, value) is None, (text, expected, value)


def check_bytes_against_reference(text: str, fragments: Sequence[bytes]) -> None:
    """As :func:`check_against_reference`, for ``text``'s UTF-8 bytes cut anywhere.

    ``err.pos`` still counts characters. The error must come from a feed that carried a byte of
    the offending character (a multi-byte character may be recognised at its first byte or only
    once whole).
    """
    bad = first_error(text)
    parser = jsonsnap.Parser()
    offset = 0
    for fragment in fragments:
        try:
            parser.feed(fragment)
        except jsonsnap.JSONDecodeError as err:
            assert bad is not None, ("rejected a valid prefix", text, err.pos, err.msg)
            assert (err.pos, err.incomplete) == (bad, False), (text, bad, err.pos, err.msg)
            first_byte = len(text[:bad].encode("utf-8"))
            last_byte = len(text[: bad + 1].encode("utf-8")) - 1
            assert first_byte < offset + len(fragment) and offset <= last_byte, (
                "raised by the wrong feed",
                text,
            )
            _check_failed_parser(parser, text[:bad])
            return
        offset += len(fragment)
    assert bad is None, ("accepted an impossible character", text, bad)
    try:
        value = parser.close()
    except jsonsnap.JSONDecodeError as err:
        assert not is_complete(text), ("close() rejected a whole document", text, err.msg)
        assert err.incomplete, ("close() on a valid prefix must say incomplete", text, err.msg)
        return
    assert is_complete(text), ("close() accepted an unfinished document", text, value)
    assert diff(strict_loads(text), value) is None, (text, value)


@settings(max_examples=examples(400, default=200))
@given(strategies.chunked(strategies.corrupted_documents()))
def test_d_corrupted_documents_fail_where_the_reference_says(case: tuple[str, list[str]]) -> None:
    check_against_reference(*case)


@settings(max_examples=examples(150, default=75))
@given(strategies.chunked_bytes(strategies.corrupted_documents()))
def test_d_corrupted_utf8_bytes_fail_where_the_reference_says(
    case: tuple[str, list[bytes]],
) -> None:
    check_bytes_against_reference(*case)


@settings(max_examples=examples(400))
@given(strategies.chunked(strategies.json_ish_text()))
def test_d_random_json_ish_text_agrees_with_the_reference(case: tuple[str, list[str]]) -> None:
    check_against_reference(*case)


# --------------------------------------------------------------------------- e. fuzz


def _parse_or_own_error(fragments: Sequence[str | bytes]) -> tuple[bool, Any]:
    """(True, value) or (False, error); any exception but JSONDecodeError propagates."""
    parser = jsonsnap.Parser()
    try:
        for fragment in fragments:
            parser.feed(fragment)
        return True, parser.close()
    except jsonsnap.JSONDecodeError as err:
        assert isinstance(err, json.JSONDecodeError)
        assert isinstance(err.pos, int) and isinstance(err.incomplete, bool)
        return False, err


@settings(max_examples=examples(300))
@given(strategies.chunked(st.text(st.one_of(st.characters(), strategies.SURROGATES), max_size=60)))
def test_e_arbitrary_text_parses_or_raises_jsondecodeerror(case: tuple[str, list[str]]) -> None:
    text, fragments = case
    ok, value = _parse_or_own_error(fragments)
    if ok:
        assert diff(strict_loads(text), value) is None, (text, value)


@settings(max_examples=examples(300))
@given(st.data())
def test_e_arbitrary_bytes_parse_or_raise_jsondecodeerror(data: st.DataObject) -> None:
    raw = data.draw(
        st.one_of(
            st.binary(max_size=60),
            strategies.json_ish_text().map(lambda t: t.encode("utf-8", "surrogatepass")),
        ),
        label="raw",
    )
    cuts = data.draw(strategies.split_points(len(raw)), label="cuts")
    bounds = [0, *cuts, len(raw)]
    fragments = [raw[a:b] for a, b in itertools.pairwise(bounds)]
    ok, value = _parse_or_own_error(fragments)
    if ok:
        assert diff(strict_loads(raw.decode("utf-8")), value) is None, (raw, value)


# --------------------------------------------------------------------------- f. live view


@settings(max_examples=examples(150))
@given(strategies.chunked(strategies.json_documents()))
def test_f_copy_equals_live_view_and_root_is_stable(case: tuple[str, list[str]]) -> None:
    _text, fragments = case
    parser = jsonsnap.Parser()
    root: list[Any] | dict[str, Any] | None = None
    for fragment in fragments:
        parser.feed(fragment)
        live = parser.snapshot(NOTHING)
        copied = parser.snapshot(NOTHING, copy=True)
        assert diff(live, copied) is None, (live, copied)
        assert shares_no_container(live, copied)
        if isinstance(live, (list, dict)):
            if root is None:
                root = live
            assert live is root, "the live root container was replaced"
        else:
            assert root is None, "a root container was shown, then taken back"
    parser.close()


# --------------------------------------------------------------------------- g. exact snapshots


@settings(max_examples=examples(200, default=100))
@given(st.data())
def test_g_prefix_snapshot_is_what_the_spec_prescribes(data: st.DataObject) -> None:
    text = data.draw(strategies.json_documents(), label="text")
    for cut in prefix_cuts(data, len(text), 30):
        prefix = text[:cut]
        expected = snapshot_model(prefix)  # NOTHING when nothing is shown yet
        got = partial(prefix)
        assert diff(expected, got) is None, (prefix, expected, got)

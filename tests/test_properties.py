"""Property-based tests of jsonsnap: generated JSON text, fed through random chunkings.

Every property is checked under hypothesis-drawn chunkings: random cut points, one character (or
byte) at a time, or the whole text at once (see ``strategies.split_points``).

a. ``close()`` gives exactly ``json.loads(text)`` (types, float signs and key order included),
   for str input and for UTF-8 bytes cut at random byte offsets;
b. every snapshot extends the one before it, and the last one extends the final value;
c. every prefix of a valid document feeds without error, and its snapshot does not depend on how
   the prefix was cut;
d. on corrupted documents the parser fails exactly where the reference recognizer
   (tests/reference.py) says the text stops being a prefix of any document, or succeeds exactly
   when json.loads does;
e. on arbitrary text or bytes the parser either returns a value or raises its own
   JSONDecodeError, never anything else;
f. ``snapshot(copy=True)`` equals the live ``snapshot()``, shares no container with it, and the
   live root container stays the same object;
g. the snapshot of every prefix is exactly what the spec prescribes, as computed by the
   independent model ``reference.snapshot_model`` (b-f would all pass for a parser that showed
   nothing until close(); this one would not).
"""

from __future__ import annotations

import codecs
import itertools
import json
import math
import os
from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import jsonsnap
import strategies
from reference import NOTHING, first_error, is_complete, snapshot_model


class _Missing:
    """The ``default`` passed to snapshot(): tells "nothing shown yet" apart from ``null``."""

    def __repr__(self) -> str:
        return "MISSING"

    def __copy__(self) -> _Missing:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _Missing:
        return self


MISSING = _Missing()

#: Multiplies every max_examples below: JSONSNAP_PROPERTY_SCALE=20 for a long hunt, 0.2 for a
#: smoke run. The default keeps the whole file around half a minute on two cores.
SCALE = float(os.environ.get("JSONSNAP_PROPERTY_SCALE", "1"))


def examples(n: int) -> int:
    return max(1, round(n * SCALE))


# --------------------------------------------------------------------------- comparisons


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard constant {name}")


def strict_loads(text: str) -> Any:
    """json.loads with NaN, Infinity and -Infinity refused (jsonsnap's default)."""
    return json.loads(text, parse_constant=_reject_constant)


def same(a: Any, b: Any) -> bool:
    """Equal values of exactly the same types all the way down.

    ``1``, ``1.0`` and ``True`` differ; ``0.0`` and ``-0.0`` differ; floats compare by ``repr``
    (so ``inf`` equals ``inf``; NaN never occurs); dicts must also have the same key order.
    """
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return repr(a) == repr(b) and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def extends(old: Any, new: Any) -> bool:
    """``new`` is ``old`` or a continuation of it: nothing taken back, no type changed.

    * ``old`` is MISSING (nothing shown yet): anything extends it;
    * strings: ``new.startswith(old)``;
    * lists: ``new`` is at least as long and each ``old[i]`` extends ``new[i]``;
    * dicts: ``old``'s keys are a prefix, in order, of ``new``'s, and each value extends;
    * other scalars: equal, with the same type.
    """
    if old is MISSING:
        return True
    if type(old) is not type(new):
        return False
    if isinstance(old, str):
        return bool(new.startswith(old))
    if isinstance(old, list):
        return len(new) >= len(old) and all(extends(o, n) for o, n in zip(old, new, strict=False))
    if isinstance(old, dict):
        keys = list(old)
        return list(new)[: len(keys)] == keys and all(extends(old[k], new[k]) for k in keys)
    return same(old, new)


def extends_strictly(old: Any, new: Any) -> bool:
    """:func:`extends`, and only the last member of a container may still grow.

    In a list or dict shown with members ``m1 .. mk``, members before ``mk`` were followed by a
    comma in the text, so they are complete and must already equal their final value.
    """
    if not extends(old, new):
        return False
    if isinstance(old, list) and old:
        *done, last = range(len(old))
        return all(same(old[i], new[i]) for i in done) and extends_strictly(old[last], new[last])
    if isinstance(old, dict) and old:
        *done_keys, last_key = list(old)
        return all(same(old[k], new[k]) for k in done_keys) and extends_strictly(
            old[last_key], new[last_key]
        )
    return True


def shares_no_container(a: Any, b: Any) -> bool:
    """No list or dict inside ``a`` is the same object as the one at the same place in ``b``."""
    if isinstance(a, list) and isinstance(b, list):
        return a is not b and all(shares_no_container(x, y) for x, y in zip(a, b, strict=False))
    if isinstance(a, dict) and isinstance(b, dict):
        return a is not b and all(shares_no_container(a[k], b[k]) for k in a if k in b)
    return True


def snap(parser: jsonsnap.Parser) -> Any:
    """An independent copy of the parser's snapshot; MISSING when nothing is shown yet."""
    return parser.snapshot(MISSING, copy=True)


def partial(text: str) -> Any:
    return jsonsnap.parse_partial(text, MISSING)


def decoded_prefix(data: bytes) -> str:
    """The characters whose UTF-8 bytes are all in ``data`` (a cut multi-byte char left out)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    text: str = decoder.decode(data, final=False)
    return text


def _sample_indices(count: int, at_most: int = 30) -> set[int]:
    """Up to ``at_most`` evenly spread indices in ``range(count)``, the last one included."""
    if count <= at_most:
        return set(range(count))
    step = math.ceil(count / at_most)
    return set(range(0, count, step)) | {count - 1}


# --------------------------------------------------------------------------- a. final value


@settings(max_examples=examples(200), deadline=None)
@given(strategies.chunked(strategies.json_documents()))
def test_a_final_value_equals_json_loads(case: tuple[str, list[str]]) -> None:
    text, fragments = case
    expected = strict_loads(text)
    parser = jsonsnap.Parser()
    for fragment in fragments:
        parser.feed(fragment)
    got = parser.close()
    assert same(got, expected), (text, fragments, expected, got)
    assert same(jsonsnap.loads(text), expected)


@settings(max_examples=examples(150), deadline=None)
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
            assert same(got_snapshot, want_snapshot), (received, got_snapshot, want_snapshot)
    got = parser.close()
    assert same(got, expected), (text, fragments, expected, got)
    assert same(jsonsnap.loads(text.encode("utf-8")), expected)


# --------------------------------------------------------------------------- b. snapshots grow


@settings(max_examples=examples(200), deadline=None)
@given(strategies.chunked(strategies.json_documents()))
def test_b_every_snapshot_extends_the_previous_one(case: tuple[str, list[str]]) -> None:
    text, fragments = case
    final = strict_loads(text)
    parser = jsonsnap.Parser()
    previous: Any = MISSING
    fed = ""
    for fragment in fragments:
        parser.feed(fragment)
        fed += fragment
        current = snap(parser)
        assert extends(previous, current), (fed, previous, current)
        assert extends_strictly(previous, current), (fed, previous, current)
        previous = current
    assert extends(previous, final), (text, previous, final)
    assert extends_strictly(previous, final), (text, previous, final)
    assert same(parser.close(), final)


# --------------------------------------------------------------------------- c. prefixes


@settings(max_examples=examples(150), deadline=None)
@given(st.data())
def test_c_prefix_snapshot_does_not_depend_on_chunking(data: st.DataObject) -> None:
    text = data.draw(strategies.json_documents(), label="text")
    n = len(text)
    if n <= 120:
        cuts = set(range(n + 1))
    else:
        cuts = data.draw(st.sets(st.integers(0, n), min_size=1, max_size=25), label="cuts")
    splits = data.draw(strategies.split_points(n), label="splits")
    parser = jsonsnap.Parser()
    pos = 0
    for point in sorted(set(splits) | cuts | {n}):
        if point > pos:
            parser.feed(text[pos:point])  # a prefix of a valid document never raises
            pos = point
        if point in cuts:
            got, expected = snap(parser), partial(text[:point])
            assert same(got, expected), (text[:point], expected, got)


# --------------------------------------------------------------------------- d. corruptions


def _check_failed_parser(parser: jsonsnap.Parser, good: str) -> None:
    """After an error: snapshot() is the last good state, and every later call raises."""
    got, expected = snap(parser), partial(good)
    assert same(got, expected), ("snapshot after error", good, expected, got)
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
    assert same(value, expected), (text, expected, value)


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
    assert same(value, strict_loads(text))


@settings(max_examples=examples(400), deadline=None)
@given(strategies.chunked(strategies.corrupted_documents()))
def test_d_corrupted_documents_fail_where_the_reference_says(case: tuple[str, list[str]]) -> None:
    check_against_reference(*case)


@settings(max_examples=examples(150), deadline=None)
@given(strategies.chunked_bytes(strategies.corrupted_documents()))
def test_d_corrupted_utf8_bytes_fail_where_the_reference_says(
    case: tuple[str, list[bytes]],
) -> None:
    check_bytes_against_reference(*case)


@settings(max_examples=examples(400), deadline=None)
@given(strategies.chunked(strategies.json_ish_text()))
def test_d_random_json_ish_text_agrees_with_the_reference(case: tuple[str, list[str]]) -> None:
    check_against_reference(*case)


# --------------------------------------------------------------------------- e. fuzz


_SURROGATES = st.characters(categories=["Cs"])


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


@settings(max_examples=examples(300), deadline=None)
@given(strategies.chunked(st.text(st.one_of(st.characters(), _SURROGATES), max_size=60)))
def test_e_arbitrary_text_parses_or_raises_jsondecodeerror(case: tuple[str, list[str]]) -> None:
    text, fragments = case
    ok, value = _parse_or_own_error(fragments)
    if ok:
        assert same(value, strict_loads(text)), (text, value)


@settings(max_examples=examples(300), deadline=None)
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
        assert same(value, strict_loads(raw.decode("utf-8"))), (raw, value)


# --------------------------------------------------------------------------- f. live view


@settings(max_examples=examples(150), deadline=None)
@given(strategies.chunked(strategies.json_documents()))
def test_f_copy_equals_live_view_and_root_is_stable(case: tuple[str, list[str]]) -> None:
    _text, fragments = case
    parser = jsonsnap.Parser()
    root: list[Any] | dict[str, Any] | None = None
    for fragment in fragments:
        parser.feed(fragment)
        live = parser.snapshot(MISSING)
        copied = parser.snapshot(MISSING, copy=True)
        assert same(live, copied), (live, copied)
        assert shares_no_container(live, copied)
        if isinstance(live, (list, dict)):
            if root is None:
                root = live
            assert live is root, "the live root container was replaced"
        else:
            assert root is None, "a root container was shown, then taken back"
    parser.close()


# --------------------------------------------------------------------------- g. exact snapshots


@settings(max_examples=examples(200), deadline=None)
@given(st.data())
def test_g_prefix_snapshot_is_what_the_spec_prescribes(data: st.DataObject) -> None:
    text = data.draw(strategies.json_documents(), label="text")
    n = len(text)
    if n <= 120:
        cuts: Sequence[int] = range(n + 1)
    else:
        cuts = sorted(data.draw(st.sets(st.integers(0, n), min_size=1, max_size=30), label="cuts"))
    for cut in cuts:
        prefix = text[:cut]
        model = snapshot_model(prefix)
        expected = MISSING if model is NOTHING else model
        got = partial(prefix)
        assert same(got, expected), (prefix, expected, got)

"""JSONTestSuite (test_parsing): y_ accepted like json.loads, n_ rejected, i_ as recorded.

Every file is fed as bytes, so a character split between two fragments is exercised; each file
goes through :func:`chunkings` (whole, one byte at a time, 2-way splits of short files, random
splits), and the outcome (value, or error position) must not depend on the chunking.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

import pytest

import jsonsnap
import paths
from chunking import chunkings
from values import NOTHING, diff, grows, show, strict_loads

#: A copy of JSONTestSuite's test_parsing corpus, with its licence beside it.
SUITE: Final = paths.DATA / "JSONTestSuite" / "test_parsing"


def names(prefix: str) -> list[str]:
    return sorted(p.name for p in SUITE.iterdir() if p.name.startswith(prefix))


#: Our behaviour on the implementation-defined files, so that any change shows. Numbers out of
#: range follow json.loads (inf, 0.0, big ints); lone and misordered surrogate escapes are kept,
#: as json.loads keeps them; anything that is not UTF-8 (Latin-1, UTF-16, bad sequences, encoded
#: surrogates, overlong forms) is rejected, and so is a UTF-8 byte order mark.
IMPLEMENTATION_DEFINED: Final[dict[str, str]] = {
    "i_number_double_huge_neg_exp.json": "accept",
    "i_number_huge_exp.json": "accept",
    "i_number_neg_int_huge_exp.json": "accept",
    "i_number_pos_double_huge_exp.json": "accept",
    "i_number_real_neg_overflow.json": "accept",
    "i_number_real_pos_overflow.json": "accept",
    "i_number_real_underflow.json": "accept",
    "i_number_too_big_neg_int.json": "accept",
    "i_number_too_big_pos_int.json": "accept",
    "i_number_very_big_negative_int.json": "accept",
    "i_object_key_lone_2nd_surrogate.json": "accept",
    "i_string_1st_surrogate_but_2nd_missing.json": "accept",
    "i_string_1st_valid_surrogate_2nd_invalid.json": "accept",
    "i_string_UTF-16LE_with_BOM.json": "reject",
    "i_string_UTF-8_invalid_sequence.json": "reject",
    "i_string_UTF8_surrogate_U+D800.json": "reject",
    "i_string_incomplete_surrogate_and_escape_valid.json": "accept",
    "i_string_incomplete_surrogate_pair.json": "accept",
    "i_string_incomplete_surrogates_escape_valid.json": "accept",
    "i_string_invalid_lonely_surrogate.json": "accept",
    "i_string_invalid_surrogate.json": "accept",
    "i_string_invalid_utf-8.json": "reject",
    "i_string_inverted_surrogates_U+1D11E.json": "accept",
    "i_string_iso_latin_1.json": "reject",
    "i_string_lone_second_surrogate.json": "accept",
    "i_string_lone_utf8_continuation_byte.json": "reject",
    "i_string_not_in_unicode_range.json": "reject",
    "i_string_overlong_sequence_2_bytes.json": "reject",
    "i_string_overlong_sequence_6_bytes.json": "reject",
    "i_string_overlong_sequence_6_bytes_null.json": "reject",
    "i_string_truncated-utf-8.json": "reject",
    "i_string_utf16BE_no_BOM.json": "reject",
    "i_string_utf16LE_no_BOM.json": "reject",
    "i_structure_500_nested_arrays.json": "accept",
    "i_structure_UTF-8_BOM_empty_object.json": "reject",
}


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len({key for key, _ in pairs}) != len(pairs):
        raise ValueError("duplicate keys")
    return dict(pairs)


def oracle(data: bytes) -> Any:
    """json.loads as the reference: strict UTF-8, NaN and Infinity rejected."""
    return strict_loads(data.decode("utf-8"))


def outcome(fragments: Sequence[bytes]) -> tuple[str, Any]:
    """``("value", v)`` or ``("error", (pos, incomplete))``; any other exception propagates."""
    parser = jsonsnap.Parser()
    try:
        for fragment in fragments:
            parser.feed(fragment)
        return "value", parser.close()
    except jsonsnap.JSONDecodeError as err:
        assert str(err) == f"{err.msg}: line {err.lineno} column {err.colno} (char {err.pos})"
        return "error", (err.pos, err.incomplete)


def read(name: str) -> bytes:
    return (SUITE / name).read_bytes()


def check_accepted(name: str) -> None:
    data = read(name)
    expected = oracle(data)
    for label, fragments in chunkings(data, rounds=3):
        kind, got = outcome(fragments)
        assert kind == "value", f"{name} {label}: rejected: {got}"
        problem = diff(expected, got)
        assert problem is None, f"{name} {label}: {problem}"


def check_rejected(name: str) -> None:
    data = read(name)
    errors: dict[tuple[int, bool], str] = {}
    for label, fragments in chunkings(data, rounds=3):
        kind, got = outcome(fragments)
        assert kind == "error", f"{name} {label}: accepted {show(got)}"
        errors.setdefault(got, label)
    assert len(errors) == 1, f"{name}: the error depends on the chunking: {errors}"


@pytest.mark.parametrize("name", names("y_"))
def test_accepted(name: str) -> None:
    check_accepted(name)


def without_duplicate_keys(name: str) -> bool:
    try:
        json.loads(read(name).decode("utf-8"), object_pairs_hook=_no_duplicates)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("name", [n for n in names("y_") if without_duplicate_keys(n)])
def test_accepted_snapshots_only_grow(name: str) -> None:
    """Fed one byte at a time, every snapshot grows the previous one (rules 1-7) and the last
    one is the final value (a top-level number may still be held back). Files with duplicate
    keys are left out: there a later member may overwrite a shown value."""
    data = read(name)
    parser = jsonsnap.Parser()
    previous: object = NOTHING
    for i in range(len(data)):
        parser.feed(data[i : i + 1])
        current = parser.snapshot(NOTHING, copy=True)
        problem = grows(previous, current)
        assert problem is None, f"{name}: after {data[: i + 1]!r}: {problem}"
        previous = current
    expected = oracle(data)
    last = parser.snapshot(NOTHING)
    if not (type(expected) in (int, float) and last is NOTHING):
        assert diff(expected, last) is None, f"{name}: {diff(expected, last)}"


@pytest.mark.parametrize("name", names("n_"))
def test_rejected(name: str) -> None:
    check_rejected(name)


@pytest.mark.parametrize("name", names("i_"))
def test_implementation_defined(name: str) -> None:
    assert name in IMPLEMENTATION_DEFINED, f"{name}: new i_ file, record its behaviour"
    if IMPLEMENTATION_DEFINED[name] == "accept":
        check_accepted(name)
    else:
        check_rejected(name)


def test_table_lists_every_i_file() -> None:
    assert sorted(IMPLEMENTATION_DEFINED) == names("i_")
    assert len(names("y_")) > 90 and len(names("n_")) > 180


def test_the_whole_corpus_is_present() -> None:
    # A missing or emptied corpus must fail loudly, not pass with nothing parametrized.
    assert (len(names("y_")), len(names("n_")), len(names("i_"))) == (95, 188, 35)

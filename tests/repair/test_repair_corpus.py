"""The tolerant-mode corpus (fixtures/repair/cases.json) streamed every way, and compared with
the ``json_repair`` package.

Each case is a broken text of a kind language models send, with the value
``Parser(repair=True)`` must give (or ``{"$error": true}``: a JSONDecodeError) and the kinds of
the repairs it must report. Every case is fed whole, one character at a time, at 2-way splits
and at seeded random splits (``chunking.chunkings``):

* every snapshot grows the one before it (``values.grows``), also across the text a repair
  skips; with ``multiple_values`` each snapshot grows into one of the expected values, in order;
* the final value is ``expected``, exactly (types, key order, NaN equal to NaN);
* the repairs reported are the same however the text was cut, their kinds are ``repairs``, and
  their line and column agree with their position;
* an error case fails at the same position however it was cut.

With only the kinds in ``repairs`` enabled (``repair=<names>``) the value is the same, and with
any one of them left out the text is refused: each kind listed was needed. Valid JSON gives the
strict value.

``json_repair`` is run on every case: where the corpus says ``"agree"`` its answer must be
``expected``, where it says ``differs`` it must really differ, so the comparison in
fixtures/repair/README.md (whose table of differences is checked here too) stays honest.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Final

import pytest

import jsonsnap
import paths
from chunking import chunkings
from values import NOTHING, diff, grows

CORPUS: Final = paths.FIXTURES / "repair"
CASES: Final[list[dict[str, Any]]] = json.loads((CORPUS / "cases.json").read_text(encoding="utf-8"))
IDS: Final = [case["id"] for case in CASES]
ERROR: Final = {"$error": True}
FLOATS: Final = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}
#: Random chunkings per case (besides whole, 1-char and the 2-way splits).
ROUNDS: Final = 3

Repairs = tuple[tuple[str, int, int, int], ...]


def decode(value: Any) -> Any:
    """A fixture value as Python: ``{"$float": "nan"|"inf"|"-inf"}`` becomes the float."""
    if isinstance(value, dict):
        if list(value) == ["$float"]:
            return FLOATS[value["$float"]]
        return {key: decode(item) for key, item in value.items()}
    if isinstance(value, list):
        return [decode(item) for item in value]
    return value


def is_error(case: dict[str, Any]) -> bool:
    return bool(case["expected"] == ERROR)


def options(case: dict[str, Any]) -> dict[str, Any]:
    return {"multiple_values": True} if case.get("multiple_values") else {}


def where(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of ``pos``, as JSONDecodeError counts them."""
    return text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)


def placed(current: Any, previous: Any, at: int, expected: Sequence[Any]) -> int:
    """Which expected value a snapshot in ``multiple_values`` mode belongs to.

    It stays with value ``at`` while it grows the previous snapshot and grows into that value;
    otherwise it is a later value it grows into (the first such). No such value: a failure.
    """
    if (
        previous is not NOTHING
        and grows(previous, current) is None
        and grows(current, expected[at]) is None
    ):
        return at
    start = at if previous is NOTHING else at + 1
    for index in range(start, len(expected)):
        if grows(current, expected[index]) is None:
            return index
    raise AssertionError(f"snapshot {current!r} grows into no expected value after #{at}")


def stream(case: dict[str, Any], label: str, pieces: Sequence[str]) -> tuple[Any, Repairs] | int:
    """Feed ``pieces`` to a tolerant parser, checking each snapshot; the final value and the
    repairs, or the position of the JSONDecodeError."""
    multiple = bool(case.get("multiple_values"))
    expected = None if is_error(case) else decode(case["expected"])
    parser = jsonsnap.Parser(repair=True, **options(case))
    previous: Any = NOTHING
    at = 0
    values: list[Any] = []
    # read_values() as the values complete, except when fed whole: close() returns them all.
    read = multiple and label != "whole"
    try:
        for piece in pieces:
            parser.feed(piece)
            current = parser.snapshot(NOTHING, copy=True)
            if read:
                values.extend(parser.read_values())
            if current is NOTHING:
                continue
            if multiple and expected is not None:
                at = placed(current, previous, at, expected)
            else:
                problem = grows(previous, current)
                assert problem is None, (case["id"], label, piece, problem)
            previous = current
        final = parser.close()
    except jsonsnap.JSONDecodeError as error:
        assert is_error(case), (case["id"], label, str(error))
        return error.pos
    assert not is_error(case), (case["id"], label, "no JSONDecodeError", final)
    if multiple:
        assert isinstance(final, list), (case["id"], label, final)
        final = values + final
    else:
        problem = grows(previous, final)
        assert problem is None, (case["id"], label, "last snapshot to final", problem)
    repairs = tuple((r.kind, r.pos, r.lineno, r.colno) for r in parser.repairs)
    return final, repairs


# --------------------------------------------------------------------------- the corpus itself


def test_corpus_is_large_and_well_formed() -> None:
    assert len(CASES) >= 60
    assert len(set(IDS)) == len(IDS)
    fields = {"id", "source", "text", "expected", "multiple_values", "repairs", "json_repair"}
    for case in CASES:
        assert set(case) <= fields, case["id"]
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", case["id"]), case["id"]
        assert isinstance(case["source"], str) and case["source"], case["id"]
        assert isinstance(case["text"], str), case["id"]
        verdict = case["json_repair"]
        assert verdict == "agree" or (
            isinstance(verdict, dict) and list(verdict) == ["differs"] and verdict["differs"]
        ), case["id"]
        if is_error(case):
            assert "repairs" not in case, case["id"]
            assert verdict != "agree", case["id"]
        else:
            assert case["repairs"] == sorted(set(case["repairs"])), case["id"]
            assert set(case["repairs"]) <= set(jsonsnap.REPAIRS), case["id"]
        if case.get("multiple_values") and not is_error(case):
            assert isinstance(case["expected"], list), case["id"]
    assert sum(is_error(case) for case in CASES) >= 8
    assert sum(bool(case.get("multiple_values")) for case in CASES) >= 3
    assert sum(len(case["text"]) > 1024 for case in CASES) >= 3


def test_every_repair_kind_is_in_the_corpus() -> None:
    seen = {kind for case in CASES for kind in case.get("repairs", ())}
    assert set(jsonsnap.REPAIRS) <= seen, sorted(set(jsonsnap.REPAIRS) - seen)


# --------------------------------------------------------------------------- jsonsnap


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_case_streams_to_expected(case: dict[str, Any]) -> None:
    text: str = case["text"]
    outcomes = {
        label: stream(case, label, pieces) for label, pieces in chunkings(text, rounds=ROUNDS)
    }
    if is_error(case):
        # Refused at the same character however the text was cut.
        assert len(set(outcomes.values())) == 1, (case["id"], outcomes)
        with pytest.raises(jsonsnap.JSONDecodeError) as caught:
            jsonsnap.loads(text, repair=True, **options(case))
        assert caught.value.pos == outcomes["whole"], case["id"]
        return
    expected = decode(case["expected"])
    whole = outcomes["whole"]
    assert isinstance(whole, tuple), (case["id"], "whole", whole)
    repairs = whole[1]
    for label, outcome in outcomes.items():
        assert isinstance(outcome, tuple), (case["id"], label, outcome)
        final, reported = outcome
        problem = diff(expected, final)
        assert problem is None, (case["id"], label, problem)
        # The same repairs at the same places however the text was cut.
        changed = [(a, b) for a, b in zip(repairs, reported, strict=False) if a != b]
        assert reported == repairs, (case["id"], label, "whole != cut:", changed[:1] or "count")
    assert sorted({kind for kind, _, _, _ in repairs}) == case["repairs"], (case["id"], repairs)
    for kind, pos, lineno, colno in repairs:
        assert 0 <= pos <= len(text), (case["id"], kind, pos)
        assert (lineno, colno) == where(text, pos), (case["id"], kind, pos, lineno, colno)
    assert diff(expected, jsonsnap.loads(text, repair=True, **options(case))) is None


@pytest.mark.parametrize("case", [c for c in CASES if not is_error(c)], ids=lambda c: c["id"])
def test_only_the_listed_repairs_are_needed(case: dict[str, Any]) -> None:
    text: str = case["text"]
    kinds: list[str] = case["repairs"]
    expected = decode(case["expected"])
    assert diff(expected, jsonsnap.loads(text, repair=kinds, **options(case))) is None
    for kind in kinds:
        others = [k for k in kinds if k != kind]
        with pytest.raises(jsonsnap.JSONDecodeError):
            jsonsnap.loads(text, repair=others, **options(case))
    if not kinds:
        # Valid JSON (or valid values one after another): the strict value.
        assert diff(expected, jsonsnap.loads(text, **options(case))) is None


# --------------------------------------------------------------------------- json_repair


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_json_repair_comparison_is_honest(case: dict[str, Any]) -> None:
    json_repair = pytest.importorskip("json_repair")
    got = json_repair.repair_json(case["text"], return_objects=True)
    if case["json_repair"] == "agree":
        problem = diff(decode(case["expected"]), got)
        assert problem is None, (case["id"], problem)
    elif not is_error(case):
        assert diff(decode(case["expected"]), got) is not None, (case["id"], got)


def test_readme_lists_exactly_the_differences() -> None:
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Where json_repair differs", 1)[1]
    rows = dict(re.findall(r"^\| `([a-z0-9-]+)` \| (.+) \|$", section, flags=re.MULTILINE))
    differing = {
        case["id"]: case["json_repair"]["differs"]
        for case in CASES
        if case["json_repair"] != "agree"
    }
    assert rows == differing

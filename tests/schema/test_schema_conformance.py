"""JSON-Schema-Test-Suite (draft 2020-12): the suite's verdict for every case jsonsnap can check.

The files in ``data/JSON-Schema-Test-Suite/draft2020-12`` are the suite's files for the keywords
jsonsnap checks (see the README there). A case whose schema does not compile with
``Schema(schema, unknown="error")`` (a keyword that is not checked, a remote ``$ref``, a pattern
Python's ``re`` does not read) is skipped; :data:`EXPECTED_SKIPPED` counts them per file and
:func:`test_skipped_cases_are_the_counted_ones` fails if the count changes, so a regression that
makes more cases skip does not go unseen.

Each test of each case is fed through :func:`chunkings` (whole, one character at a time, every
2-way split of a short document, random splits):

* collect mode: the verdict after ``close()`` is the suite's; a valid document has no violation
  after *any* feed (no early false alarm) and ``close()`` returns exactly ``json.loads(text)``;
* raise mode: an invalid document raises :class:`jsonsnap.SchemaError` from some ``feed()`` or
  from ``close()`` (and no other exception); a valid one raises nothing.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any, Final, NamedTuple

import pytest

import jsonsnap
import paths
from chunking import chunkings

#: The copy of the suite's draft 2020-12 files, with its licence one level up.
SUITE: Final = paths.DATA / "JSON-Schema-Test-Suite" / "draft2020-12"

#: Cases (schemas) skipped because their schema does not compile with unknown="error", per file.
#: 22 of 187: propertyNames / dependentSchemas beside additionalProperties (2), a $ref to the
#: metaschema (defs 1), patterns with \p{...} (pattern 1, patternProperties 1), and in ref.json
#: remote and $id-relative references, $anchor, URNs, unevaluatedProperties (17).
EXPECTED_SKIPPED: Final[dict[str, int]] = {
    "additionalProperties": 2,
    "defs": 1,
    "pattern": 1,
    "patternProperties": 1,
    "ref": 17,
}
#: Cases run, and the tests in them (each test is one parametrized test below).
EXPECTED_RUN_CASES: Final = 165
EXPECTED_RUN_TESTS: Final = 611


class Case(NamedTuple):
    """One test of the suite: a document, its schema and the suite's verdict."""

    file: str
    schema: jsonsnap.Schema
    data: Any
    valid: bool


def _load() -> tuple[list[Any], Counter[str], Counter[str]]:
    """The parameters (one per test of a compiling case), and the cases run/skipped per file."""
    params: list[Any] = []
    run: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    for path in sorted(SUITE.glob("*.json")):
        stem = path.stem
        for ci, case in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            try:
                schema = jsonsnap.Schema(case["schema"], unknown="error")
            except jsonsnap.SchemaDefinitionError:
                skipped[stem] += 1
                continue
            run[stem] += 1
            for ti, test in enumerate(case["tests"]):
                label = f"{stem}/{ci}:{case['description']}/{ti}:{test['description']}"
                params.append(
                    pytest.param(
                        Case(stem, schema, test["data"], test["valid"]),
                        id=label.replace(" ", "_"),
                    )
                )
    return params, run, skipped


PARAMS, RUN, SKIPPED = _load()


def _collect(schema: jsonsnap.Schema, fragments: Sequence[str], valid: bool) -> tuple[bool, Any]:
    """Feed in collect mode; return (verdict, final value). A valid document must have no
    violation after any feed."""
    parser = jsonsnap.Parser(schema=schema, on_violation="collect")
    for i, fragment in enumerate(fragments):
        parser.feed(fragment)
        if valid:
            assert parser.violations == [], (
                f"early violation after fragment {i} ({fragment!r}): {parser.violations[0]}"
            )
    try:
        value = parser.close()
    except jsonsnap.SchemaError:
        return False, None
    return True, value


@pytest.mark.parametrize("case", PARAMS)
def test_collect_mode_verdict(case: Case) -> None:
    text = json.dumps(case.data)
    expected = json.loads(text)
    for label, fragments in chunkings(text):
        verdict, value = _collect(case.schema, fragments, case.valid)
        assert verdict == case.valid, f"{label}: got valid={verdict} for {text}"
        if verdict:
            # json.dumps tells 1 from 1.0 and True from 1 at any depth, where == does not.
            assert value == expected and json.dumps(value) == text, label


@pytest.mark.parametrize("case", PARAMS)
def test_raise_mode_verdict(case: Case) -> None:
    text = json.dumps(case.data)
    for label, fragments in chunkings(text):
        parser = jsonsnap.Parser(schema=case.schema, on_violation="raise")
        if case.valid:
            for fragment in fragments:
                parser.feed(fragment)
            value = parser.close()
            assert value == json.loads(text) and json.dumps(value) == text, label
            continue
        # Any other exception type escapes pytest.raises and fails the test.
        with pytest.raises(jsonsnap.SchemaError):
            for fragment in fragments:
                parser.feed(fragment)
            parser.close()


def test_skipped_cases_are_the_counted_ones(record_property: Any) -> None:
    skipped = sum(SKIPPED.values())
    run = sum(RUN.values())
    record_property("cases_skipped", skipped)
    record_property("cases_run", run)
    print(f"JSON-Schema-Test-Suite: {run} cases run ({len(PARAMS)} tests), {skipped} skipped")
    assert dict(SKIPPED) == EXPECTED_SKIPPED
    assert (run, len(PARAMS)) == (EXPECTED_RUN_CASES, EXPECTED_RUN_TESTS)

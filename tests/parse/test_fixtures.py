"""Every fixture document streamed every way: snapshots only grow, the final value is json's."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, Final

import pytest

import jsonsnap
import paths
from chunking import chunkings
from values import diff, grows

DOCUMENTS: Final = paths.FIXTURES / "documents"
NAMES: Final = sorted(p.name for p in DOCUMENTS.glob("*.json"))


def test_there_are_fixtures() -> None:
    assert len(NAMES) >= 10


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_fixture_streams_to_json_value(name: str, as_bytes: bool) -> None:
    raw = (DOCUMENTS / name).read_bytes()
    expected = json.loads(raw)
    ways: Iterator[tuple[str, Sequence[str | bytes]]] = (
        chunkings(raw, rounds=3) if as_bytes else chunkings(raw.decode("utf-8"), rounds=3)
    )
    final_snapshots = set()
    for label, fragments in ways:
        parser = jsonsnap.Parser()
        previous: Any = None
        for fragment in fragments:
            parser.feed(fragment)
            current = parser.snapshot(copy=True)
            if previous is not None:
                assert grows(previous, current) is None, (label, fragment)
            previous = current
        final = parser.close()
        assert diff(expected, final) is None, (label, diff(expected, final))
        assert previous is None or grows(previous, final) is None, label
        final_snapshots.add(repr(previous))
    # The last snapshot before close() does not depend on where the fragments were cut.
    assert len(final_snapshots) == 1

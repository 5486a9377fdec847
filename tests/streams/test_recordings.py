"""The recordings the shared contract tests replay (``recordings.all_fixtures()``): every folder
of recorded streams under fixtures/, every protocol, each recording with its expected file."""

from __future__ import annotations

import paths
from jsonsnap.streams import PROTOCOLS
from recordings import FOLDERS, all_fixtures

#: What a recorded body is stored as: server-sent events, or Bedrock's binary event stream.
BODIES = (".sse", ".bin")


def test_every_folder_of_recordings_is_replayed() -> None:
    folders = {path.parent.name for path in paths.FIXTURES.glob("*/*") if path.suffix in BODIES}
    assert folders == set(FOLDERS)


def test_every_recording_is_replayed() -> None:
    bodies = {path for path in paths.FIXTURES.glob("*/*") if path.suffix in BODIES}
    assert {path for _, path in all_fixtures()} == bodies


def test_every_protocol_has_recordings() -> None:
    assert sorted({protocol for protocol, _ in all_fixtures()}) == sorted(PROTOCOLS)


def test_every_recording_has_its_expected_file() -> None:
    missing = [path for _, path in all_fixtures() if not path.with_suffix(".json").is_file()]
    assert not missing, missing

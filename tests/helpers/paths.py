"""Where the tests find what they read: the repository's root and the folders under it.

Every path a test computes starts here, so that a test file can move between the folders of
``tests/`` without its paths changing meaning.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

#: The repository's root (where pyproject.toml, README.md, fixtures/ and src/ are).
ROOT: Final = Path(__file__).resolve().parent.parent.parent
#: The recorded streams and documents the tests replay.
FIXTURES: Final = ROOT / "fixtures"
#: The test suites of others (JSONTestSuite, JSON-Schema-Test-Suite), as published.
DATA: Final = ROOT / "tests" / "data"
#: The node packages the tests of the web front end use (``npm ci`` there).
JS: Final = ROOT / "tests" / "js"

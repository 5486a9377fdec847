"""The test suite's own layout: one folder per layer, what is shared in tests/helpers.

pytest imports each test module by its base name (the folders are no packages), so two test
files of one name in two folders would clash; and a test module that imports another runs that
module's tests' setup in its own, and ties the two together: what they share belongs in
``tests/helpers/``.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import paths

TESTS = paths.ROOT / "tests"
#: The folders of others' files: test suites as published, node packages.
OTHERS = ("data", "js")


def suite_files(pattern: str) -> list[Path]:
    """The suite's files named by ``pattern``, the folders of others' files left out (without
    walking them: node_modules is large)."""
    found = list(TESTS.glob(pattern))
    for folder in TESTS.iterdir():
        if folder.is_dir() and folder.name not in OTHERS:
            found += folder.rglob(pattern)
    return sorted(found)


def test_every_test_file_name_is_unique() -> None:
    names = Counter(path.name for path in suite_files("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []


def test_no_test_module_imports_another() -> None:
    found = []
    for path in suite_files("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            found += [f"{path.relative_to(TESTS)}:{node.lineno} imports {name}"
                      for name in names if name.split(".")[0].startswith("test_")]  # fmt: skip
    assert found == []


def test_the_helpers_are_no_tests() -> None:
    assert sorted(p.name for p in (TESTS / "helpers").glob("test_*.py")) == []

"""The README's section on typed live values, run as written.

Each Python block of the section is executed in order in one namespace, and every line of the
form ``print(...)  # -> text`` must print exactly ``text``.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
SECTION = "## Typed live values: checking against a schema"


def _blocks() -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.index("\n## ", start + len(SECTION))
    return re.findall(r"```python\n(.*?)```", text[start:end], re.S)


def test_the_examples_print_what_the_readme_says() -> None:
    namespace: dict[str, object] = {"__name__": "readme_schema"}
    checked = 0
    for block in _blocks():
        if block.startswith("jsonsnap.Parser(..."):
            continue  # the signature, not an example
        expected = [m.group(1) for m in re.finditer(r"# -> (.*)$", block, re.M)]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, str(README), "exec", dont_inherit=True), namespace)
        assert out.getvalue().splitlines() == expected
        checked += len(expected)
    assert checked >= 7

"""The docs' page on repair, and the parser's section on several values per stream, run as
written.

Each Python block is executed in order in one namespace, and every line of the form
``print(...)  # -> text`` (or ``# -> text`` on the line after a print) must print exactly
``text``. Each row of the table of repairs whose "before" and "after" are one piece of code each
is checked too: the tolerant parser reads "before" as the JSON "after", with that repair.
"""

from __future__ import annotations

import json
import re

import jsonsnap
from recordings import README, readme_blocks, run_readme_examples

DOCS = README.parent / "docs"
SECTIONS = ((None, DOCS / "repair.md"), ("Several values per stream", DOCS / "parser.md"))


def test_the_examples_print_what_the_readme_says() -> None:
    namespace: dict[str, object] = {"__name__": "readme_repair"}
    blocks = [block for section, page in SECTIONS for block in readme_blocks(section, page)]
    assert run_readme_examples(blocks, namespace) >= 7


def test_the_table_of_repairs() -> None:
    text = (DOCS / "repair.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)`[^|]* \| (.+?) \| (.+?) \|$", text, re.M)
    table = {kind: (before, after) for kind, before, after in rows if kind in jsonsnap.REPAIRS}
    assert set(table) == set(jsonsnap.REPAIRS)  # a row for every kind
    checked = 0
    for kind, (before, after) in table.items():
        one = re.fullmatch(r"`([^`]+)`|```` (.+) ````", before)
        result = re.fullmatch(r"`([^`]+)`", after)
        if one is None or result is None:
            continue  # (text around the code: a raw newline, Python's floats)
        source = one.group(1) or one.group(2)
        parser = jsonsnap.Parser(repair=True)
        parser.feed(source)
        assert parser.close() == json.loads(result.group(1)), kind
        assert kind in {r.kind for r in parser.repairs}, kind
        checked += 1
    assert checked >= 9

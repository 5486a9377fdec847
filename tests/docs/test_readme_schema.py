"""The docs' page on schemas (docs/schemas.md), run as written.

Each Python block of the page is executed in order in one namespace, and every line of the
form ``print(...)  # -> text`` must print exactly ``text``.
"""

from __future__ import annotations

from recordings import README, readme_blocks, run_readme_examples

PAGE = README.parent / "docs" / "schemas.md"


def test_the_examples_print_what_the_readme_says() -> None:
    blocks = [
        block
        for block in readme_blocks(page=PAGE)
        if not block.startswith("jsonsnap.Parser(...")  # the signature, not an example
    ]
    assert run_readme_examples(blocks, {"__name__": "readme_schema"}) >= 7

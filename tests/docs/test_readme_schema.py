"""The README's section on typed live values, run as written.

Each Python block of the section is executed in order in one namespace, and every line of the
form ``print(...)  # -> text`` must print exactly ``text``.
"""

from __future__ import annotations

from recordings import readme_blocks, run_readme_examples

SECTION = "Typed live values: checking against a schema"


def test_the_examples_print_what_the_readme_says() -> None:
    blocks = [
        block
        for block in readme_blocks(SECTION)
        if not block.startswith("jsonsnap.Parser(...")  # the signature, not an example
    ]
    assert run_readme_examples(blocks, {"__name__": "readme_schema"}) >= 7

"""The README's sections on the other providers, run as written.

Each Python block of each section is executed in order, from the root of the checkout (the
examples read the fixtures), and every line of the form ``print(...)  # -> text`` (or
``# -> text`` on the lines after a print) must print exactly ``text``.
"""

from __future__ import annotations

import pytest

from recordings import README, readme_blocks, run_readme_examples

SECTIONS = (
    "OpenAI-compatible servers",
    "Google Gemini",
    "AWS Bedrock streams",
    "Vercel AI SDK UI message streams (useChat)",
)


@pytest.mark.parametrize("section", SECTIONS)
def test_the_examples_run_as_the_readme_says(section: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(README.parent)
    run_readme_examples(readme_blocks(section), {"__name__": "readme_providers"})


def test_the_table_names_every_protocol() -> None:
    from jsonsnap.streams import PROTOCOLS

    text = README.read_text(encoding="utf-8")
    start = text.index("\n## Providers at a glance\n")
    table = text[start : text.index("\n## ", start + 1)]
    modules = {cls.__module__.split(".")[1] for cls in PROTOCOLS.values()}
    for module in modules:
        assert f"`jsonsnap.{module}`" in table, module

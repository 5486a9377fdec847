"""Every page of the docs, held to what it says: its examples run, its links lead somewhere.

The pages are the README (the front page) and every page in ``docs/`` but ``benchmarks.md``,
which ``benchmarks/run.py`` writes. On each:

- every ```python block runs, in order, in one namespace per page, from the root of the
  checkout (the examples read the fixtures), and every ``# -> text`` line is exactly what it
  prints. A block that cannot run where it stands (it calls a provider's API) says so just above
  its fence, ``<!-- not run: why -->``; the SDK recipes marked so (Anthropic, OpenAI, Gemini,
  Bedrock) are run elsewhere against a mocked client (``test_streams_clients.py``,
  ``test_readme_providers.py``), and :func:`test_every_unrun_example_is_run_elsewhere` holds
  that list to the marks;
- no two headings share an anchor, and every relative link, ``#anchor`` included, resolves;
- the front page shows no image by a relative link (a package index cannot show it), and stays
  a front page: at most 400 lines.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jsonsnap.streams import PROTOCOLS
from recordings import NOT_RUN, PAGES, README, page_section, readme_blocks, run_readme_examples

IDS = [page.name for page in PAGES]


def prose(text: str) -> str:
    """The text outside code fences (a ``#`` in a code block is no heading)."""
    return re.sub(r"^(`{3,})[^\n]*\n.*?^\1$", "", text, flags=re.MULTILINE | re.DOTALL)


def anchor(heading: str) -> str:
    """The anchor a heading gets on a repository page: lower case, links and markup reduced
    to their text, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> list[str]:
    headings = re.findall(r"^#{1,6} (.+?)\s*$", prose(page.read_text("utf-8")), re.MULTILINE)
    return [anchor(heading) for heading in headings]


def links(page: Path) -> list[str]:
    text = re.sub(r"`[^`\n]*`", "", prose(page.read_text("utf-8")))
    return re.findall(r"\]\(([^)\s]+)\)", text)


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_the_examples_print_what_the_page_says(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if "```python\n" not in page.read_text("utf-8"):
        return  # a page of prose and tables
    monkeypatch.chdir(README.parent)
    run_readme_examples(readme_blocks(page=page), {"__name__": f"docs_{page.stem}"}, page)


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_no_two_headings_share_an_anchor(page: Path) -> None:
    found = anchors(page)
    assert len(found) == len(set(found)), sorted(a for a in found if found.count(a) > 1)


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_every_relative_link_resolves(page: Path) -> None:
    for link in links(page):
        if re.match(r"[a-z]+:", link):
            continue  # an absolute address: nothing to check offline
        path, _, fragment = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        assert target.exists(), f"{page.name}: {link} leads nowhere"
        if fragment:
            assert target.suffix == ".md", f"{page.name}: {link}"
            assert fragment in anchors(target), f"{page.name}: no heading for {link}"


def test_few_examples_are_left_unrun() -> None:
    marks = [m["why"] for page in PAGES for m in NOT_RUN.finditer(page.read_text("utf-8"))]
    assert all(len(why.split()) >= 3 for why in marks), marks  # each says why
    assert len(marks) <= 12, marks


def test_the_front_page_is_a_front_page() -> None:
    text = README.read_text("utf-8")
    assert len(text.splitlines()) <= 400
    for target in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", prose(text)):
        assert "://" in target, f"a relative image link on the front page: {target}"


def test_the_start_here_table_has_a_row_per_protocol() -> None:
    table = page_section(README, "Start here")
    rows = re.findall(r"^\| `([\w-]+)` \|", table, re.MULTILINE)
    assert set(rows) == set(PROTOCOLS), rows
    for cls in PROTOCOLS.values():
        assert f"`{cls.__name__}`" in table, cls


def test_the_update_event_table_has_a_row_per_protocol() -> None:
    page = README.parent / "docs" / "streams.md"
    table = page_section(page, "What update.event says")
    rows = re.findall(r"^\| `([\w-]+)`", table, re.MULTILINE)
    assert set(PROTOCOLS) <= set(rows), rows


def test_every_unrun_example_is_run_elsewhere() -> None:
    # Only signatures and SDK recipes are marked; each SDK recipe has its test with a mock.
    recipes = {"anthropic.md", "openai.md", "gemini.md", "bedrock.md"}
    marked = {
        page.name: [m["why"] for m in NOT_RUN.finditer(page.read_text("utf-8"))] for page in PAGES
    }
    for name, reasons in marked.items():
        for why in reasons:
            if why.startswith("the signature"):
                continue
            assert name in recipes, (name, why)
            assert why.endswith("the tests run it with the client's HTTP mocked"), (name, why)
    assert all(marked[name] for name in recipes)

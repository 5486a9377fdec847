"""Test configuration: the one knob that says how hard the tests work, and ``sys.path``.

The knob has two positions:

* default: every property test runs ``effort.examples(weight)`` examples, ``EXAMPLES`` (50) for
  a weight of 100 (a slow test, its smaller default weight), and the exhaustive loops (every
  2-way split in ``chunking.chunkings``, every prefix in the property tests) visit every
  position of short inputs and a seeded sample of longer ones (a document of over 16,384
  characters goes one character at a time only at its ends). The README gives the suite's
  time.
* thorough: ``python3 dev.py test --thorough``, ``pytest --thorough`` or
  ``JSONSNAP_THOROUGH=1 pytest``. Each weight-100 test runs ``THOROUGH_EXAMPLES`` (1000)
  examples, ten times the weights, and the exhaustive loops visit every position up to their
  thorough limits (every 2-way split up to 200 characters, every prefix up to 400 in the
  property tests, every prefix of every document in test_reference.py). For a long hunt before
  a release: about ten minutes on two cores.

Both are hypothesis profiles registered here (``jsonsnap`` and ``jsonsnap-thorough``) on top of
whatever profile hypothesis chose at import: on CI (it looks at ``CI`` and similar variables) that
is its ``ci`` profile, so CI runs are derandomized and keep no example database, while a
developer's runs explore new examples every time and replay past failures from
``.hypothesis/``. Both profiles turn the deadline off: the machine is shared and the examples
vary a lot in size, so a time limit per example would only add flakes. The numbers live in
``effort.py``, which the test modules import (``examples``, ``positions``).

The tests live in one folder per layer (``parse/``, ``schema/``, ``repair/``, ``streams/``,
``providers/<name>/``, ``cli/``, ``docs/``, ``packaging/``); what several of them share lives in
``helpers/``, which this file puts on ``sys.path`` so that test modules can ``from chunking import
chunkings``. No test module imports another one, and every test file's name is unique (pytest
imports them by their base name).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

_HELPERS = str(Path(__file__).resolve().parent / "helpers")
if _HELPERS not in sys.path:
    sys.path.insert(0, _HELPERS)

import effort  # noqa: E402 - needs the sys.path line above

settings.register_profile(
    effort.PROFILE, parent=settings.default, max_examples=effort.EXAMPLES, deadline=None
)
settings.register_profile(
    effort.THOROUGH_PROFILE,
    parent=settings.default,
    max_examples=effort.THOROUGH_EXAMPLES,
    deadline=None,
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--thorough",
        action="store_true",
        help=f"run the thorough profile: many more examples, every loop exhaustive "
        f"(also {effort.ENV}=1)",
    )


@pytest.hookimpl(tryfirst=True)  # before hypothesis' own options (--hypothesis-profile...)
def pytest_configure(config: pytest.Config) -> None:
    from_env = os.environ.get(effort.ENV, "") not in ("", "0")
    effort.set_thorough(bool(config.getoption("thorough")) or from_env)


def pytest_report_header(config: pytest.Config) -> str:
    if effort.thorough():
        return f"jsonsnap: thorough profile ({effort.THOROUGH_EXAMPLES} examples per weight 100)"
    return f"jsonsnap: default profile ({effort.EXAMPLES} examples per weight 100)"

"""Which build of jsonsnap a benchmark measures: the one check every entry point makes.

A process reports a build's figures only once :func:`build_problem` has found nothing wrong:
the jsonsnap it imported must be the build it means to measure, and the pure build must have
no compiled module beside its source (a compiled wheel built in place, in a checkout, leaves
them in ``src/``, and Python then imports them instead of the source). The build meant is
``"pure"`` unless ``JSONSNAP_EXPECT_BUILD`` names the other (``dev.py bench --build compiled``
and the compiled build's workers set it). Importing this module does not import jsonsnap:
a worker sets its path first.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

BUILDS = ("pure", "compiled")
COMPILED_SUFFIXES = (".so", ".pyd")
"""What a compiled extension module's file name ends with."""


def expected_build() -> str:
    """The build this process is meant to measure: ``JSONSNAP_EXPECT_BUILD``, else pure."""
    return os.environ.get("JSONSNAP_EXPECT_BUILD") or "pure"


def build_problem(expected: str | None = None, folder: Path | None = None) -> str | None:
    """What is wrong with the jsonsnap imported here when it is not the ``expected`` build
    (default :func:`expected_build`), imported from ``folder`` when given; ``None`` when it
    is."""
    import jsonsnap

    expected = expected or expected_build()
    if expected not in BUILDS:
        return f"JSONSNAP_EXPECT_BUILD is {expected!r}, not one of {', '.join(BUILDS)}"
    where = Path(jsonsnap.__file__ or "").resolve().parent
    if jsonsnap.__build__ != expected:
        return f"jsonsnap is the {jsonsnap.__build__} build ({where}), not the {expected} build"
    if folder is not None and not where.is_relative_to(folder.resolve()):
        return f"jsonsnap was imported from {where}, not from {folder}"
    if expected == "pure":
        left = sorted(p for p in where.rglob("*") if p.name.endswith(COMPILED_SUFFIXES))
        if left:
            return (
                f"compiled modules beside the pure build's source in {where} "
                f"({left[0].relative_to(where)} and {len(left) - 1} more): a compiled wheel "
                "built in place leaves them; remove them (git clean -fX src) and build it with "
                "dev.py, or run the benchmark with --compiled"
            )
    return None


def require_build(expected: str | None = None, folder: Path | None = None) -> str:
    """Exit with status 2, saying why, unless :func:`build_problem` finds nothing wrong; the
    build measured."""
    problem = build_problem(expected, folder)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        raise SystemExit(2)
    return expected or expected_build()

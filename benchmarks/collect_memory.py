"""Collect mode's memory: what a parser in collect mode holds once it has read a document with
``n`` violations (``n`` strings where integers are expected, or one violation at each of ``n``
nested levels), traced with tracemalloc, the parser and its value alive. ``run.py`` adds
:func:`memory_section` to the report after the hostile inputs; ``hostile.py`` prints it when it
runs the collect workloads of ``edges.py``.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from edges import fed, pieces, violation_per_level, violations_one_feed


@dataclass
class Memory:
    """What the violations kept in collect mode hold."""

    case: str
    violations: int
    kept: int
    dropped: int
    retained: int
    """Bytes still allocated after the run, the parser alive (tracemalloc)."""
    peak: int
    document: int
    """Characters of the document."""


#: The documents of :func:`memory`: n violations side by side, and one at each of n levels.
MEMORY_CASES: dict[str, Callable[[int], tuple[dict[str, Any], list[str]]]] = {
    "one-feed": violations_one_feed,
    "each-level": violation_per_level,
}


def memory(case: str, n: int) -> Memory:
    """Collect mode with ``n`` violations (``case``: an array of ``n`` strings where integers
    are expected, or ``n`` nested arrays with one at each level), fed in 16-char fragments:
    what the parser keeps, the value included."""
    schema, fragments = MEMORY_CASES[case](n)
    fragments = pieces("".join(fragments))
    gc.collect()
    tracemalloc.start()
    try:
        p = fed(schema, fragments, on_violation="collect", max_depth=None)
        gc.collect()
        retained, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return Memory(
        case,
        n,
        len(p.violations),
        p.violations_dropped,
        retained,
        peak,
        sum(len(f) for f in fragments),
    )


def memory_section(sizes: tuple[int, ...] = (1_000, 4_000, 16_000)) -> str:
    """The section "Collect mode: memory": :func:`memory` of each case at each size."""
    lines = [
        "### Collect mode: memory",
        "",
        "What a parser in collect mode holds once it has read a document with n violations "
        "(`benchmarks/edges.py`, tracemalloc, the parser and its value alive): n strings "
        "where integers are expected (`one-feed`), or one violation at each of n nested "
        "levels (`each-level`). It keeps the first 1,000 violations (fewer when their paths "
        "add up to 100,000 steps) and counts the others (`violations_dropped`).",
        "",
        "| case | violations | kept | dropped | document | retained | peak | retained per char |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for case in MEMORY_CASES:
        for n in sizes:
            m = memory(case, n)
            lines.append(
                f"| {case} | {m.violations:,} | {m.kept:,} | {m.dropped:,} "
                f"| {m.document:,} chars | {m.retained / 1e6:.2f} MB | {m.peak / 1e6:.2f} MB "
                f"| {m.retained / max(1, m.document):,.0f} B |"
            )
    return "\n".join(lines) + "\n"

"""The groups of jsonsnap alone, beside the workloads' tables: the hostile inputs (``H``),
schema checking (``S``), exact strings (``X``), tolerant mode (``R``) and the path users take
(``U``, ``N``, ``K``: ``stream_groups.py``). ``run.py`` calls :func:`run` with the groups asked
for, and puts what it found in its report.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import collect_memory
import exact_strings as exact_module
import hostile as hostile_module
import hostile_inputs
import ladder
import schema as schema_module
import stream_groups
import tolerant as tolerant_module
from measuring import Settings, progress
from peers import Peer

HOSTILE = "H"
"""The group of hostile inputs (``hostile.py``): growth exponents of jsonsnap alone."""
SCHEMA = "S"
"""The group of schema checking (``schema.py``): jsonsnap checked against jsonsnap plain."""
EXACT = "X"  # The group of exact strings (exact_strings.py): checked against unchecked.
TOLERANT = "R"
"""The group of tolerant mode (``tolerant.py``): ``repair=True`` against strict, json_repair."""


@dataclass
class Groups:
    """What groups H, S and R found, and U, N and K (``streams``)."""

    hostile: list[ladder.Growth] = field(default_factory=list)
    schema: list[schema_module.Row] = field(default_factory=list)
    exact: list[exact_module.Row] = field(default_factory=list)
    tolerant: tolerant_module.Results | None = None
    streams: stream_groups.Found | None = None


def hostile_sections(
    quick: bool, folder: Path | None, add: Callable[[str | None], None]
) -> list[ladder.Growth]:
    """Group H: the hostile inputs (on the compiled build too, with ``--compiled``), then
    collect mode's memory."""
    progress("hostile inputs (benchmarks/hostile.py) ...")
    cap = ladder.QUICK_CAP if quick else ladder.CAP
    found = ladder.measure_all(hostile_inputs.workloads(quick=quick), cap=cap, progress=progress)
    add(hostile_module.section(found, cap))
    if folder is not None:
        progress("hostile inputs on the compiled build (benchmarks/hostile.py --compiled) ...")
        on_compiled = hostile_module.measure_compiled(
            folder, quick=quick, cap=cap, progress=progress
        )
        add(hostile_module.section(on_compiled, cap, build="compiled"))
        found += [dataclasses.replace(g, name=f"{g.name} (compiled)") for g in on_compiled]
    add(collect_memory.memory_section())
    return found


def run(
    groups: Sequence[str],
    settings: Settings,
    folder: Path | None,
    chosen: Sequence[Peer],
    add: Callable[[str | None], None],
) -> Groups:
    """Groups H, S, X, R, U, N and K, those of ``groups`` (with ``folder``: the compiled build
    too, where a group measures it); ``add`` takes each section."""
    found = Groups()
    quick = settings.quick
    if HOSTILE in groups:
        found.hostile = hostile_sections(quick, folder, add)
    if SCHEMA in groups:
        progress("schema checking (benchmarks/schema.py) ...")
        found.schema = schema_module.measure(quick=quick, progress=progress)
        add(schema_module.section(found.schema))
    if EXACT in groups:
        progress("exact strings (benchmarks/exact_strings.py) ...")
        found.exact = exact_module.group(quick, folder, add, progress)
    if TOLERANT in groups:
        progress("tolerant mode (benchmarks/tolerant.py) ...")
        found.tolerant = tolerant_module.measure(
            quick=quick,
            budget=settings.budget,
            probe=settings.probe,
            versus=any(p.id == "json-repair" for p in chosen),
            progress=progress,
        )
        add(tolerant_module.section(found.tolerant))
    if set(groups) & set(stream_groups.GROUPS):
        found.streams = stream_groups.run(groups, quick, folder, add, progress)
    return found

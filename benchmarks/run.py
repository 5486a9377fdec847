"""Benchmark jsonsnap against json.loads and the other partial-JSON parsers.

    python3 dev.py bench                      # everything; writes docs/benchmarks.{md,json,png}
    python3 dev.py bench --quick              # small sizes only, a smoke run (prints only)
    python3 dev.py bench --only A,B --peers jsonsnap,jiter --repeat 5 --budget 60 --no-write
    .venv/bin/python benchmarks/run.py --compiled build/compiled   # both builds side by side

For every workload (see ``workloads.py``) and every available parser (see ``peers.py``) it
streams the fragments, takes a snapshot after each one, and reports the total time, the median
and worst time per fragment, the peak memory (traced in a separate, untimed run), whether the
final value equals ``json.loads`` exactly, the ratio to one ``json.loads`` of the complete
document and the ratio of jiter's (trailing-strings) time to the parser's. A parser whose time,
projected from its first fragments, exceeds the budget is skipped and its projection shown.
Group ``H`` (run unless ``--only`` leaves it out) adds the growth exponents on the hostile
inputs of ``hostile.py``, ``S`` what a schema costs (``schema.py``), ``X`` what a string checked
character by character costs (``exact_strings.py``), ``R`` tolerant mode (``tolerant.py``), and
``U``, ``N`` and ``K`` the path users take: the accumulators, many streams per core, the
official SDK (``stream_groups.py``). See ``benchmarks/README.md``.

``--compiled DIR`` measures the compiled build in ``DIR`` too, beside the pure build this
process imports: a worker process (``compiled.py``, with ``DIR`` first on its path) streams
each workload of groups A-F right after this process has, and its cells (``jsonsnap-compiled``)
go into the same tables, with their ratios to this process's ``json.loads``; groups ``U``, ``N``
and ``K`` time the compiled build in a worker of their own (``sides.py``).

This module is the wiring: the command line and the order of the sections. Measuring is
``measuring.py`` (with the projection model of ``projection.py``), the report ``report.py``
(markdown and JSON), with ``targets.py`` and ``chart.py``; the compiled build's worker is
``compiled.py``. Nothing imports this module.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import feature_groups
import hostile_inputs
import jsonsnap
import peers as peers_module
import stream_groups
import workloads as workloads_module
from builds import build_problem, expected_build
from chart import chart
from compiled import CompiledBuild, Worker, WorkerError
from feature_groups import EXACT, HOSTILE, SCHEMA, TOLERANT
from formatting import fmt_time
from measuring import (
    COMPILED,
    OneShot,
    Settings,
    WorkloadResult,
    clock,
    measure_baseline,
    measure_cell,
    one_shots,
    progress,
    show_cell,
)
from peers import Peer
from projection import Prefixes
from report import (
    ROOT,
    Growth,
    builds_table,
    growth,
    growth_table,
    machine,
    memory_section,
    one_shot_table,
    page,
    peer_info,
    shown_path,
    table,
    versions_table,
    workload_record,
)
from targets import Target, compiled_targets, group_targets, targets
from workloads import Workload

# --------------------------------------------------------------------------- the command line


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description="Benchmark jsonsnap against json.loads and other partial-JSON parsers.",
    )
    ap.add_argument("--quick", action="store_true", help="small sizes only, a smoke run")
    ap.add_argument(
        "--only",
        default="",
        help=(
            f"workload groups, e.g. A,B; {HOSTILE} for the hostile inputs, {SCHEMA} for schema "
            f"checking, {EXACT} for exact strings, {TOLERANT} for tolerant mode, U for the "
            "accumulator path, N for many streams per core, K for the anthropic SDK (default: all)"
        ),
    )
    ap.add_argument("--peers", default="", help="parsers, e.g. jsonsnap,jiter (default: all)")
    ap.add_argument(
        "--budget",
        type=float,
        default=None,
        help="seconds a parser may take on one workload before it is skipped "
        "(default 30; 2 with --quick)",
    )
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs for fast parsers")
    ap.add_argument(
        "--probe",
        type=float,
        default=None,
        help="seconds of streaming used to project a parser's total (default 0.5; 0.25 with "
        "--quick)",
    )
    ap.add_argument(
        "--memory-limit",
        type=float,
        default=None,
        help="seconds a run traced for peak memory may take (default 15; 3 with --quick)",
    )
    ap.add_argument("--no-write", action="store_true", help="print only, write no files")
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help="directory for benchmarks.{md,json,png} (default docs/; --quick writes nothing "
        "unless --out is given)",
    )
    ap.add_argument("--list", action="store_true", help="list workloads and parsers, then exit")
    ap.add_argument(
        "--compiled",
        type=Path,
        default=None,
        metavar="DIR",
        help="also measure the compiled build in DIR (e.g. build/compiled), in a worker "
        "process, beside the pure build this process imports (groups A-F)",
    )
    return ap.parse_args(argv)


@dataclass
class Plan:
    """What a run measures, from the command line."""

    settings: Settings
    groups: list[str]
    everyone: list[Peer]
    """Every known parser (for ``--list``)."""
    chosen: list[Peer]
    """The parsers chosen and available."""
    unavailable: list[Peer]
    folder: Path | None
    """The compiled build's folder (``--compiled``)."""

    @property
    def snap(self) -> bool:
        """Whether jsonsnap is among the parsers (groups H, S and R measure it alone)."""
        return any(p.id == "jsonsnap" for p in self.chosen)


def settings_of(args: argparse.Namespace) -> Settings:
    quick = bool(args.quick)

    def pick(given: float | None, full: float, small: float) -> float:
        return given if given is not None else (small if quick else full)

    return Settings(
        budget=pick(args.budget, 30.0, 2.0),
        repeat=max(1, args.repeat),
        probe=pick(args.probe, 0.5, 0.25),
        memory_limit=pick(args.memory_limit, 15.0, 3.0),
        quick=quick,
    )


def plan_of(args: argparse.Namespace) -> Plan | int:
    """The plan of the run, or the exit status of a command line that cannot be run (its
    reason on standard error)."""
    known = [*workloads_module.GROUPS, HOSTILE, SCHEMA, EXACT, TOLERANT, *stream_groups.GROUPS]
    groups = [g.strip().upper() for g in args.only.split(",") if g.strip()] or known
    unknown = [g for g in groups if g not in known]
    if unknown:
        print(f"unknown workload group(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    everyone = peers_module.all_peers()
    chosen = peers_module.select(everyone, args.peers.split(",")) if args.peers else everyone
    unmatched = [
        s for s in args.peers.split(",") if s.strip() and not peers_module.select(everyone, [s])
    ]
    if unmatched:
        ids = ", ".join(p.id for p in everyone)
        print(f"no parser matches {', '.join(unmatched)}; known: {ids}", file=sys.stderr)
        return 2
    folder: Path | None = args.compiled
    # With --compiled, this process measures the pure build; else the one JSONSNAP_EXPECT_BUILD
    # names (dev.py sets it), the pure build by default.
    problem = build_problem("pure" if folder is not None else expected_build())
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if folder is not None and not folder.is_dir():
        print(f"error: --compiled {folder}: no such directory", file=sys.stderr)
        return 2
    available = [p for p in chosen if p.available()]
    unavailable = [p for p in chosen if not p.available()]
    return Plan(settings_of(args), groups, everyone, available, unavailable, folder)


def show_list(plan: Plan, wls: list[Workload]) -> int:
    """``--list``: the workloads and the parsers."""
    for w in wls:
        print(f"{w.name:<18} {w.size:>11,} bytes {len(w.fragments):>9,} fragments")
    if HOSTILE in plan.groups:
        for h in hostile_inputs.workloads(quick=plan.settings.quick):
            print(f"{HOSTILE} {h.name:<24} N = {h.n:>9,} {h.unit}")
    print("\n".join(stream_groups.listing(plan.groups, plan.settings.quick)))
    for p in plan.everyone:
        state = "available" if p.available() else f"unavailable ({p.reason})"
        print(f"{p.id:<24} {p.model:<12} {state}")
    return 0


# --------------------------------------------------------------------------- the run


def stream_all(
    plan: Plan, wls: list[Workload], compiled: Worker | None
) -> tuple[list[WorkloadResult], list[Peer]]:
    """Every workload of groups A-F through every parser (and the compiled build right after
    jsonsnap); the results, and the parsers of the parser table."""
    listed = list(plan.chosen)  # the parser table: with the compiled build after jsonsnap
    if compiled is not None:
        hello = compiled.ready(wls)
        progress(f"  the compiled build: jsonsnap from {hello['jsonsnap']}")
        at = next(i for i, p in enumerate(listed) if p.id == "jsonsnap")
        pure = listed[at]
        pure.notes = f"the pure build (the source), in this process: {pure.notes}"
        listed.insert(at + 1, CompiledBuild(str(hello["version"])))
    results: list[WorkloadResult] = []
    for wl in wls:
        progress(f"{wl.name}: {wl.size:,} bytes, {len(wl.fragments):,} fragments")
        expected = json.loads(wl.text)
        base = measure_baseline(wl, plan.settings)
        progress(f"  json.loads: {fmt_time(base.seconds)}")
        result = WorkloadResult(wl, base)
        prefixes = Prefixes.of(wl.fragments)
        for peer in plan.chosen:
            t0 = clock()
            cell = measure_cell(peer, wl, expected, prefixes, plan.settings)
            result.cells.append(cell)
            show_cell(cell, clock() - t0)
            if peer.id == "jsonsnap" and compiled is not None:
                t0 = clock()
                cell = compiled.measure(wl)
                result.cells.append(cell)
                show_cell(cell, clock() - t0)
        results.append(result)
        print(table(result), flush=True)
    return results, listed


@dataclass
class Sections:
    """The sections of the report, in order; each is printed as it is added."""

    texts: list[str] = field(default_factory=list)

    def add(self, text: str | None) -> None:
        if text is not None:
            self.texts.append(text)
            print(text, flush=True)


def one_shot_section(plan: Plan, results: list[WorkloadResult], out: Sections) -> list[OneShot]:
    """The one-shot on the truncated B 1 MB, and jsonsnap's memory there (when B 1 MB ran)."""
    big = next((r for r in results if r.workload.name == "B 1 MB"), None)
    if big is None:
        return []
    progress("one-shot on the truncated 1 MB document ...")
    shots = one_shots(big.workload, big.baseline, plan.chosen, plan.settings)
    out.add(one_shot_table(big.workload, big.baseline, shots))
    out.add(memory_section(big))
    return shots


def all_targets(
    plan: Plan,
    results: list[WorkloadResult],
    rows: list[Growth],
    shots: list[OneShot],
    found: feature_groups.Groups,
) -> tuple[list[Target], list[str]]:
    """Every target line, and the builds they are of."""
    goals = targets(results, rows, shots, plan.chosen)
    goals += group_targets(found.hostile, found.schema, found.tolerant)
    builds = [jsonsnap.__build__]
    if any(r.cell(COMPILED) is not None for r in results):
        builds.append("compiled")
        for t in goals:
            t.name += f" ({jsonsnap.__build__} build)"
        goals += compiled_targets(results, rows)
    if found.streams is not None:
        goals += found.streams.targets()
        builds += [b for b in found.streams.builds if b not in builds]
    return goals, builds


@dataclass
class Done:
    """A finished run: what the report is written from."""

    info: dict[str, Any]
    """The machine and the build(s) measured, taken before the run."""
    listed: list[Peer]
    results: list[WorkloadResult]
    rows: list[Growth]
    shots: list[OneShot]
    found: feature_groups.Groups
    goals: list[Target]
    builds: list[str]
    sections: list[str]
    elapsed: float

    @property
    def target_text(self) -> str:
        return "\n".join(t.line() for t in self.goals)


def write(out_dir: Path, plan: Plan, done: Done) -> None:
    """``benchmarks.md``, ``benchmarks.json`` and ``benchmarks.png`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    drawn = chart(done.results, done.rows, out_dir / "benchmarks.png")
    md = page(
        done.info,
        plan.settings,
        done.listed,
        plan.unavailable,
        done.sections,
        done.target_text,
        done.elapsed,
        drawn.startswith("chart"),
    )
    tolerant = done.found.tolerant
    data = {
        "machine": done.info,
        "settings": asdict(plan.settings),
        "builds": done.builds,
        "parsers": [peer_info(p) for p in done.listed + plan.unavailable],
        "workloads": [workload_record(r) for r in done.results],
        "growth": [asdict(g) for g in done.rows],
        "one_shot": [asdict(s) for s in done.shots],
        "hostile": [asdict(g) for g in done.found.hostile],
        "schema": [asdict(r) for r in done.found.schema],
        "exact_strings": [asdict(r) for r in done.found.exact],
        "tolerant": asdict(tolerant) if tolerant is not None else None,
        "streams": done.found.streams.record() if done.found.streams is not None else None,
        "targets": [asdict(t) for t in done.goals],
        "elapsed_seconds": done.elapsed,
    }
    versions = versions_table(out_dir, data)
    if versions is not None:
        md += "\n" + versions
        print(versions, flush=True)
    (out_dir / "benchmarks.md").write_text(md, encoding="utf-8")
    (out_dir / "benchmarks.json").write_text(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    progress(f"wrote {out_dir / 'benchmarks.md'} and {out_dir / 'benchmarks.json'}; {drawn}")


def measure_workloads(
    plan: Plan, wls: list[Workload], with_compiled: bool
) -> tuple[list[WorkloadResult], list[Peer]]:
    """:func:`stream_all`, with the compiled build's worker when ``with_compiled``."""
    with contextlib.ExitStack() as stack:
        compiled: Worker | None = None
        if with_compiled:
            assert plan.folder is not None
            progress(f"starting the worker for the compiled build in {shown_path(plan.folder)} ...")
            compiled = stack.enter_context(Worker(plan.folder, plan.settings, plan.groups))
        return stream_all(plan, wls, compiled)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    plan = plan_of(args)
    if isinstance(plan, int):
        return plan
    progress("generating workloads ...")
    wls = workloads_module.build(quick=plan.settings.quick, groups=plan.groups)
    if args.list:
        return show_list(plan, wls)
    with_compiled = plan.folder is not None and bool(wls) and plan.snap
    streams = plan.snap and bool(set(plan.groups) & set(stream_groups.GROUPS))
    if plan.folder is not None and not with_compiled and not streams:
        progress(
            "--compiled: the compiled build is measured beside the jsonsnap peer on groups A-F, "
            f"and {'no group A-F' if not wls else 'not the jsonsnap peer'} is run here"
        )
    # Before the run: the revision measured, not the one at the end.
    info = machine(plan.folder if with_compiled or streams else None)
    started = clock()
    try:
        results, listed = measure_workloads(plan, wls, with_compiled)
    except WorkerError as exc:
        print(
            f"error: the compiled build ({shown_path(plan.folder or Path())}): {exc}",
            file=sys.stderr,
        )
        return 1
    out = Sections([table(r) for r in results])
    rows = growth(results, [p.id for p in listed])
    out.add(builds_table(results))
    if rows:
        out.add(growth_table(rows, results))
    shots = one_shot_section(plan, results, out)
    found = feature_groups.run(
        plan.groups if plan.snap else [], plan.settings, plan.folder, plan.chosen, out.add
    )
    goals, builds = all_targets(plan, results, rows, shots, found)
    done = Done(info, listed, results, rows, shots, found, goals, builds, out.texts, 0.0)
    print("### Targets\n\n```\n" + done.target_text + "\n```\n", flush=True)
    done.elapsed = clock() - started
    progress(f"done in {done.elapsed / 60:.1f} min")
    if not args.no_write and (args.out is not None or not plan.settings.quick):
        write(args.out if args.out is not None else ROOT / "docs", plan, done)
    return 0


if __name__ == "__main__":
    sys.exit(main())

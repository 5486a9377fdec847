"""The report of ``run.py``: the markdown of ``docs/benchmarks.md`` and the records of
``docs/benchmarks.json``.

One table per workload (:func:`table`), then the sections that compare the cells: the two
builds side by side, B's growth, the one-shot, memory, and the other Python versions kept
beside the report; :func:`page` puts the header, the parser table, the targets and the
sections together; :func:`workload_record` and :func:`cell_record` are the JSON of the
cells. The chart is ``chart.py``'s, the targets ``targets.py``'s.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import platform
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import jsonsnap
from formatting import cell_text, fmt_bytes, fmt_ratio, fmt_time
from measuring import COMPILED, Baseline, Cell, OneShot, Settings, WorkloadResult, usable_time
from peers import Peer
from projection import exponent
from workloads import Workload, truncated

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
REFERENCE = "jiter-trailing"
"""The peer whose time is divided by each parser's in the last column of the tables."""


# --------------------------------------------------------------------------- tables


def table(result: WorkloadResult) -> str:
    wl, base = result.workload, result.baseline
    ref = result.cell(REFERENCE)
    ref_time = usable_time(ref)
    lines = [
        f"### {wl.name}",
        "",
        f"{wl.description}: {wl.chars:,} chars ({wl.size:,} bytes), "
        f"{len(wl.fragments):,} fragments of {wl.fragment_sizes}. "
        f"`json.loads` of the complete document: {fmt_time(base.seconds)}, "
        f"peak {fmt_bytes(base.peak)}.",
        "",
        "| parser | total | per fragment: median | worst | peak memory | correct? "
        f"| x json.loads | {REFERENCE} / this |",
        "|---|---:|---:|---:|---:|---|---:|---:|",
    ]
    for c in result.cells:
        if c.status in ("crashed", "timeout"):
            total = f"{c.status}: {c.detail}"
            correct = "—"
        elif c.status == "skipped":
            total = f"skipped: ~{fmt_time(c.projected)} projected"
            correct = ("yes" if c.correct else "no") + f" ({c.correct_note})"
        else:
            total = fmt_time(c.seconds)
            correct = "yes" if c.correct else f"wrong value: {c.correct_note}"
        t = usable_time(c)
        ratio = fmt_ratio(t / base.seconds, c.is_projected) if t else "—"
        if t and ref_time is not None and ref is not None:
            vs = fmt_ratio(ref_time / t, c.is_projected or ref.is_projected)
        else:
            vs = "—"
        peak = fmt_bytes(c.peak) if c.peak is not None else ("—" if not c.peak_note else "n/m")
        lines.append(
            f"| {c.peer} | {cell_text(total)} | {fmt_time(c.median)} | {fmt_time(c.worst)} "
            f"| {peak} | {cell_text(correct)} | {ratio} | {vs} |"
        )
    lines.append("")
    return "\n".join(lines)


# --------------------------------------------------------------------------- sections


def b_sizes(results: list[WorkloadResult]) -> list[WorkloadResult]:
    """The results of the B workloads, smallest document first."""
    return sorted((r for r in results if r.workload.group == "B"), key=lambda r: r.workload.size)


@dataclass
class Growth:
    peer: str
    points: list[tuple[int, float, bool]]
    """(document bytes, seconds, projected?) for each B size."""
    exponent: float | None
    projected: bool


def growth(results: list[WorkloadResult], peer_ids: list[str]) -> list[Growth]:
    b = b_sizes(results)
    out: list[Growth] = []
    if len(b) < 2:
        return out
    for pid in peer_ids:
        points: list[tuple[int, float, bool]] = []
        for r in b:
            c = r.cell(pid)
            if c is not None and (t := usable_time(c)) is not None:
                points.append((r.workload.size, t, c.is_projected))
        slope = None
        projected = False
        if len(points) == len(b):
            (s0, t0, p0), (s1, t1, p1) = points[0], points[-1]
            slope = exponent(s0, t0, s1, t1)
            projected = p0 or p1
        out.append(Growth(pid, points, slope, projected))
    return out


def growth_table(rows: list[Growth], results: list[WorkloadResult]) -> str:
    b = b_sizes(results)
    head = " | ".join(r.workload.name for r in b)
    lines = [
        "### B: growth from 10 KB to 1 MB",
        "",
        "Total time per size and the log-log slope of time against document size "
        "(1 = linear, 2 = quadratic); `~` marks a projection.",
        "",
        f"| parser | {head} | exponent |",
        "|---|" + "---:|" * (len(b) + 1),
        "| json.loads | "
        + " | ".join(fmt_time(r.baseline.seconds) for r in b)
        + f" | {baseline_exponent(b):.2f} |",
    ]
    for g in rows:
        cells = []
        by_size = {s: (t, p) for s, t, p in g.points}
        for r in b:
            if r.workload.size in by_size:
                t, p = by_size[r.workload.size]
                cells.append(("~" if p else "") + fmt_time(t))
            else:
                cells.append("—")
        exp = "—" if g.exponent is None else ("~" if g.projected else "") + f"{g.exponent:.2f}"
        lines.append(f"| {g.peer} | " + " | ".join(cells) + f" | {exp} |")
    lines.append("")
    return "\n".join(lines)


def baseline_exponent(b: list[WorkloadResult]) -> float:
    first, last = b[0], b[-1]
    return exponent(
        first.workload.size, first.baseline.seconds, last.workload.size, last.baseline.seconds
    )


def one_shot_table(wl: Workload, base: Baseline, rows: list[OneShot]) -> str:
    lines = [
        "### One-shot: a truncated 1 MB file write",
        "",
        f"{wl.name} cut in the middle of its content string ({len(truncated(wl.text)):,} of "
        f"{wl.chars:,} chars), parsed once; against `json.loads` of the complete document "
        f"({fmt_time(base.seconds)}).",
        "",
        "| parser | time | x json.loads (complete) | value |",
        "|---|---:|---:|---|",
    ]
    for r in rows:
        name = "jsonsnap.parse_partial" if r.peer == "jsonsnap" else r.peer
        lines.append(
            f"| {name} | {fmt_time(r.seconds)} | {fmt_ratio(r.ratio)} | {cell_text(r.shows)} |"
        )
    lines.append("")
    return "\n".join(lines)


def builds_table(results: list[WorkloadResult]) -> str | None:
    """The pure and the compiled build side by side on each workload (``None`` without
    compiled cells)."""
    pairs = [(r, r.cell("jsonsnap"), r.cell(COMPILED)) for r in results]
    lines = [
        "### The two builds",
        "",
        "jsonsnap's pure build (the source, in this process) and its compiled build (the same "
        "source compiled with mypyc, in a worker process), each as a multiple of this "
        "process's `json.loads` of the complete document; compiled / pure under 1 means the "
        "compiled build is faster. `~` marks a projection.",
        "",
        "| workload | json.loads | pure | x json.loads | compiled | x json.loads "
        "| compiled / pure |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    shown = 0
    for r, pure, compiled in pairs:
        if pure is None or compiled is None:
            continue
        shown += 1
        base = r.baseline.seconds
        pt, ct = usable_time(pure), usable_time(compiled)
        both = fmt_ratio(ct / pt, pure.is_projected or compiled.is_projected) if pt and ct else "—"
        lines.append(
            f"| {r.workload.name} | {fmt_time(base)} "
            f"| {build_time(pure)} | {fmt_ratio(pt / base, pure.is_projected) if pt else '—'} "
            f"| {build_time(compiled)} "
            f"| {fmt_ratio(ct / base, compiled.is_projected) if ct else '—'} | {both} |"
        )
    lines.append("")
    return "\n".join(lines) if shown else None


def build_time(c: Cell) -> str:
    """A build's total in :func:`builds_table`, with its status when it is not ``ok``."""
    t = usable_time(c)
    if t is None:
        return cell_text(f"{c.status}: {c.detail}")
    text = ("~" if c.is_projected else "") + fmt_time(t)
    if c.status == "skipped":
        return f"{text} (skipped)"
    return f"{text} (wrong value)" if c.status == "wrong" else text


VERSION_COLUMNS = (
    ("A tool call", "A"),
    ("B 1 MB", "B 1 MB"),
    ("C 20,000", "C 20,000"),
    ("D deep 500", "D"),
    ("E escapes 100 KB", "E"),
    ("F 1-char 100 KB", "F"),
)


def version_rows(data: dict[str, Any], label: str) -> list[str]:
    """One table row per build of jsonsnap in a report's JSON (``benchmarks.json``)."""
    rows: list[str] = []
    cells = {
        (w["name"], c["peer"]): c for w in data.get("workloads", []) for c in w.get("cells", [])
    }
    for peer, build in (("jsonsnap", "pure"), (COMPILED, "compiled")):
        if not any(key[1] == peer for key in cells):
            continue
        builds = data.get("builds") or (  # (reports before "builds" name it in the header)
            ["compiled"] if "(compiled build)" in str(data["machine"].get("jsonsnap")) else []
        )
        if peer == "jsonsnap" and builds == ["compiled"]:
            build = "compiled"  # a whole run on the compiled build (dev.py bench --build compiled)
        shown: list[str] = []
        for name, _ in VERSION_COLUMNS:
            c = cells.get((name, peer))
            x = c.get("x_json_loads") if c else None
            text = "—" if x is None else fmt_ratio(x, bool(c and c.get("time_is_projected")))
            over = c.get(f"{REFERENCE}_over_this") if c else None
            if name == "A tool call" and x is not None and over:
                text += f" ({fmt_ratio(1 / over)} {REFERENCE})"
            shown.append(text)
        rows.append(f"| {label} | {build} | " + " | ".join(shown) + " |")
    return rows


def versions_table(out_dir: Path, data: dict[str, Any]) -> str | None:
    """This run beside the reports of other Python versions kept in ``out_dir/python*/``
    (``JSONSNAP_VENV=.venv-3.13 python3.13 dev.py bench --only A,B,C,D,E,F --out
    docs/python3.13``): each build's multiple of its own run's ``json.loads`` (``None`` when
    there are no such reports)."""
    others: list[tuple[str, dict[str, Any], str]] = []
    for path in sorted(out_dir.glob("python*/benchmarks.json")):
        with contextlib.suppress(OSError, ValueError, KeyError):
            other = json.loads(path.read_text(encoding="utf-8"))
            others.append((str(other["machine"]["python"]), other, path.parent.name))
    if not others:
        return None
    lines = [
        "### Other Python versions",
        "",
        "Each build's total as a multiple of `json.loads` in the same run, on this run's Python "
        f"and in the reports kept beside it ({', '.join(f'`{d}/`' for _, _, d in others)}); "
        f"for A, also its multiple of {REFERENCE}'s time. A report's machine, date and revision "
        "are in its own header.",
        "",
        "| Python | build | " + " | ".join(short for _, short in VERSION_COLUMNS) + " |",
        "|---|---|" + "---:|" * len(VERSION_COLUMNS),
    ]
    lines += version_rows(data, f"{data['machine']['python']} (this run)")
    for label, other, folder in others:
        lines += version_rows(other, f"{label} (`{folder}/`)")
    lines.append("")
    return "\n".join(lines)


def memory_section(big: WorkloadResult) -> str | None:
    """jsonsnap's traced peak on ``big`` (B 1 MB) against ``json.loads``'s (``None`` when it
    was not traced)."""
    c = big.cell("jsonsnap")
    if c is None or c.peak is None:
        return None
    lines = [
        "### Memory: B 1 MB",
        "",
        f"jsonsnap's peak while streaming: {fmt_bytes(c.peak)}; `json.loads` of the "
        f"complete document: {fmt_bytes(big.baseline.peak)} "
        f"(ratio {fmt_ratio(c.peak / big.baseline.peak)}).",
        "",
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- machine


def cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def source_revision() -> str:
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "src"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{rev} (src/ modified)" if dirty else rev


def shown_path(path: Path) -> str:
    """``path`` relative to the checkout when it is inside it."""
    path = path.resolve()
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def machine(compiled: Path | None = None) -> dict[str, Any]:
    """The machine and the build(s) measured (``compiled``: the folder of the compiled build
    measured by the worker beside this process's)."""
    measured = f"{jsonsnap.__version__} ({jsonsnap.__build__} build) at {source_revision()}"
    if compiled is not None:
        measured = (
            f"{jsonsnap.__version__} at {source_revision()}: {jsonsnap.__build__} build "
            f"(in-process) and compiled build (from {shown_path(compiled)}, in a worker process)"
        )
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "jsonsnap": measured,
    }


# --------------------------------------------------------------------------- the JSON


def workload_record(r: WorkloadResult) -> dict[str, Any]:
    """A workload for the JSON report, with its cells."""
    return {
        "name": r.workload.name,
        "group": r.workload.group,
        "description": r.workload.description,
        "chars": r.workload.chars,
        "bytes": r.workload.size,
        "fragments": len(r.workload.fragments),
        "fragment_sizes": r.workload.fragment_sizes,
        "json_loads": asdict(r.baseline),
        "cells": [cell_record(c, r) for c in r.cells],
    }


def cell_record(c: Cell, r: WorkloadResult) -> dict[str, Any]:
    """A cell for the JSON report, with its ratios (``None`` where they do not apply)."""
    record = asdict(c)
    t = usable_time(c)
    ref_time = usable_time(r.cell(REFERENCE))
    record["time"] = t
    record["time_is_projected"] = c.is_projected
    record["x_json_loads"] = t / r.baseline.seconds if t else None
    record[f"{REFERENCE}_over_this"] = ref_time / t if t and ref_time else None
    return record


def peer_info(p: Peer) -> dict[str, Any]:
    return {
        "id": p.id,
        "distribution": p.distribution,
        "version": p.version() if p.available() else None,
        "available": p.available(),
        "reason": p.reason,
        "model": p.model,
        "pure_python": p.pure_python,
        "partial_strings": p.partial_strings,
        "notes": p.notes,
    }


def page(
    info: dict[str, Any],
    settings: Settings,
    chosen: list[Peer],
    unavailable: list[Peer],
    sections: list[str],
    target_text: str,
    elapsed: float,
    with_chart: bool,
) -> str:
    lines = [
        "# Benchmarks",
        "",
        "Generated by `python3 dev.py bench` (`benchmarks/run.py`; see `benchmarks/README.md` "
        "for the workloads, the method and how to read the tables).",
        "",
        f"- Machine: {info['cpu']}, {info['cores']} cores; {info['platform']}",
        f"- Python: {info['python']}",
        f"- Date: {info['date']}; the whole run took {elapsed / 60:.1f} min",
        f"- jsonsnap: {info['jsonsnap']}",
        f"- Settings: budget {settings.budget:g} s per parser and workload, best of "
        f"{settings.repeat} runs for fast parsers, projection from the first "
        f"{settings.probe:g} s of streaming",
        "",
        "## Parsers",
        "",
        "| parser | version | cost model | pure Python | partial strings | how it is driven |",
        "|---|---|---|---|---|---|",
    ]
    lines.extend(
        f"| {p.id} | {p.distribution} {p.version()} | {p.model} "
        f"| {'yes' if p.pure_python else 'no'} | {'yes' if p.partial_strings else 'no'} "
        f"| {cell_text(p.notes)} |"
        for p in chosen
    )
    lines.extend(f"| {p.id} | unavailable | | | | {cell_text(p.reason)} |" for p in unavailable)
    lines += ["", "## Targets", "", "```", target_text, "```", "", "## Results", ""]
    lines += sections
    if with_chart:
        lines += ["![B: time against document size](benchmarks.png)", ""]
    return "\n".join(lines)

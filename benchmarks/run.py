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
Group ``H`` (run unless ``--only`` leaves it out) adds the growth exponents of jsonsnap on the
hostile inputs of ``hostile.py``, group ``S`` what checking against a schema costs
(``schema.py``) and group ``R`` what tolerant mode costs (``tolerant.py``). See
``benchmarks/README.md``.

``--compiled DIR`` measures the compiled build in ``DIR`` too, beside the pure build this
process imports: a worker process (``run.py --worker``, with ``DIR`` first on its path) streams
each workload of groups A-F right after this process has, and its cells (``jsonsnap-compiled``)
go into the same tables, with their ratios to this process's ``json.loads``.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import dataclasses
import datetime
import functools
import gc
import hashlib
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import edges as edges_module
import hostile as hostile_module
import jsonsnap
import peers as peers_module
import schema as schema_module
import tolerant as tolerant_module
import workloads as workloads_module
from peers import Peer
from workloads import Workload

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
HOSTILE = "H"
"""The group of hostile inputs (``hostile.py``): growth exponents of jsonsnap alone."""
SCHEMA = "S"
"""The group of schema checking (``schema.py``): jsonsnap checked against jsonsnap plain."""
TOLERANT = "R"
"""The group of tolerant mode (``tolerant.py``): jsonsnap ``repair=True`` against strict, and
beside json_repair."""
REFERENCE = "jiter-trailing"
"""The peer whose time is divided by each parser's in the last column."""
COMPILED = "jsonsnap-compiled"
"""The id of the compiled build's cells, measured by a worker process (``--compiled DIR``)."""

clock = time.perf_counter


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class Settings:
    budget: float = 30.0
    """Seconds a peer may take on one workload (projected) before it is skipped."""
    repeat: int = 3
    """Best of this many runs for fast parsers."""
    probe: float = 0.5
    """Seconds spent streaming the first fragments to project the whole run."""
    slow: float = 1.0
    """A run at least this long is not repeated."""
    memory_limit: float = 15.0
    """Seconds a traced run may take. Tracing slows Python code down several times (about ten
    times for the pure-Python peers), so it is tried only for runs shorter than a quarter of
    this, and given up when it lasts longer."""
    sample: float = 0.05
    """Fast functions are looped until one sample lasts at least this long."""
    quick: bool = False


# --------------------------------------------------------------------------- measuring


class Timeout(Exception):
    """A run outlived its deadline."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`Timeout` in the block after ``seconds`` (where SIGALRM exists)."""
    with hostile_module.deadline(seconds, lambda: Timeout(f"still running after {seconds:.0f} s")):
        yield


@dataclass
class Timing:
    best: float
    """Seconds per call, best sample."""
    loops: int
    runs: int


def best_time(func: Callable[[], object], settings: Settings, runs: int | None = None) -> Timing:
    """Best time per call of ``func``: looped so that a sample lasts ``settings.sample``, best of
    ``runs`` samples; a single call only when the first one is slow."""
    runs = settings.repeat if runs is None else runs
    gc.collect()
    start = clock()
    func()
    first = clock() - start
    if first >= settings.slow:
        return Timing(first, 1, 1)
    loops = max(1, math.ceil(settings.sample / max(first, 1e-7)))
    best = first if loops == 1 else math.inf
    for _ in range(max(1, runs)):
        gc.collect()
        start = clock()
        for _ in range(loops):
            func()
        best = min(best, (clock() - start) / loops)
    return Timing(best, loops, max(1, runs))


def traced_peak(func: Callable[[], object]) -> int:
    """Peak bytes allocated (as seen by tracemalloc) while ``func`` runs, its result included."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = func()
        peak = tracemalloc.get_traced_memory()[1]
        del result
    finally:
        tracemalloc.stop()
    return max(0, peak - base)


@dataclass
class Profile:
    times: list[float]
    """Seconds per fragment (feed + snapshot)."""
    wall: float
    """Seconds from opening the stream to the final value (or to the stop)."""
    final: Any
    complete: bool


def profile(peer: Peer, fragments: Sequence[str], limit: float | None) -> Profile:
    """Stream with a timer around every fragment; stop once ``limit`` seconds are spent."""
    gc.collect()
    n = len(fragments)
    times: list[float] = []
    append = times.append
    start = clock()
    stream = peer.open()
    step = stream.step
    for i, fragment in enumerate(fragments):
        t0 = clock()
        step(fragment)
        t1 = clock()
        append(t1 - t0)
        if limit is not None and t1 - start >= limit and i + 1 < n:
            return Profile(times, t1 - start, None, False)
    final = stream.finish()
    return Profile(times, clock() - start, final, True)


# --------------------------------------------------------------------------- projection


def _solve(a: list[list[float]], b: list[float]) -> list[float] | None:
    """Solve the small linear system ``a x = b`` (Gaussian elimination, partial pivoting)."""
    n = len(b)
    m = [[*row, rhs] for row, rhs in zip(a, b, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[pivot][col]) < 1e-12:
            return None
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                for c in range(col, n + 1):
                    m[r][c] -= f * m[col][c]
    return [m[i][n] / m[i][i] for i in range(n)]


def nonnegative_fit(rows: list[list[float]], ys: list[float]) -> list[float]:
    """Least squares ``ys ~ rows @ coef`` with ``coef >= 0`` (every subset of the few columns
    is tried; the feasible one with the smallest residual wins)."""
    width = len(rows[0])
    scale = [max(abs(r[c]) for r in rows) or 1.0 for c in range(width)]
    x = [[r[c] / scale[c] for c in range(width)] for r in rows]
    best: tuple[float, list[float]] | None = None
    for mask in range(1, 1 << width):
        cols = [c for c in range(width) if mask >> c & 1]
        ata = [[sum(row[i] * row[j] for row in x) for j in cols] for i in cols]
        aty = [sum(row[i] * y for row, y in zip(x, ys, strict=True)) for i in cols]
        sol = _solve(ata, aty)
        if sol is None or min(sol) < 0:
            continue
        coef = [0.0] * width
        for c, v in zip(cols, sol, strict=True):
            coef[c] = v
        resid = sum(
            (sum(row[c] * coef[c] for c in range(width)) - y) ** 2
            for row, y in zip(x, ys, strict=True)
        )
        if best is None or resid < best[0]:
            best = (resid, coef)
    if best is None:
        return [0.0] * width
    return [best[1][c] / scale[c] for c in range(width)]


@dataclass
class Prefixes:
    """Per fragment ``i`` (1-based): ``chars[i]`` characters fed so far and ``work[i]`` the sum
    of the prefix lengths so far (what a re-parser parses in total)."""

    chars: list[int]
    work: list[int]

    @classmethod
    def of(cls, fragments: Sequence[str]) -> Prefixes:
        chars = [0]
        work = [0]
        total = acc = 0
        for f in fragments:
            total += len(f)
            acc += total
            chars.append(total)
            work.append(acc)
        return cls(chars, work)


def features(prefixes: Prefixes, k: int) -> list[float]:
    """What the cost of the first ``k`` fragments of a stateful parser is fitted on: a cost per
    fragment, per character, and per character already received (which an incremental parser
    should not have, but one that copies the string being received on every fragment has)."""
    return [float(k), float(prefixes.chars[k]), float(prefixes.work[k])]


def project_fit(prefixes: Prefixes, times: Sequence[float]) -> float:
    """Projected seconds for all the fragments of a stateful parser: the cumulative time of the
    first ``k`` fitted (least squares, non-negative coefficients) on :func:`features`, evaluated
    at the end."""
    k = len(times)
    n = len(prefixes.chars) - 1
    spent = math.fsum(times)
    if k >= n:
        return spent
    if k < 8:  # too few points to fit: scale by the characters
        return spent * prefixes.chars[n] / max(1, prefixes.chars[k])
    cumulative: list[float] = []
    acc = 0.0
    for t in times:
        acc += t
        cumulative.append(acc)
    points = sorted({max(1, round(k * q / 40)) for q in range(1, 41)})
    rows = [features(prefixes, j) for j in points]
    ys = [cumulative[j - 1] for j in points]
    coef = nonnegative_fit(rows, ys)
    full = features(prefixes, n)
    projected = sum(c * f for c, f in zip(coef, full, strict=True))
    return max(projected, spent)


def parse_costs(
    peer: Peer, text: str, start: int, step: int, settings: Settings
) -> list[tuple[float, float]]:
    """Seconds for one fragment of ``step`` characters ending prefixes of ``text`` longer than
    ``start`` characters (15/16 of it, half, a quarter, ...; never the complete text, which many
    re-parsers hand straight to ``json.loads``), from the shortest up, stopping after one lasts
    ``settings.probe``. Each is timed as in a stream: after a fragment ending just before it (so
    that the previous value is alive) and warm (the best of up to three)."""
    n = len(text)
    sizes = sorted({n * 15 // 16} | {n >> j for j in range(1, 16)})
    sizes = [size for size in sizes if size > max(start, step)]
    points: list[tuple[float, float]] = []
    gc.collect()
    for size in sizes:
        head, last = text[: size - step], text[size - step : size]
        best = math.inf
        for _ in range(3):
            stream = peer.open()
            stream.step(head)
            t0 = clock()
            stream.step(last)
            took = clock() - t0
            best = min(best, took)
            if took > settings.probe / 10:
                break
        points.append((float(size), best))
        if best >= settings.probe:
            break
    return points


def project_reparse(
    peer: Peer, text: str, prefixes: Prefixes, times: Sequence[float], settings: Settings
) -> float:
    """Projected seconds for a re-parser: the time of the fragments streamed so far, plus, for
    each remaining fragment, the cost of one parse of its prefix, interpolated between parses
    of longer and longer prefixes timed on their own (and extrapolated on a log-log line past
    the longest one timed)."""
    k = len(times)
    n = len(prefixes.chars) - 1
    spent = math.fsum(times)
    if k >= n:
        return spent
    points: list[tuple[float, float]] = []
    bins = min(8, k)
    for b in range(bins):
        lo, hi = k * b // bins, k * (b + 1) // bins
        if hi > lo:
            size = math.fsum(prefixes.chars[i + 1] for i in range(lo, hi)) / (hi - lo)
            points.append((size, math.fsum(times[lo:hi]) / (hi - lo)))
    step = max(1, round(prefixes.chars[n] / n))
    points += parse_costs(peer, text, prefixes.chars[k], step, settings)
    points.sort()
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    if len(points) >= 2 and xs[-1] > xs[-2] > 0 and ys[-1] > 0 and ys[-2] > 0:
        slope = math.log(ys[-1] / ys[-2]) / math.log(xs[-1] / xs[-2])
        slope = min(3.0, max(1.0, slope))
    else:
        slope = 1.0

    def cost(size: float) -> float:
        if size <= xs[0]:
            return ys[0]
        if size >= xs[-1]:
            return float(ys[-1] * (size / xs[-1]) ** slope)
        j = bisect.bisect_left(xs, size)
        x0, x1, y0, y1 = xs[j - 1], xs[j], ys[j - 1], ys[j]
        return y0 + (y1 - y0) * (size - x0) / (x1 - x0) if x1 > x0 else y1

    rest = math.fsum(cost(prefixes.chars[i]) for i in range(k + 1, n + 1))
    return spent + rest


# --------------------------------------------------------------------------- correctness


def _show(value: object) -> str:
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{text} ({type(value).__name__})"


def diff(expected: object, got: object) -> str | None:
    """The first difference between two JSON values, compared exactly and without recursion:
    types must match (``1`` is not ``1.0``), dict keys come in the same order, floats compare
    by ``repr`` (so ``-0.0`` differs from ``0.0``, NaN equals NaN)."""
    todo: list[tuple[str, object, object]] = [("$", expected, got)]
    while todo:
        path, a, b = todo.pop()
        if type(a) is not type(b):
            return f"{path}: {_show(b)} instead of {_show(a)}"
        if isinstance(a, list):
            assert isinstance(b, list)
            if len(a) != len(b):
                return f"{path}: {len(b)} items instead of {len(a)}"
            todo.extend((f"{path}[{i}]", x, y) for i, (x, y) in enumerate(zip(a, b, strict=True)))
        elif isinstance(a, dict):
            assert isinstance(b, dict)
            if list(a) != list(b):
                return f"{path}: keys {_show(list(b))} instead of {_show(list(a))}"
            todo.extend((f"{path}.{k}", v, b[k]) for k, v in a.items())
        elif isinstance(a, float):
            if repr(a) != repr(b):
                return f"{path}: {_show(b)} instead of {_show(a)}"
        elif a != b:
            if isinstance(a, str) and isinstance(b, str):
                at = next(
                    (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                    min(len(a), len(b)),
                )
                return (
                    f"{path}: strings differ at char {at} (lengths {len(b)} vs {len(a)}): "
                    f"{b[at : at + 6]!r} instead of {a[at : at + 6]!r}"
                )
            return f"{path}: {_show(b)} instead of {_show(a)}"
    return None


def describe_error(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if len(text) > 90:
        text = text[:87] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


# --------------------------------------------------------------------------- one cell


@dataclass
class Cell:
    """One parser on one workload."""

    peer: str
    workload: str
    status: str = "ok"
    """``ok``, ``wrong`` (final value differs), ``crashed``, ``timeout`` or ``skipped``."""
    detail: str = ""
    seconds: float | None = None
    """Measured total (open, every fragment with its snapshot, final value)."""
    projected: float | None = None
    """Projected total, when the first fragments took longer than the probe."""
    runs: int = 0
    loops: int = 0
    median: float | None = None
    worst: float | None = None
    peak: int | None = None
    peak_note: str = ""
    correct: bool | None = None
    correct_note: str = ""
    internal_exponent: float | None = None
    """Log-log slope of cumulative time against characters fed, from 10% to 100%."""
    probed: int = 0
    """Fragments streamed by the probe before projecting."""

    @property
    def time(self) -> float | None:
        """The measured time, else the projection."""
        return self.seconds if self.seconds is not None else self.projected

    @property
    def is_projected(self) -> bool:
        return self.seconds is None and self.projected is not None


def internal_exponent(times: Sequence[float], prefixes: Prefixes) -> float | None:
    n = len(times)
    total_chars = prefixes.chars[n]
    if n < 20 or total_chars < 100:
        return None
    k = next(i for i in range(1, n + 1) if prefixes.chars[i] >= total_chars / 10)
    head = math.fsum(times[:k])
    whole = math.fsum(times)
    if head <= 0 or whole <= 0 or prefixes.chars[k] >= total_chars:
        return None
    return math.log(whole / head) / math.log(total_chars / prefixes.chars[k])


def check(cell: Cell, expected: Any, final: Any, how: str = "") -> None:
    problem = diff(expected, final)
    cell.correct = problem is None
    cell.correct_note = how if problem is None else problem
    if problem is not None and cell.status == "ok":
        cell.status = "wrong"
        cell.detail = problem


def measure_cell(
    peer: Peer, wl: Workload, expected: Any, prefixes: Prefixes, settings: Settings
) -> Cell:
    """Time one parser on one workload (or project and skip it), check its final value, and
    trace its peak memory in a separate run."""
    cell = Cell(peer.id, wl.name)
    frags = wl.fragments
    try:
        with deadline(2 * settings.budget + 30):
            prof = timed_runs(cell, peer, wl, prefixes, settings)
    except Exception as exc:
        cell.status = "timeout" if isinstance(exc, Timeout) else "crashed"
        cell.detail = describe_error(exc)
        cell.seconds = None
        return cell
    if prof is None:
        whole_document_check(cell, peer, wl, expected)
        return cell
    cell.median = statistics.median(prof.times) if prof.times else None
    cell.worst = max(prof.times) if prof.times else None
    cell.internal_exponent = internal_exponent(prof.times, prefixes)
    check(cell, expected, prof.final)
    if cell.seconds is not None and cell.seconds * 4 <= settings.memory_limit:
        try:
            with deadline(settings.memory_limit):
                cell.peak = traced_peak(lambda: peer.run(frags))
        except Timeout:
            cell.peak_note = f"not measured (traced run > {settings.memory_limit:g} s)"
        except Exception as exc:
            cell.peak_note = f"not measured: {describe_error(exc)}"
    else:
        cell.peak_note = f"not measured (run > {settings.memory_limit / 4:g} s)"
    return cell


def timed_runs(
    cell: Cell, peer: Peer, wl: Workload, prefixes: Prefixes, settings: Settings
) -> Profile | None:
    """Probe, then either skip (``None``, with the projection in ``cell``) or measure; return
    the profiled run whose per-fragment times and final value are reported."""
    frags = wl.fragments
    prof = profile(peer, frags, settings.probe)
    cell.probed = len(prof.times)
    if not prof.complete:
        if peer.model == "reparse":
            cell.projected = project_reparse(peer, wl.text, prefixes, prof.times, settings)
        else:
            cell.projected = project_fit(prefixes, prof.times)
        if cell.projected > settings.budget:
            cell.status = "skipped"
            cell.detail = f"projected {fmt_time(cell.projected)} > budget {settings.budget:g} s"
            return None
        # Slow: one run, with the per-fragment timers (their cost is small beside the parser's).
        prof = profile(peer, frags, None)
        cell.seconds, cell.runs, cell.loops = prof.wall, 1, 1
        return prof
    # Fast: per-fragment times from the best of a few profiled runs, the total from runs
    # without per-fragment timers (they would add their own cost).
    if prof.wall < settings.slow:
        for _ in range(settings.repeat - 1):
            again = profile(peer, frags, None)
            if again.wall < prof.wall:
                prof = again
    timing = best_time(lambda: peer.run(frags), settings)
    cell.seconds, cell.runs, cell.loops = timing.best, timing.runs, timing.loops
    return prof


def whole_document_check(cell: Cell, peer: Peer, wl: Workload, expected: Any) -> None:
    """For a skipped peer: is its value of the complete document (fed whole) right?"""
    try:
        with deadline(60):
            stream = peer.open()
            stream.step(wl.text)
            final = stream.finish()
    except Exception as exc:
        cell.correct = False
        cell.correct_note = f"whole document: {describe_error(exc)}"
        return
    problem = diff(expected, final)
    cell.correct = problem is None
    cell.correct_note = "whole document fed at once" if problem is None else problem


# --------------------------------------------------------------------------- formatting


def fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 1e-5:
        return f"{seconds * 1e6:.2f} µs"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms" if seconds < 0.1 else f"{seconds * 1e3:.0f} ms"
    if seconds < 100:
        return f"{seconds:.3g} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def fmt_ratio(ratio: float | None, projected: bool = False) -> str:
    if ratio is None:
        return "—"
    if ratio < 0.1:
        text = f"{ratio:.2g}x"
    elif ratio < 10:
        text = f"{ratio:.2f}x"
    elif ratio < 100:
        text = f"{ratio:.1f}x"
    else:
        text = f"{ratio:,.0f}x"
    return f"~{text}" if projected else text


def fmt_bytes(size: int | None) -> str:
    if size is None:
        return "—"
    if size < 10_000:
        return f"{size:,} B"
    if size < 10_000_000:
        return f"{size / 1000:,.0f} KB"
    return f"{size / 1e6:,.1f} MB"


def cell_text(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


@dataclass
class Baseline:
    """``json.loads`` of the complete document."""

    seconds: float
    loops: int
    peak: int


@dataclass
class WorkloadResult:
    workload: Workload
    baseline: Baseline
    cells: list[Cell] = field(default_factory=list)

    def cell(self, peer_id: str) -> Cell | None:
        return next((c for c in self.cells if c.peer == peer_id), None)


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


@dataclass
class Growth:
    peer: str
    points: list[tuple[int, float, bool]]
    """(document bytes, seconds, projected?) for each B size."""
    exponent: float | None
    projected: bool


def growth(results: list[WorkloadResult], peer_ids: list[str]) -> list[Growth]:
    b = sorted((r for r in results if r.workload.group == "B"), key=lambda r: r.workload.size)
    out: list[Growth] = []
    if len(b) < 2:
        return out
    for pid in peer_ids:
        points: list[tuple[int, float, bool]] = []
        for r in b:
            c = r.cell(pid)
            if c is not None and (t := usable_time(c)) is not None:
                points.append((r.workload.size, t, c.is_projected))
        exponent = None
        projected = False
        if len(points) == len(b):
            (s0, t0, p0), (s1, t1, p1) = points[0], points[-1]
            exponent = math.log(t1 / t0) / math.log(s1 / s0)
            projected = p0 or p1
        out.append(Growth(pid, points, exponent, projected))
    return out


def growth_table(rows: list[Growth], results: list[WorkloadResult]) -> str:
    b = sorted((r for r in results if r.workload.group == "B"), key=lambda r: r.workload.size)
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
    s0, s1 = b[0].workload.size, b[-1].workload.size
    return math.log(b[-1].baseline.seconds / b[0].baseline.seconds) / math.log(s1 / s0)


@dataclass
class OneShot:
    peer: str
    seconds: float | None
    ratio: float | None
    shows: str


def truncated(text: str) -> str:
    """``text`` cut in the middle of its content string, not inside an escape."""
    pos = len(text) // 2
    while text[pos - 1] == "\\" or "\\" in text[pos - 6 : pos]:
        pos += 1
    return text[:pos]


def one_shots(
    wl: Workload, base: Baseline, chosen: list[Peer], settings: Settings
) -> list[OneShot]:
    text = truncated(wl.text)
    expected_content = json.loads(text + '"}')["content"]
    out: list[OneShot] = []
    for peer in chosen:
        progress(f"  one-shot {peer.id} ...")
        value: Any = None
        try:
            with deadline(2 * settings.budget + 30):
                gc.collect()
                t0 = clock()
                value = peer.one_shot(text)
                first = clock() - t0
                timing = (
                    Timing(first, 1, 1)
                    if first >= settings.slow
                    else best_time(functools.partial(peer.one_shot, text), settings)
                )
        except Exception as exc:
            out.append(OneShot(peer.id, None, None, f"crashed: {describe_error(exc)}"))
            continue
        content = value.get("content") if isinstance(value, dict) else None
        if content == expected_content:
            shows = "the whole content received so far"
        elif isinstance(content, str) and expected_content.startswith(content):
            shows = f"{len(content):,} of {len(expected_content):,} content chars"
        elif content is None:
            shows = "no content (the unfinished string is left out)"
        else:
            shows = f"wrong content: {diff(expected_content, content)}"
        out.append(OneShot(peer.id, timing.best, timing.best / base.seconds, shows))
    return out


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


@dataclass
class Target:
    name: str
    passed: bool | None
    text: str

    def line(self) -> str:
        word = {True: "PASS", False: "FAIL", None: "N/A "}[self.passed]
        return f"{word}  {self.name}: {self.text}"


def usable_time(c: Cell | None) -> float | None:
    """The time of a cell (measured or projected), ``None`` when it crashed or timed out."""
    if c is None or c.status in ("crashed", "timeout"):
        return None
    return c.time


def stretch_text(ratio: float, stretch: float | None) -> str:
    if stretch is None:
        return ""
    return f"; stretch goal {stretch:g}x {'met' if ratio <= stretch else 'not met'}"


class Goals:
    """The checks behind the targets, on the cells of one build (``peer``: ``jsonsnap`` or
    ``jsonsnap-compiled``); each adds a :class:`Target` to ``out``, its name after ``prefix``."""

    def __init__(
        self, results: list[WorkloadResult], rows: list[Growth], peer: str, prefix: str = ""
    ) -> None:
        self.results = results
        self.by_name = {r.workload.name: r for r in results}
        self.rows = rows
        self.peer = peer
        self.prefix = prefix
        self.out: list[Target] = []

    def add(self, name: str, passed: bool | None, text: str) -> None:
        self.out.append(Target(self.prefix + name, passed, text))

    def snap(self, wname: str) -> tuple[WorkloadResult, Cell] | None:
        """The workload and the build's cell on it, when that cell was measured in full."""
        r = self.by_name.get(wname)
        c = r.cell(self.peer) if r is not None else None
        if r is None or c is None or c.seconds is None:
            return None
        return r, c

    def vs_loads(self, name: str, wname: str, limit: float, stretch: float | None = None) -> None:
        """Total on ``wname`` at most ``limit`` times ``json.loads`` of the document."""
        got = self.snap(wname)
        if got is None:
            self.add(name, None, f"{wname} not measured")
            return
        r, c = got
        assert c.seconds is not None
        ratio = c.seconds / r.baseline.seconds
        self.add(
            name,
            ratio <= limit,
            f"{fmt_ratio(ratio)} ({fmt_time(c.seconds)} vs json.loads "
            f"{fmt_time(r.baseline.seconds)}){stretch_text(ratio, stretch)}",
        )

    def vs_reference(
        self, wname: str, short: str, limit: float, stretch: float | None = None
    ) -> None:
        """Total on ``wname`` at most ``limit`` times the reference's (jiter-trailing)."""
        name = f"{short} total <= {limit:g}x {REFERENCE}"
        got = self.snap(wname)
        if got is None:
            self.add(name, None, f"{short} not measured")
            return
        r, c = got
        assert c.seconds is not None
        ref = r.cell(REFERENCE)
        ref_time = usable_time(ref)
        if ref_time is None:
            self.add(name, None, f"{REFERENCE} not measured")
            return
        ratio = c.seconds / ref_time
        self.add(
            name,
            ratio <= limit,
            f"{fmt_ratio(ratio)} ({self.peer} {fmt_time(c.seconds)}, "
            f"{REFERENCE} {fmt_time(ref_time)}){stretch_text(ratio, stretch)}",
        )

    def faster_than_reference(self, wname: str, factor: float) -> None:
        """The reference (jiter-trailing) at least ``factor`` times slower on ``wname``."""
        name = f"{wname} >= {factor:g}x faster than {REFERENCE}"
        got = self.snap(wname)
        ref = self.by_name[wname].cell(REFERENCE) if wname in self.by_name else None
        ref_time = usable_time(ref)
        if got is None or ref is None or ref_time is None:
            self.add(name, None, f"{self.peer} or {REFERENCE} not measured")
            return
        c = got[1]
        assert c.seconds is not None
        speedup = ref_time / c.seconds
        how = "projected" if ref.is_projected else "measured"
        self.add(
            name,
            speedup >= factor,
            f"{fmt_ratio(speedup)} ({REFERENCE} {fmt_time(ref_time)} {how}, "
            f"{self.peer} {fmt_time(c.seconds)})",
        )

    def growth(self, limit: float) -> None:
        """The growth exponent of the B sizes, 10 KB -> 1 MB."""
        g = next((x for x in self.rows if x.peer == self.peer), None)
        name = f"B growth exponent 10 KB -> 1 MB <= {limit:g}"
        if g is None or g.exponent is None:
            self.add(name, None, "B sizes not measured")
        else:
            self.add(name, g.exponent <= limit, f"{g.exponent:.3f}")

    def correct(self, name: str) -> None:
        """The final value equal to ``json.loads``'s on every workload the build streamed."""
        wrong = [
            f"{r.workload.name} ({c.status}: {c.detail or c.correct_note})"
            for r in self.results
            for c in r.cells
            if c.peer == self.peer and (c.status != "ok" or not c.correct)
        ]
        snapped = [r for r in self.results if r.cell(self.peer) is not None]
        if snapped:
            self.add(
                name,
                not wrong,
                "; ".join(wrong) if wrong else f"{len(snapped)} of {len(snapped)}",
            )


def targets(
    results: list[WorkloadResult],
    rows: list[Growth],
    shots: list[OneShot],
    chosen: list[Peer],
) -> list[Target]:
    """The targets of jsonsnap (the build this process imports)."""
    goals = Goals(results, rows, "jsonsnap")
    by_name = goals.by_name
    out = goals.out

    goals.vs_loads("B 1 MB total <= 30x json.loads", "B 1 MB", 30)
    goals.faster_than_reference("B 1 MB", 300)
    goals.growth(1.1)

    goals.vs_reference("A tool call", "A", 1.5)
    got = goals.snap("A tool call")
    name = "A >= 3x faster than every pure-Python peer"
    if got is None:
        out.append(Target(name, None, "A not measured"))
    else:
        r, c = got
        assert c.seconds is not None
        pure = [p.id for p in chosen if p.pure_python and p.id != "jsonsnap"]
        times = [(usable_time(r.cell(pid)), pid) for pid in pure]
        speedups = [(pt / c.seconds, pid) for pt, pid in times if pt is not None]
        if not speedups:
            out.append(Target(name, None, "no pure-Python peer measured"))
        else:
            worst, who = min(speedups)
            listing = ", ".join(f"{pid} {fmt_ratio(s)}" for s, pid in sorted(speedups))
            out.append(
                Target(name, worst >= 3, f"slowest margin {fmt_ratio(worst)} ({who}); {listing}")
            )

    goals.vs_loads("C 20,000 total <= 5x json.loads", "C 20,000", 5)
    goals.vs_loads("D total <= 20x json.loads", "D deep 500", 20)
    goals.vs_loads("E total <= 50x json.loads", "E escapes 100 KB", 50)
    goals.vs_loads("F total <= 100x json.loads", "F 1-char 100 KB", 100)

    got = goals.snap("F 1-char 100 KB")
    name = "F linear (slope of time vs chars fed, 10% -> 100%, <= 1.1)"
    if got is None or got[1].internal_exponent is None:
        out.append(Target(name, None, "F not measured"))
    else:
        e = got[1].internal_exponent
        out.append(Target(name, e <= 1.1, f"{e:.3f}"))

    shot = next((s for s in shots if s.peer == "jsonsnap"), None)
    name = "one-shot parse_partial of truncated 1 MB <= 3x json.loads"
    if shot is None or shot.ratio is None:
        out.append(Target(name, None, "not measured"))
    else:
        b = by_name["B 1 MB"].baseline
        out.append(
            Target(
                name,
                shot.ratio <= 3,
                f"{fmt_ratio(shot.ratio)} ({fmt_time(shot.seconds)} vs json.loads "
                f"{fmt_time(b.seconds)}); value: {shot.shows}",
            )
        )

    got = goals.snap("B 1 MB")
    name = "B 1 MB peak memory <= 2x json.loads's"
    if got is None or got[1].peak is None:
        out.append(Target(name, None, "not measured"))
    else:
        r, c = got
        assert c.peak is not None
        ratio = c.peak / r.baseline.peak
        out.append(
            Target(
                name,
                ratio <= 2,
                f"{fmt_ratio(ratio)} ({fmt_bytes(c.peak)} vs {fmt_bytes(r.baseline.peak)})",
            )
        )

    goals.correct("jsonsnap's final value == json.loads on every workload")
    return out


def compiled_targets(results: list[WorkloadResult], rows: list[Growth]) -> list[Target]:
    """The targets of the compiled build, from its cells (``jsonsnap-compiled``)."""
    goals = Goals(results, rows, COMPILED, "compiled: ")
    goals.vs_reference("A tool call", "A", 2, stretch=1.5)
    goals.vs_loads("C 20,000 total <= 5x json.loads", "C 20,000", 5, stretch=3)
    goals.vs_loads("D total <= 10x json.loads", "D deep 500", 10)
    goals.vs_loads("E total <= 40x json.loads", "E escapes 100 KB", 40)
    goals.vs_loads("F total <= 50x json.loads", "F 1-char 100 KB", 50)
    goals.vs_loads("B 1 MB total <= 30x json.loads", "B 1 MB", 30)
    goals.faster_than_reference("B 1 MB", 300)
    goals.growth(1.1)
    goals.correct("final value == json.loads on every workload")
    return goals.out


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


#: The workloads of the table of Python versions, by name, and their short headings.
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


# --------------------------------------------------------------------------- the compiled build


class CompiledBuild(Peer):
    """The compiled build's row in the parser table; its cells come from a :class:`Worker`."""

    id = COMPILED
    distribution = "jsonsnap"
    model = "incremental"
    pure_python = False
    notes = (
        "the same source compiled with mypyc (compiled build), measured in its own process in "
        "the same run"
    )

    def __init__(self, version: str) -> None:
        super().__init__()
        self._version = version

    def version(self) -> str:
        return self._version


def build_problem(expected: str, folder: Path | None = None) -> str | None:
    """What is wrong with the jsonsnap imported here when it is not the ``expected`` build
    (imported from ``folder``, when given); ``None`` when it is."""
    where = Path(jsonsnap.__file__ or "").resolve().parent
    if jsonsnap.__build__ != expected:
        return f"jsonsnap is the {jsonsnap.__build__} build ({where}), not the {expected} build"
    if folder is not None and not where.is_relative_to(folder.resolve()):
        return f"jsonsnap was imported from {where}, not from {folder}"
    return None


def fingerprint(wls: Sequence[Workload]) -> str:
    """A digest of the workloads' names, texts and cut points: the same in two processes when
    they stream the same fragments."""
    digest = hashlib.sha256()
    for wl in wls:
        digest.update(wl.name.encode() + b"\0" + wl.text.encode() + b"\0")
        digest.update(",".join(str(len(f)) for f in wl.fragments).encode() + b"\1")
    return digest.hexdigest()


def worker(spec: str) -> int:
    """``run.py --worker SPEC``: measure the jsonsnap peer (the compiled build in
    ``SPEC["dir"]``, which must be the one imported) on each workload named by a line of
    standard input; answer one JSON line per request on standard output (the cell, or
    ``{"error": ...}``). The first line says it is ready, or why not."""
    config: dict[str, Any] = json.loads(spec)
    replies = sys.stdout
    sys.stdout = sys.stderr  # standard output carries the replies only

    def reply(message: dict[str, Any]) -> None:
        replies.write(json.dumps(message) + "\n")
        replies.flush()

    problem = build_problem("compiled", Path(config["dir"]))
    if problem is not None:
        reply({"error": problem})
        return 1
    settings = Settings(**config["settings"])
    wls = workloads_module.build(quick=settings.quick, groups=config["groups"])
    by_name = {wl.name: wl for wl in wls}
    peer = peers_module.Jsonsnap()
    reply(
        {
            "jsonsnap": str(Path(jsonsnap.__file__ or "").resolve().parent),
            "version": jsonsnap.__version__,
            "fingerprint": fingerprint(wls),
        }
    )
    for line in sys.stdin:
        name = line.rstrip("\n")
        wl = by_name.get(name)
        if wl is None:
            reply({"error": f"no workload named {name!r} here"})
            continue
        try:
            expected = json.loads(wl.text)
            cell = measure_cell(peer, wl, expected, Prefixes.of(wl.fragments), settings)
        except Exception as exc:  # measure_cell reports the parser's own errors in the cell
            reply({"error": f"{name}: {describe_error(exc)}"})
            continue
        reply({"cell": asdict(cell)})
    return 0


class WorkerError(Exception):
    """The compiled build's worker failed, or answered with an error."""


class Worker:
    """The worker process that measures the compiled build in ``folder`` (``run.py --worker``,
    with ``folder`` and the benchmarks first on its ``PYTHONPATH``)."""

    def __init__(self, folder: Path, settings: Settings, groups: Sequence[str]) -> None:
        self.folder = folder
        self.hello: dict[str, Any] = {}
        spec = {"dir": str(folder.resolve()), "settings": asdict(settings), "groups": list(groups)}
        path = [str(folder.resolve()), str(BENCH), os.environ.get("PYTHONPATH", "")]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, path)),
            "JSONSNAP_EXPECT_BUILD": "compiled",
        }
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(spec)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
            env=env,
        )

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        self.close(kill=kind is not None)

    def receive(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            status = self.proc.wait()
            raise WorkerError(f"the worker stopped (exit status {status}); see its output above")
        reply: dict[str, Any] = json.loads(line)
        if "error" in reply:
            raise WorkerError(str(reply["error"]))
        return reply

    def ready(self, wls: Sequence[Workload]) -> dict[str, Any]:
        """Wait for the worker to have built its workloads; they must be this process's."""
        self.hello = self.receive()
        if self.hello.get("fingerprint") != fingerprint(wls):
            raise WorkerError("the worker did not build the same workloads as this process")
        return self.hello

    def measure(self, wl: Workload) -> Cell:
        """The compiled build's cell on ``wl``."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(wl.name + "\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise WorkerError(f"the worker does not listen: {describe_error(exc)}") from exc
        cell = Cell(**self.receive()["cell"])
        cell.peer = COMPILED
        return cell

    def close(self, kill: bool = False) -> None:
        """End the worker: at once when ``kill``, else once it has read the end of its input."""
        if self.proc.poll() is None:
            try:
                if kill:
                    self.proc.kill()
                elif self.proc.stdin is not None:
                    self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()


# --------------------------------------------------------------------------- driver


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def measure_baseline(wl: Workload, settings: Settings) -> Baseline:
    text = wl.text
    timing = best_time(lambda: json.loads(text), settings, runs=max(5, settings.repeat))
    return Baseline(timing.best, timing.loops, traced_peak(lambda: json.loads(text)))


def chart(results: list[WorkloadResult], rows: list[Growth], path: Path) -> str:
    """Log-log chart of total time against document size for the B workloads."""
    try:
        matplotlib: Any = __import__("matplotlib")
        matplotlib.use("Agg")
        plt: Any = __import__("matplotlib.pyplot", fromlist=["pyplot"])
    except Exception as exc:
        return f"no chart ({describe_error(exc)})"
    b = sorted((r for r in results if r.workload.group == "B"), key=lambda r: r.workload.size)
    if len(b) < 2:
        return "no chart (needs at least two B sizes)"
    fig, ax = plt.subplots(figsize=(9, 6.5))
    sizes = [r.workload.size for r in b]
    ax.plot(
        sizes,
        [r.baseline.seconds for r in b],
        color="black",
        linestyle=":",
        marker="s",
        label="json.loads (complete document, once)",
    )
    cmap = plt.get_cmap("tab20")
    for i, g in enumerate(rows):
        if not g.points:
            continue
        color = cmap(i % 20)
        width = 2.8 if g.peer in ("jsonsnap", COMPILED) else 1.4
        if g.exponent is None:
            label = g.peer
        else:
            label = f"{g.peer} (slope {'~' if g.projected else ''}{g.exponent:.2f})"
        for (x0, y0, p0), (x1, y1, p1) in zip(g.points, g.points[1:], strict=False):
            ax.plot(
                [x0, x1],
                [y0, y1],
                color=color,
                linewidth=width,
                linestyle="--" if p0 or p1 else "-",
            )
        ax.plot([], [], color=color, linewidth=width, label=label)
        measured = [(x, y) for x, y, p in g.points if not p]
        guessed = [(x, y) for x, y, p in g.points if p]
        if measured:
            ax.scatter(*zip(*measured, strict=True), color=color, s=30, zorder=3)
        if guessed:
            ax.scatter(
                *zip(*guessed, strict=True), facecolors="none", edgecolors=[color], s=50, zorder=3
            )
    ax.scatter([], [], facecolors="none", edgecolors="grey", label="projected (dashed)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("document size (bytes)")
    ax.set_ylabel("total time to stream with a snapshot per fragment (s)")
    ax.set_title("B: file write in 16-64 char fragments")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return f"chart written to {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}"


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
            f"checking, {TOLERANT} for tolerant mode (default: all)"
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
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def show_cell(cell: Cell, took: float) -> None:
    """One progress line for a measured cell."""
    if cell.status in ("crashed", "timeout"):
        shown = cell.status
    elif cell.seconds is not None:
        shown = fmt_time(cell.seconds)
    else:
        shown = f"skipped, ~{fmt_time(cell.projected)}"
    verdict = "" if cell.status == "ok" else f"  [{cell.status}: {cell.detail}]"
    progress(f"  {cell.peer:<24} {shown:>24}  ({took:.1f} s){verdict}")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.worker is not None:
        return worker(args.worker)
    quick = bool(args.quick)

    def pick(given: float | None, full: float, small: float) -> float:
        return given if given is not None else (small if quick else full)

    settings = Settings(
        budget=pick(args.budget, 30.0, 2.0),
        repeat=max(1, args.repeat),
        probe=pick(args.probe, 0.5, 0.25),
        memory_limit=pick(args.memory_limit, 15.0, 3.0),
        quick=quick,
    )
    known = [*workloads_module.GROUPS, HOSTILE, SCHEMA, TOLERANT]
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
    unavailable = [p for p in chosen if not p.available()]
    chosen = [p for p in chosen if p.available()]

    folder: Path | None = args.compiled
    # With --compiled, this process measures the pure build; else the one JSONSNAP_EXPECT_BUILD
    # names, when set (dev.py sets it).
    expected_build = "pure" if folder is not None else os.environ.get("JSONSNAP_EXPECT_BUILD")
    problem = build_problem(expected_build) if expected_build else None
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if folder is not None and not folder.is_dir():
        print(f"error: --compiled {folder}: no such directory", file=sys.stderr)
        return 2

    progress("generating workloads ...")
    wls = workloads_module.build(quick=settings.quick, groups=groups)
    if args.list:
        for w in wls:
            print(f"{w.name:<18} {w.size:>11,} bytes {len(w.fragments):>9,} fragments")
        if HOSTILE in groups:
            for h in hostile_module.workloads(quick=settings.quick):
                print(f"{HOSTILE} {h.name:<24} N = {h.n:>9,} {h.unit}")
        for p in everyone:
            state = "available" if p.available() else f"unavailable ({p.reason})"
            print(f"{p.id:<24} {p.model:<12} {state}")
        return 0

    with_compiled = folder is not None and bool(wls) and any(p.id == "jsonsnap" for p in chosen)
    if folder is not None and not with_compiled:
        progress(
            "--compiled: the compiled build is measured beside the jsonsnap peer on groups A-F, "
            f"and {'no group A-F' if not wls else 'not the jsonsnap peer'} is run here"
        )
    # Before the run: the revision measured, not the one at the end.
    info = machine(folder if with_compiled else None)
    listed = list(chosen)  # the parser table: with the compiled build after jsonsnap
    started = clock()
    results: list[WorkloadResult] = []
    with contextlib.ExitStack() as stack:
        compiled: Worker | None = None
        if with_compiled:
            assert folder is not None
            progress(f"starting the worker for the compiled build in {shown_path(folder)} ...")
            compiled = stack.enter_context(Worker(folder, settings, groups))
        try:
            if compiled is not None:
                hello = compiled.ready(wls)
                progress(f"  the compiled build: jsonsnap from {hello['jsonsnap']}")
                at = next(i for i, p in enumerate(listed) if p.id == "jsonsnap")
                pure = listed[at]
                pure.notes = f"the pure build (the source), in this process: {pure.notes}"
                listed.insert(at + 1, CompiledBuild(str(hello["version"])))
            for wl in wls:
                progress(f"{wl.name}: {wl.size:,} bytes, {len(wl.fragments):,} fragments")
                expected = json.loads(wl.text)
                base = measure_baseline(wl, settings)
                progress(f"  json.loads: {fmt_time(base.seconds)}")
                result = WorkloadResult(wl, base)
                prefixes = Prefixes.of(wl.fragments)
                for peer in chosen:
                    t0 = clock()
                    cell = measure_cell(peer, wl, expected, prefixes, settings)
                    result.cells.append(cell)
                    show_cell(cell, clock() - t0)
                    if peer.id == "jsonsnap" and compiled is not None:
                        t0 = clock()
                        cell = compiled.measure(wl)
                        result.cells.append(cell)
                        show_cell(cell, clock() - t0)
                results.append(result)
                print(table(result), flush=True)
        except WorkerError as exc:
            assert folder is not None
            print(f"error: the compiled build ({shown_path(folder)}): {exc}", file=sys.stderr)
            return 1

    rows = growth(results, [p.id for p in listed])
    sections: list[str] = [table(r) for r in results]
    side_by_side = builds_table(results)
    if side_by_side is not None:
        sections.append(side_by_side)
        print(sections[-1], flush=True)
    if rows:
        sections.append(growth_table(rows, results))
        print(sections[-1], flush=True)

    shots: list[OneShot] = []
    big = next((r for r in results if r.workload.name == "B 1 MB"), None)
    if big is not None:
        progress("one-shot on the truncated 1 MB document ...")
        shots = one_shots(big.workload, big.baseline, chosen, settings)
        sections.append(one_shot_table(big.workload, big.baseline, shots))
        print(sections[-1], flush=True)

    memory_lines: list[str] = []
    if big is not None:
        c = big.cell("jsonsnap")
        if c is not None and c.peak is not None:
            memory_lines = [
                "### Memory: B 1 MB",
                "",
                f"jsonsnap's peak while streaming: {fmt_bytes(c.peak)}; `json.loads` of the "
                f"complete document: {fmt_bytes(big.baseline.peak)} "
                f"(ratio {fmt_ratio(c.peak / big.baseline.peak)}).",
                "",
            ]
            sections.append("\n".join(memory_lines))
            print(sections[-1], flush=True)

    hostile: list[hostile_module.Growth] = []
    if HOSTILE in groups and any(p.id == "jsonsnap" for p in chosen):
        progress("hostile inputs (benchmarks/hostile.py) ...")
        cap = hostile_module.QUICK_CAP if settings.quick else hostile_module.CAP
        hostile = hostile_module.measure_all(
            hostile_module.workloads(quick=settings.quick),
            cap=cap,
            progress=progress,
        )
        sections.append(hostile_module.section(hostile, cap))
        print(sections[-1], flush=True)
        if folder is not None:
            progress("hostile inputs on the compiled build (benchmarks/hostile.py --compiled) ...")
            hostile_compiled = hostile_module.measure_compiled(
                folder, quick=settings.quick, cap=cap, progress=progress
            )
            sections.append(hostile_module.section(hostile_compiled, cap, build="compiled"))
            print(sections[-1], flush=True)
            hostile = hostile + [
                dataclasses.replace(g, name=f"{g.name} (compiled)") for g in hostile_compiled
            ]
        sections.append(edges_module.memory_section())
        print(sections[-1], flush=True)

    checked: list[schema_module.Row] = []
    if SCHEMA in groups and any(p.id == "jsonsnap" for p in chosen):
        progress("schema checking (benchmarks/schema.py) ...")
        checked = schema_module.measure(quick=settings.quick, progress=progress)
        sections.append(schema_module.section(checked))
        print(sections[-1], flush=True)

    tolerant: tolerant_module.Results | None = None
    if TOLERANT in groups and any(p.id == "jsonsnap" for p in chosen):
        progress("tolerant mode (benchmarks/tolerant.py) ...")
        tolerant = tolerant_module.measure(
            quick=settings.quick,
            budget=settings.budget,
            probe=settings.probe,
            versus=any(p.id == "json-repair" for p in chosen),
            progress=progress,
        )
        sections.append(tolerant_module.section(tolerant))
        print(sections[-1], flush=True)

    goals = targets(results, rows, shots, chosen)
    name = f"hostile inputs: growth exponent N -> 4N <= {hostile_module.LIMIT:g} on every one"
    if hostile:
        passed, text = hostile_module.summary(hostile)
        goals.append(Target(name, passed, text))
    else:
        goals.append(Target(name, None, "not run"))
    name = "schema checking: checked / plain, B 1 MB <= 1.5x and C 20,000 <= 2x"
    if checked:
        passed, text = schema_module.summary(checked)
        goals.append(Target(name, passed, text))
    else:
        goals.append(Target(name, None, "not run"))
    name = (
        f"tolerant mode: tolerant / strict <= {tolerant_module.LIMIT:g}x (A, B 10 KB, B 100 KB, "
        f"C), growth exponent B 10 KB -> 1 MB <= {tolerant_module.GROWTH_LIMIT:g} (valid and "
        "spoiled)"
    )
    if tolerant is not None:
        passed, text = tolerant_module.summary(tolerant)
        goals.append(Target(name, passed, text))
    else:
        goals.append(Target(name, None, "not run"))
    builds = [jsonsnap.__build__]
    if any(r.cell(COMPILED) is not None for r in results):
        builds.append("compiled")
        for t in goals:
            t.name += f" ({jsonsnap.__build__} build)"
        goals += compiled_targets(results, rows)
    target_text = "\n".join(t.line() for t in goals)
    print("### Targets\n\n```\n" + target_text + "\n```\n", flush=True)
    elapsed = clock() - started
    progress(f"done in {elapsed / 60:.1f} min")

    out_dir: Path | None = None
    if not args.no_write and (args.out is not None or not settings.quick):
        out_dir = args.out if args.out is not None else ROOT / "docs"
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        drawn = chart(results, rows, out_dir / "benchmarks.png")
        md = report(
            info,
            settings,
            listed,
            unavailable,
            sections,
            target_text,
            elapsed,
            drawn.startswith("chart"),
        )
        data = {
            "machine": info,
            "settings": asdict(settings),
            "builds": builds,
            "parsers": [peer_info(p) for p in listed + unavailable],
            "workloads": [
                {
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
                for r in results
            ],
            "growth": [asdict(g) for g in rows],
            "one_shot": [asdict(s) for s in shots],
            "hostile": [asdict(g) for g in hostile],
            "schema": [asdict(r) for r in checked],
            "tolerant": asdict(tolerant) if tolerant is not None else None,
            "targets": [asdict(t) for t in goals],
            "elapsed_seconds": elapsed,
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
    return 0


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


def report(
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


if __name__ == "__main__":
    sys.exit(main())

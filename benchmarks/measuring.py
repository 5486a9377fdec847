"""Measuring one parser on one workload: timers, the probe, the cell of a table, correctness.

:func:`measure_cell` is the method of ``benchmarks/README.md``: probe the stream with a timer
around every fragment; a parser that did not finish within the probe has its total projected
(``projection.py``) and is skipped past the budget, else run once in full; a fast one is timed
in loops without per-fragment timers. Its final value is compared with ``json.loads`` exactly
(:func:`diff`), and its peak memory traced in a separate run. ``run.py`` and ``compiled.py``
(the compiled build's worker) measure every cell this way; ``tolerant.py`` measures json_repair
so too.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import math
import signal
import statistics
import sys
import time
import tracemalloc
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from formatting import fmt_time
from peers import Peer
from projection import Prefixes, project_fit, project_reparse
from workloads import Workload, truncated

clock = time.perf_counter
COMPILED = "jsonsnap-compiled"
"""The peer of the compiled build's cells, measured by a worker process (``compiled.py``)."""


def progress(text: str) -> None:
    """A line of progress, on standard error."""
    print(text, file=sys.stderr, flush=True)


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


# --------------------------------------------------------------------------- timers


class Timeout(Exception):
    """A run outlived its deadline."""


@contextlib.contextmanager
def deadline(seconds: float, make: Callable[[], BaseException] | None = None) -> Iterator[None]:
    """Raise ``make()`` (a :class:`Timeout` by default) in the block after ``seconds`` of wall
    time (where ``setitimer`` exists). A real-time timer: arming a CPU-time one
    (``ITIMER_PROF``) makes ``process_time()`` tick-grained (4 ms) for the rest of the process
    on some Linux VMs."""
    if not hasattr(signal, "setitimer"):
        yield
        return

    def on_alarm(signum: int, frame: types.FrameType | None) -> None:
        raise make() if make is not None else Timeout(f"still running after {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


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


SAMPLE = 0.05
"""In :class:`Rounds`, a call is looped until one sample lasts at least this many seconds."""


def _loops(func: Callable[[], object]) -> int:
    """How many calls make a sample of at least :data:`SAMPLE` seconds (one call warms up)."""
    gc.collect()
    start = clock()
    func()
    return max(1, math.ceil(SAMPLE / max(clock() - start, 1e-7)))


def _timed(func: Callable[[], object], loops: int) -> float:
    """Seconds per call over ``loops`` calls."""
    gc.collect()
    start = clock()
    for _ in range(loops):
        func()
    return (clock() - start) / loops


class Rounds:
    """Functions timed in interleaved rounds (each in turn, so that all see the same machine),
    each call looped to last a sample of at least :data:`SAMPLE` seconds, and the best time of
    each so far."""

    def __init__(self, runs: list[Callable[[], object]]) -> None:
        self.runs = runs
        self.loops = [_loops(run) for run in runs]
        self.best = [math.inf] * len(runs)

    def take(self, rounds: int) -> None:
        """``rounds`` more rounds, each timing every function in turn."""
        for _ in range(rounds):
            for i, run in enumerate(self.runs):
                self.best[i] = min(self.best[i], _timed(run, self.loops[i]))


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
            cell.projected = project_reparse(peer, wl.text, prefixes, prof.times, settings.probe)
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


# --------------------------------------------------------------------------- workloads


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


def usable_time(c: Cell | None) -> float | None:
    """The time of a cell (measured or projected), ``None`` when it crashed or timed out."""
    if c is None or c.status in ("crashed", "timeout"):
        return None
    return c.time


def measure_baseline(wl: Workload, settings: Settings) -> Baseline:
    text = wl.text
    timing = best_time(lambda: json.loads(text), settings, runs=max(5, settings.repeat))
    return Baseline(timing.best, timing.loops, traced_peak(lambda: json.loads(text)))


@dataclass
class OneShot:
    peer: str
    seconds: float | None
    ratio: float | None
    shows: str


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

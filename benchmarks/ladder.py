"""The growth exponent of one hostile workload, from ``N`` to ``4N``, by a ladder of sizes.

Smaller sizes (``N/64``, ``N/16``, ``N/4``) are run first, to project the time of each next
size from the exponent seen so far: a run projected to take longer than the cap (``CAP`` at
``N``, four times that at ``4N``) is not started, and a run that takes twice its allowance is
cut. The workload then fails, with the exponent measured on the largest sizes run (marked
``~``) or a lower bound (``>=``). Then the best of a few runs at ``N`` and ``4N``, taken in turn
so that a change of load on the machine hits both alike; as many again when the exponent is
just over the limit. Each size's outcome is checked once (the workload's ``check``).
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hostile_inputs import Workload
from measuring import deadline
from projection import exponent

LIMIT = 1.15
"""The largest growth exponent from ``N`` to ``4N`` that passes."""
CAP = 10.0
"""Seconds (CPU) a run at ``N`` may take; a run at ``4N`` may take four times as long."""
QUICK_CAP = 2.0
REPEAT = 5
"""Best of this many runs at each size."""
REPEAT_BUDGET = 3.0
"""Seconds spent at ``N`` or ``4N`` after which a run is not repeated (0.5 s at the smaller
sizes, which only serve to project)."""
BORDERLINE = 0.35
"""An exponent up to this much over the limit is measured again, with twice the runs."""
LADDER = (64, 16, 4)
"""The sizes run before ``N`` (as divisors of ``N``), to project the time of the next one."""

clock = time.process_time


class CapExceeded(BaseException):
    """A run outlived its limit (a ``BaseException``, so that no ``except Exception`` on the
    way swallows it)."""


@dataclass
class Growth:
    """One workload's result."""

    name: str
    description: str
    n: int
    unit: str
    t_n: float | None = None
    t_4n: float | None = None
    exponent: float | None = None
    projected: bool = False
    """``t_n``, ``t_4n`` or ``exponent`` come from smaller sizes (the cap stopped the run)."""
    lower_bound: bool = False
    """``exponent`` is a lower bound (a run was cut)."""
    passed: bool = False
    note: str = ""
    points: list[tuple[int, float, int]] = field(default_factory=list)
    """``(size, best CPU seconds, runs)`` of every size measured."""


Point = tuple[int, float, int]


def _slope(a: Point, b: Point) -> float:
    """The log-log slope of time against size from ``a`` to ``b``."""
    return exponent(a[0], a[1], b[0], b[1])


def _predict(points: list[Point], size: int) -> float | None:
    """The time at ``size`` from the last two sizes' exponent (between 1 and 3), or linearly
    from the last one."""
    if not points:
        return None
    last = points[-1]
    e = 1.0
    if len(points) >= 2:
        e = min(3.0, max(1.0, _slope(points[-2], last)))
    return float(last[1] * (size / last[0]) ** e)


class _Wrong(Exception):
    """A run's outcome is not what ``json.loads`` says."""


class Ladder:
    """The runs of one workload at each size, and what they found (:attr:`result`)."""

    def __init__(
        self, h: Workload, big: int, cap: float, repeat: int, say: Callable[[str], None]
    ) -> None:
        self.h = h
        self.big = big
        self.cap = cap
        self.repeat = max(1, repeat)
        self.say = say
        self.result = Growth(h.name, h.description, big, h.unit)
        self.points = self.result.points
        self.docs: dict[int, Any] = {}
        self.samples: dict[int, list[float]] = {}

    def label(self, size: int) -> str:
        big = self.big
        return "N" if size == big else "4N" if size == 4 * big else f"N/{big // size}"

    def allowance(self, size: int) -> float:
        return self.cap * (4 if size > self.big else 1)

    def once(self, size: int) -> None:
        prepared = self.docs[size]
        # The objects alive before the run (the workload's text, a whole benchmark's data when
        # run.py runs this) are set aside, so that the collections inside the run look at
        # what the run makes, and the time measures the parser, not the caller's heap.
        gc.collect()
        gc.freeze()
        try:
            with deadline(2 * self.allowance(size), CapExceeded):
                start = clock()
                outcome = self.h.run(prepared)
                took = clock() - start
        finally:
            gc.unfreeze()
        if not self.samples[size]:
            problem = self.h.check(size, prepared, outcome)
            if problem is not None:
                raise _Wrong(f"wrong at {self.label(size)} ({size:,} {self.h.unit}): {problem}")
        self.samples[size].append(took)

    def more(self, size: int, budget: float, count: int | None = None) -> bool:
        runs = self.samples[size]
        return len(runs) < (count or self.repeat) and math.fsum(runs) < budget

    def alternate(self, budget: float, count: int) -> None:
        big = self.big
        while self.more(big, budget, count) or self.more(4 * big, budget, count):
            for size in (big, 4 * big):
                if self.more(size, budget, count):
                    self.once(size)

    def point(self, size: int) -> Point:
        return (size, min(self.samples[size]), len(self.samples[size]))

    def show(self, size: int, seconds: float, runs: int) -> None:
        h = self.h
        self.say(
            f"  {h.name:<24} {self.label(size):>5} = {size:>9,} {h.unit:<6} {seconds:9.4f} s "
            f"({runs})"
        )

    def stop(self, note: str) -> Growth:
        """Give up before ``4N``: project ``t(N)``, ``t(4N)`` and the exponent from the
        largest sizes measured."""
        result, points = self.result, self.points
        result.passed = False
        result.note = note
        if len(points) >= 2:
            e = _slope(points[-2], points[-1])
            result.exponent = e
            result.projected = True
            size, seconds, _ = points[-1]
            result.t_n = result.t_n or float(seconds * (self.big / size) ** e)
            result.t_4n = float(result.t_n * 4**e)
        return result

    def climb(self, size: int) -> str | None:
        """Run ``size`` (the smaller ones a few times, to project the next), unless it is
        projected over the cap: then why not."""
        points = self.points
        guess = _predict(points, size)
        if guess is not None and guess > self.allowance(size):
            return (
                f"t({self.label(size)}) projected {guess:.3g} s > cap "
                f"{self.allowance(size):g} s; exponent from "
                f"{self.label(points[-2][0]) if len(points) > 1 else '?'} "
                f"to {self.label(points[-1][0])}"
            )
        self.docs[size] = self.h.prepare(size)
        self.samples[size] = []
        self.once(size)
        while size < self.big and self.more(size, REPEAT_BUDGET / 6):
            self.once(size)
        if size < self.big:
            self.docs.pop(size)
        points.append(self.point(size))
        if size < self.big:
            self.show(*points[-1])
        if size == self.big:
            self.result.t_n = points[-1][1]
        return None

    def measure(self, limit: float) -> Growth:
        """The whole ladder, then ``N`` and ``4N`` in turn; the result."""
        big, result, points = self.big, self.result, self.points
        sizes = sorted({max(1, big // d) for d in LADDER} | {big, 4 * big})
        current = sizes[0]
        try:
            for current in sizes:
                stopped = self.climb(current)
                if stopped is not None:
                    return self.stop(stopped)
            # The best of a few runs at N and 4N, taken in turn; as many again when the
            # exponent is just over the limit (where a burst of load elsewhere can put it).
            current = 4 * big
            self.alternate(REPEAT_BUDGET, self.repeat)
            first = _slope(self.point(big), self.point(4 * big))
            if limit < first <= limit + BORDERLINE:
                self.alternate(3 * REPEAT_BUDGET, 2 * self.repeat)
                result.note = f"measured again: {first:.2f} after the first runs"
        except CapExceeded:
            result.passed = False
            if points and points[-1][0] < current:
                result.lower_bound = True
                result.exponent = _slope(points[-1], (current, 2 * self.allowance(current), 1))
            result.note = (
                f"run at {self.label(current)} cut after {2 * self.allowance(current):g} s"
            )
            return result
        except _Wrong as exc:
            result.passed = False
            result.note = str(exc)
            return result
        return self.finish(limit)

    def finish(self, limit: float) -> Growth:
        """The exponent from the best runs at ``N`` and ``4N``."""
        big, result, points = self.big, self.result, self.points
        points[-2:] = [self.point(big), self.point(4 * big)]
        self.show(*points[-2])
        self.show(*points[-1])
        result.t_n = points[-2][1]
        result.t_4n = points[-1][1]
        result.exponent = _slope(points[-2], points[-1])
        result.passed = result.exponent <= limit
        if result.t_n < 0.02:
            result.note = "; ".join(
                filter(None, [result.note, "t(N) under 20 ms: noisy (raise N with --scale)"])
            )
        return result


def measure(
    h: Workload,
    *,
    n: int | None = None,
    cap: float = CAP,
    repeat: int = REPEAT,
    limit: float = LIMIT,
    progress: Callable[[str], None] | None = None,
) -> Growth:
    """The growth exponent of ``h`` from ``n`` (default ``h.n``) to ``4n``; see the module
    documentation for the ladder of sizes and the cap."""
    big = h.n if n is None else n
    return Ladder(h, big, cap, repeat, progress or (lambda text: None)).measure(limit)


def measure_all(
    chosen: Sequence[Workload],
    *,
    cap: float = CAP,
    repeat: int = REPEAT,
    limit: float = LIMIT,
    scale: float = 1.0,
    progress: Callable[[str], None] | None = None,
) -> list[Growth]:
    """:func:`measure` each workload in turn (``scale`` multiplies every ``N``)."""
    return [
        measure(
            h,
            n=max(1, round(h.n * scale)),
            cap=cap,
            repeat=repeat,
            limit=limit,
            progress=progress,
        )
        for h in chosen
    ]

"""The targets of ``run.py``: PASS/FAIL lines checked from the cells of the same run.

:class:`Goals` holds the checks on the cells of one build (the pure build's ``jsonsnap``, or
``jsonsnap-compiled``); :func:`targets` and :func:`compiled_targets` are the lines of each
build, :func:`group_targets` the one line of each group ``H``, ``S`` and ``R``. A target whose
workloads were not run is ``N/A``.
"""

from __future__ import annotations

from dataclasses import dataclass

import hostile as hostile_module
import ladder
import schema as schema_module
import tolerant as tolerant_module
from formatting import fmt_bytes, fmt_ratio, fmt_time
from measuring import COMPILED, Cell, OneShot, WorkloadResult, usable_time
from peers import Peer
from report import REFERENCE, Growth


@dataclass
class Target:
    name: str
    passed: bool | None
    text: str

    def line(self) -> str:
        word = {True: "PASS", False: "FAIL", None: "N/A "}[self.passed]
        return f"{word}  {self.name}: {self.text}"


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

    def faster_than_pure_python(self, wname: str, factor: float, chosen: list[Peer]) -> None:
        """Every pure-Python peer at least ``factor`` times slower on ``wname``."""
        name = f"A >= {factor:g}x faster than every pure-Python peer"
        got = self.snap(wname)
        if got is None:
            self.add(name, None, "A not measured")
            return
        r, c = got
        assert c.seconds is not None
        pure = [p.id for p in chosen if p.pure_python and p.id != "jsonsnap"]
        times = [(usable_time(r.cell(pid)), pid) for pid in pure]
        speedups = [(pt / c.seconds, pid) for pt, pid in times if pt is not None]
        if not speedups:
            self.add(name, None, "no pure-Python peer measured")
            return
        worst, who = min(speedups)
        listing = ", ".join(f"{pid} {fmt_ratio(s)}" for s, pid in sorted(speedups))
        self.add(name, worst >= factor, f"slowest margin {fmt_ratio(worst)} ({who}); {listing}")

    def linear(self, wname: str, limit: float) -> None:
        """The slope of cumulative time against characters fed on ``wname`` (10% -> 100%)."""
        got = self.snap(wname)
        name = f"F linear (slope of time vs chars fed, 10% -> 100%, <= {limit:g})"
        if got is None or got[1].internal_exponent is None:
            self.add(name, None, "F not measured")
            return
        e = got[1].internal_exponent
        self.add(name, e <= limit, f"{e:.3f}")

    def one_shot(self, shots: list[OneShot], limit: float) -> None:
        """``parse_partial`` of the truncated B 1 MB at most ``limit`` times ``json.loads``."""
        shot = next((s for s in shots if s.peer == self.peer), None)
        name = f"one-shot parse_partial of truncated 1 MB <= {limit:g}x json.loads"
        if shot is None or shot.ratio is None:
            self.add(name, None, "not measured")
            return
        b = self.by_name["B 1 MB"].baseline
        self.add(
            name,
            shot.ratio <= limit,
            f"{fmt_ratio(shot.ratio)} ({fmt_time(shot.seconds)} vs json.loads "
            f"{fmt_time(b.seconds)}); value: {shot.shows}",
        )

    def peak(self, wname: str, limit: float) -> None:
        """The traced peak on ``wname`` at most ``limit`` times ``json.loads``'s."""
        got = self.snap(wname)
        name = f"{wname} peak memory <= {limit:g}x json.loads's"
        if got is None or got[1].peak is None:
            self.add(name, None, "not measured")
            return
        r, c = got
        assert c.peak is not None
        ratio = c.peak / r.baseline.peak
        self.add(
            name,
            ratio <= limit,
            f"{fmt_ratio(ratio)} ({fmt_bytes(c.peak)} vs {fmt_bytes(r.baseline.peak)})",
        )

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
    goals.vs_loads("B 1 MB total <= 30x json.loads", "B 1 MB", 30)
    goals.faster_than_reference("B 1 MB", 300)
    goals.growth(1.1)
    goals.vs_reference("A tool call", "A", 1.5)
    goals.faster_than_pure_python("A tool call", 3, chosen)
    goals.vs_loads("C 20,000 total <= 5x json.loads", "C 20,000", 5)
    goals.vs_loads("D total <= 20x json.loads", "D deep 500", 20)
    goals.vs_loads("E total <= 50x json.loads", "E escapes 100 KB", 50)
    goals.vs_loads("F total <= 100x json.loads", "F 1-char 100 KB", 100)
    goals.linear("F 1-char 100 KB", 1.1)
    goals.one_shot(shots, 3)
    goals.peak("B 1 MB", 2)
    goals.correct("jsonsnap's final value == json.loads on every workload")
    return goals.out


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


def group_targets(
    hostile: list[ladder.Growth],
    checked: list[schema_module.Row],
    tolerant: tolerant_module.Results | None,
) -> list[Target]:
    """One line for each of the groups ``H``, ``S`` and ``R`` (``not run``: empty, or
    ``None``)."""
    out: list[Target] = []
    name = f"hostile inputs: growth exponent N -> 4N <= {ladder.LIMIT:g} on every one"
    out.append(Target(name, *hostile_module.summary(hostile)) if hostile else missing(name))
    name = "schema checking: checked / plain, A, B 1 MB, C 20,000 (see benchmarks/schema.py)"
    out.append(Target(name, *schema_module.summary(checked)) if checked else missing(name))
    name = (
        f"tolerant mode: tolerant / strict <= {tolerant_module.LIMIT:g}x (A, B 10 KB, B 100 KB, "
        f"C), growth exponent B 10 KB -> 1 MB <= {tolerant_module.GROWTH_LIMIT:g} (valid and "
        "spoiled)"
    )
    found = tolerant_module.summary(tolerant) if tolerant is not None else None
    out.append(Target(name, *found) if found is not None else missing(name))
    return out


def missing(name: str) -> Target:
    """The line of a group that was not run."""
    return Target(name, None, "not run")

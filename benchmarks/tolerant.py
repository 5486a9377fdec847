"""What tolerant mode costs: the same stream parsed strict and with ``repair=True``, and beside
json_repair re-parsing its buffer.

    python benchmarks/tolerant.py            # A, B 10 KB to 1 MB, C 2,000 and 20,000
    python benchmarks/tolerant.py --quick    # A, B 10 KB and C 2,000

Streams the documents of workloads A (a ~300-byte tool call), B (a file write) and C (an array
of records) through ``jsonsnap.Parser()`` and through ``jsonsnap.Parser(repair=True)``, a
snapshot after each fragment, in interleaved rounds (strict, tolerant, strict, tolerant...) so
that both see the same machine. Reports the best time of each, the ratio of tolerant to strict
(target: at most 1.3x on A, B 10 KB, B 100 KB and C; a workload over it is measured again with
twice the rounds, as a burst of load elsewhere can put it there) and both against one
``json.loads`` of the document.

Each B document is also written *spoiled*, as a lenient writer might send it: single quotes, a
``// comment`` line, a trailing comma and raw newlines inside the content string (the same
value: checked). The tolerant parser streams it in the same rounds, and the growth exponent
``log(t(1 MB) / t(10 KB)) / log(n(1 MB) / n(10 KB))`` of the tolerant parser is checked on the
valid and on the spoiled documents (target: at most 1.1 on both; over it, the B workloads are
measured again with twice the rounds).

Last, at B 10 KB and 100 KB, valid and spoiled, json_repair is run as its users run it on a
stream, ``repair_json(buffer_so_far, return_objects=True)`` after every fragment. It re-parses
the buffer, so its time grows quadratically: as in ``run.py`` (``measuring.py``), it is
probed, its total projected, and skipped (the projection shown with ``~``) past the budget.
``run.py`` includes this as group ``R``.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import jsonsnap
import peers as peers_module
import workloads as workloads_module
from builds import require_build
from formatting import cell_text, fmt_ratio, fmt_time
from measuring import Rounds, Settings, diff, measure_cell
from projection import Prefixes, exponent
from workloads import Workload, spoiled

clock = time.perf_counter

LIMIT = 1.3
"""The largest tolerant/strict ratio that passes."""
GROWTH_LIMIT = 1.1
"""The largest growth exponent of the tolerant parser on B (10 KB -> 1 MB) that passes."""
UNTARGETED = ("B 1 MB",)
"""Workloads measured for the growth only: their ratio is shown, not checked."""
VERSUS = ("B 10 KB", "B 100 KB")
"""The workloads where json_repair is run (valid and spoiled)."""


# --------------------------------------------------------------------------- measuring


@dataclass
class Row:
    workload: str
    size: int
    """Bytes of the (valid) document."""
    loads: float
    strict: float
    tolerant: float
    limit: float | None
    """``None``: shown, not checked."""
    spoiled: float | None = None
    """The tolerant parser on the spoiled document (B only)."""
    spoiled_size: int | None = None
    again: bool = False
    """Measured again with twice as many rounds (best of all): over the limit after the
    rounds, or a growth over its limit."""

    @property
    def ratio(self) -> float:
        return self.tolerant / self.strict

    @property
    def passed(self) -> bool:
        return self.limit is None or self.ratio <= self.limit


@dataclass
class Growth:
    document: str
    """``"valid"`` or ``"spoiled"``: the B documents the tolerant parser streamed."""
    points: list[tuple[int, float]]
    """(document bytes, seconds) for each B size, smallest first."""
    limit: float
    again: bool = False
    """Over the limit after the rounds: every B workload measured again with twice as many."""

    @property
    def exponent(self) -> float | None:
        """From the smallest to the largest size (``None`` with fewer than two)."""
        if len(self.points) < 2:
            return None
        (n1, t1), (n2, t2) = self.points[0], self.points[-1]
        return exponent(n1, t1, n2, t2)

    @property
    def steps(self) -> list[float]:
        """The exponent from each size to the next."""
        return [exponent(n1, t1, n2, t2) for (n1, t1), (n2, t2) in itertools.pairwise(self.points)]

    @property
    def passed(self) -> bool | None:
        e = self.exponent
        return None if e is None else e <= self.limit


@dataclass
class Versus:
    """json_repair beside the tolerant parser on one document."""

    workload: str
    document: str
    """``"valid"`` or ``"spoiled"``."""
    tolerant: float
    """jsonsnap tolerant, best time (from the interleaved rounds)."""
    status: str
    """As in ``run.py``: ``ok``, ``wrong``, ``crashed``, ``timeout`` or ``skipped``."""
    detail: str
    seconds: float | None
    """json_repair's measured total."""
    projected: float | None
    """json_repair's projected total, when its first fragments took longer than the probe."""
    correct: bool | None
    correct_note: str

    @property
    def time(self) -> float | None:
        if self.status in ("crashed", "timeout"):
            return None
        return self.seconds if self.seconds is not None else self.projected

    @property
    def is_projected(self) -> bool:
        return self.seconds is None and self.projected is not None

    @property
    def ratio(self) -> float | None:
        """json_repair's time over jsonsnap tolerant's."""
        t = self.time
        return None if t is None else t / self.tolerant


@dataclass
class Results:
    rows: list[Row]
    growth: list[Growth]
    versus: list[Versus]
    repairs: dict[str, int] = field(default_factory=dict)
    """Repair kinds (and how many of each) the tolerant parser recorded on the first spoiled
    document."""
    repaired: str = ""
    """Which spoiled document ``repairs`` counts."""


def stream(fragments: Sequence[str], repair: bool) -> Any:
    parser = jsonsnap.Parser(repair=True) if repair else jsonsnap.Parser()
    for fragment in fragments:
        parser.feed(fragment)
        parser.snapshot()
    return parser.close()


def checked(name: str, fragments: Sequence[str], repair: bool, expected: Any) -> list[str]:
    """Stream once; the final value must be ``expected`` exactly. Returns the repair kinds
    recorded, in order."""
    parser = jsonsnap.Parser(repair=True) if repair else jsonsnap.Parser()
    for fragment in fragments:
        parser.feed(fragment)
        parser.snapshot()
    problem = diff(expected, parser.close())
    if problem is not None:
        mode = "tolerant" if repair else "strict"
        raise AssertionError(f"{name} ({mode}): the final value differs: {problem}")
    return [r.kind for r in parser.repairs] if repair else []


def _growth(b_rows: list[Row], again: bool) -> list[Growth]:
    """The growth of the tolerant parser on the valid and on the spoiled B documents."""
    return [
        Growth("valid", [(r.size, r.tolerant) for r in b_rows], GROWTH_LIMIT, again),
        Growth(
            "spoiled",
            [(r.spoiled_size or 0, r.spoiled or 0.0) for r in b_rows],
            GROWTH_LIMIT,
            again,
        ),
    ]


class _Workload:
    """One workload being measured: its runs (strict, tolerant, ``json.loads``, and tolerant on
    the spoiled text for B) and its row."""

    def __init__(self, wl: Workload, first: bool) -> None:
        """Check the values (the repairs recorded on the spoiled text are counted when
        ``first``), then make the runs."""
        self.wl = wl
        expected = json.loads(wl.text)
        checked(wl.name, wl.fragments, False, expected)
        found = checked(wl.name, wl.fragments, True, expected)
        if found:
            raise AssertionError(f"{wl.name}: repairs recorded on valid JSON: {found[:5]}")
        runs: list[Callable[[], object]] = [
            functools.partial(stream, wl.fragments, False),
            functools.partial(stream, wl.fragments, True),
            functools.partial(json.loads, wl.text),
        ]
        self.spoiled: Workload | None = None
        self.repairs: list[str] = []
        if wl.group == "B":
            bad = self.spoiled = spoiled(wl)
            if first:  # once: the tolerant value of the spoiled text is the clean one
                problem = diff(expected, jsonsnap.loads(bad.text, repair=True))
                if problem is not None:
                    raise AssertionError(f"{bad.name}: jsonsnap.loads(repair=True): {problem}")
            self.repairs = checked(bad.name, bad.fragments, True, expected)
            runs.append(functools.partial(stream, bad.fragments, True))
        self.timing = Rounds(runs)
        limit = None if wl.name in UNTARGETED else LIMIT
        self.row = Row(wl.name, wl.size, math.inf, math.inf, math.inf, limit)
        if self.spoiled is not None:
            self.row.spoiled_size = self.spoiled.size

    def take(self, rounds: int, again: bool = False) -> None:
        """``rounds`` more rounds; the row shows the best of all (``again``: says so)."""
        self.timing.take(rounds)
        row = self.row
        row.strict, row.tolerant, row.loads = self.timing.best[:3]
        if len(self.timing.best) > 3:
            row.spoiled = self.timing.best[3]
        self.row.again = self.row.again or again

    def measure(self, rounds: int, progress: Callable[[str], None]) -> Row:
        """The interleaved rounds, again with twice as many when the ratio is over its limit
        (a burst of load elsewhere can put it there)."""
        row = self.row
        self.take(rounds)
        if not row.passed:
            progress(f"  {row.workload}: {row.ratio:.2f}x, measured again ({2 * rounds} rounds)")
            self.take(2 * rounds, again=True)
        shown = ""
        if row.spoiled is not None:
            shown = f", tolerant on the spoiled text {fmt_time(row.spoiled)}"
        progress(
            f"  {row.workload}: strict {fmt_time(row.strict)}, tolerant "
            f"{fmt_time(row.tolerant)} ({row.ratio:.2f}x){shown}"
        )
        return row


def measure(
    quick: bool = False,
    rounds: int = 7,
    budget: float | None = None,
    probe: float | None = None,
    versus: bool = True,
    progress: Callable[[str], None] = print,
) -> Results:
    """Measure each workload, strict and tolerant (and tolerant on the spoiled B) interleaved,
    ``rounds`` of each; then json_repair on B 10 KB and 100 KB (``versus``), with ``run.py``'s
    budget and probe (its defaults when ``None``)."""
    measured: list[_Workload] = []
    for wl in workloads_module.build(quick=quick, groups="ABC"):
        first = not any(m.spoiled for m in measured)
        measured.append(_Workload(wl, first))
        measured[-1].measure(rounds, progress)
    on_b = sorted((m for m in measured if m.spoiled is not None), key=lambda m: m.row.size)
    b_rows = [m.row for m in on_b]
    growth = _growth(b_rows, again=False)
    if any(g.passed is False for g in growth):
        progress(f"  growth over the limit: the B workloads measured again ({2 * rounds} rounds)")
        for m in on_b:
            m.take(2 * rounds, again=True)
        growth = _growth(b_rows, again=True)
        progress("  growth: " + ", ".join(f"{g.document} {g.exponent:.3f}" for g in growth))
    against: list[Versus] = []
    if versus and peers_module.JsonRepair().available():
        settings = Settings(
            budget=budget if budget is not None else (2.0 if quick else 30.0),
            probe=probe if probe is not None else (0.25 if quick else 0.5),
            memory_limit=0.0,  # no traced run
            quick=quick,
        )
        for m in on_b:
            if m.wl.name in VERSUS:
                against += json_repair(m, settings, progress)
    first_b = next((m for m in measured if m.spoiled is not None), None)
    repairs = dict(Counter(first_b.repairs)) if first_b is not None else {}
    repaired = first_b.spoiled.name if first_b is not None and first_b.spoiled else ""
    return Results([m.row for m in measured], growth, against, repairs, repaired)


def json_repair(m: _Workload, settings: Settings, progress: Callable[[str], None]) -> list[Versus]:
    """json_repair on the valid and on the spoiled document of a B workload, as ``run.py``
    measures a cell, beside jsonsnap tolerant's best time there."""
    peer = peers_module.JsonRepair()
    expected = json.loads(m.wl.text)
    row = m.row
    assert m.spoiled is not None and row.spoiled is not None
    out: list[Versus] = []
    for document, doc, tolerant in (
        ("valid", m.wl, row.tolerant),
        ("spoiled", m.spoiled, row.spoiled),
    ):
        t0 = clock()
        cell = measure_cell(peer, doc, expected, Prefixes.of(doc.fragments), settings)
        got = Versus(
            m.wl.name,
            document,
            tolerant,
            cell.status,
            cell.detail,
            cell.seconds,
            cell.projected,
            cell.correct,
            cell.correct_note,
        )
        if got.time is None:
            shown = f"{cell.status}: {cell.detail}"
        else:
            shown = ("~" if got.is_projected else "") + fmt_time(got.time)
        progress(
            f"  json_repair {m.wl.name} {document}: {shown} ({clock() - t0:.1f} s); "
            f"jsonsnap tolerant {fmt_time(tolerant)}"
        )
        out.append(got)
    return out


# --------------------------------------------------------------------------- reporting


def section(results: Results) -> str:
    """The markdown section of docs/benchmarks.md."""
    lines = [
        "### Tolerant mode: the same stream strict and with `repair=True`",
        "",
        "`Parser(repair=True)` against `Parser()` on the same fragments (a snapshot after each),",
        "interleaved rounds, best of each (`benchmarks/tolerant.py`), on valid JSON.",
        "",
        "| workload | json.loads | strict | tolerant | tolerant / strict | target "
        "| tolerant / json.loads |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results.rows:
        target = "—" if r.limit is None else f"<= {r.limit:g}x {'PASS' if r.passed else 'FAIL'}"
        if r.again:
            target += " (measured again)"
        lines.append(
            f"| {r.workload} | {fmt_time(r.loads)} | {fmt_time(r.strict)} | "
            f"{fmt_time(r.tolerant)} | **{r.ratio:.2f}x** | {target} | "
            f"{fmt_ratio(r.tolerant / r.loads)} |"
        )
    b_rows = sorted((r for r in results.rows if r.spoiled is not None), key=lambda r: r.size)
    if b_rows:
        kinds = ", ".join(f"`{k}` {n:,}" for k, n in sorted(results.repairs.items()))
        lines += [
            "",
            "The spoiled B documents: the same object with single-quoted keys and strings, a",
            "`// comment` line, a trailing comma and raw newlines in the content string, cut in",
            f"fragments of the same sizes. Repairs recorded on {results.repaired}: {kinds}.",
            "",
        ]
    if len(b_rows) >= 2:
        lines += _growth_lines(b_rows, results.growth)
    if results.versus:
        lines += _versus_lines(results.versus)
    return "\n".join(lines) + "\n"


def _growth_line(name: str, points: list[tuple[int, float]], target: str) -> str:
    g = Growth(name, points, GROWTH_LIMIT)
    e = g.exponent
    return (
        f"| {name} | "
        + " | ".join(fmt_time(t) for _, t in points)
        + " | "
        + " | ".join(f"{s:.2f}" for s in g.steps)
        + f" | {'—' if e is None else f'{e:.3f}'} | {target} |"
    )


def _growth_lines(b_rows: list[Row], growth: list[Growth]) -> list[str]:
    """The growth table: ``json.loads``, strict and tolerant (valid, spoiled) per B size."""
    head = " | ".join(r.workload for r in b_rows)
    steps = " | ".join(
        f"{a.workload.removeprefix('B ')} -> {b.workload.removeprefix('B ')}"
        for a, b in itertools.pairwise(b_rows)
    )
    lines = [
        "Growth: the time per size and the log-log slope of time against document size",
        "(1 = linear, 2 = quadratic); the target is on the first size to the last.",
        "",
        f"| B | {head} | {steps} | exponent | target |",
        "|---|" + "---:|" * (2 * len(b_rows) + 1),
        _growth_line("json.loads", [(r.size, r.loads) for r in b_rows], "—"),
        _growth_line("strict", [(r.size, r.strict) for r in b_rows], "—"),
    ]
    for g in growth:
        word = {True: "PASS", False: "FAIL", None: "N/A"}[g.passed]
        if g.again:
            word += " (measured again)"
        lines.append(_growth_line(f"tolerant, {g.document}", g.points, f"<= {g.limit:g} {word}"))
    lines.append("")
    return lines


def _versus_lines(versus: list[Versus]) -> list[str]:
    """The table of json_repair beside jsonsnap tolerant."""
    lines = [
        "json_repair as streams use it: `repair_json(buffer_so_far, return_objects=True)`",
        "after every fragment (a re-parse: `~` marks a total projected from its first",
        "fragments, past the budget), beside jsonsnap tolerant on the same fragments.",
        "",
        "| workload | document | json_repair | correct? | jsonsnap tolerant "
        "| json_repair / jsonsnap |",
        "|---|---|---:|---|---:|---:|",
    ]
    for v in versus:
        if v.time is None:
            total = f"{v.status}: {v.detail}"
        else:
            total = ("~" if v.is_projected else "") + fmt_time(v.time)
        correct = "—" if v.correct is None else ("yes" if v.correct else "no")
        if v.correct_note:
            correct += f" ({v.correct_note})"
        ratio = "—" if v.ratio is None else fmt_ratio(v.ratio, v.is_projected)
        lines.append(
            f"| {v.workload} | {v.document} | {cell_text(total)} | "
            f"{cell_text(correct)} | {fmt_time(v.tolerant)} | **{ratio}** |"
        )
    lines.append("")
    return lines


def summary(results: Results) -> tuple[bool, str]:
    """Whether every target passed, and one line saying how."""
    ratios = ", ".join(f"{r.workload} {r.ratio:.2f}x" for r in results.rows if r.limit is not None)
    parts = [f"tolerant / strict {ratios} (<= {LIMIT:g})"]
    growth = [g for g in results.growth if g.exponent is not None]
    if growth:
        shown = ", ".join(f"{g.document} {g.exponent:.3f}" for g in growth)
        parts.append(f"growth {shown} (<= {GROWTH_LIMIT:g})")
    else:
        parts.append("growth not measured")
    passed = all(r.passed for r in results.rows) and all(g.passed for g in growth)
    return passed, "; ".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true", help="the small sizes")
    ap.add_argument("--rounds", type=int, default=7, help="rounds of each (default 7)")
    ap.add_argument(
        "--budget",
        type=float,
        default=None,
        help="seconds json_repair may take on one document before it is skipped and its "
        "projection shown (default 30; 2 with --quick)",
    )
    ap.add_argument(
        "--probe",
        type=float,
        default=None,
        help="seconds of streaming to project json_repair's total (default 0.5; 0.25 quick)",
    )
    ap.add_argument("--no-json-repair", action="store_true", help="leave json_repair out")
    ap.add_argument("--no-fail", action="store_true", help="exit 0 even when a target fails")
    args = ap.parse_args(argv)
    require_build()
    results = measure(
        quick=args.quick,
        rounds=max(1, args.rounds),
        budget=args.budget,
        probe=args.probe,
        versus=not args.no_json_repair,
    )
    print(section(results))
    passed, text = summary(results)
    print(("PASS " if passed else "FAIL ") + text)
    return 0 if passed or args.no_fail else 1


if __name__ == "__main__":
    sys.exit(main())

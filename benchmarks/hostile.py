"""Hostile inputs: does the cost of feeding stay linear when one token is very long?

    .venv/bin/python benchmarks/hostile.py             # every workload (a minute or two)
    .venv/bin/python benchmarks/hostile.py --quick     # small sizes, a smoke run
    .venv/bin/python benchmarks/hostile.py --only fraction,nested --cap 5 --no-fail

Each workload is a document built from a size ``n`` (digits, nesting depth or characters),
fed to :class:`jsonsnap.Parser` in fragments of one character (or 16). For each one the CPU
time of the whole run (new parser, every fragment, ``close()``) is taken at ``N`` and at ``4N``,
best of up to 5 runs taken in turn, and the growth exponent ``log(t(4N) / t(N)) / log(4)`` is
checked against 1.15: 1 is linear, 2 quadratic (an exponent just over it is measured again).

Smaller sizes (``N/64``, ``N/16``, ``N/4``) are run first, to project the time of each next
size from the exponent seen so far: a run projected to take longer than the cap (10 s at ``N``,
four times that at ``4N``; 2 s with ``--quick``) is not started, and a run that takes twice its
allowance is cut. The workload then fails, with the exponent measured on the largest sizes run
(marked ``~``) or a lower bound (``>=``). So a quadratic parser is reported in seconds, not in
hours. Every size's final value (or error) is checked against ``json.loads`` once.

The workloads are plain objects (``hostile_inputs.workloads``, with those of ``edges.py``),
measured by ``ladder.measure``; this module is the report and the command line. ``run.py`` runs
them as its group ``H`` and writes :func:`section` into the report. See
``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import jsonsnap
from builds import require_build
from collect_memory import memory_section
from edges import Edge
from formatting import fmt_time
from hostile_inputs import QUICK_DIVISOR, select, workloads
from ladder import CAP, LIMIT, QUICK_CAP, REPEAT, Growth, measure_all

# --------------------------------------------------------------------------- report


def _fmt_time(seconds: float | None, projected: bool = False) -> str:
    text = fmt_time(seconds)
    return f"~{text}" if projected and seconds is not None else text


def _fmt_exponent(g: Growth) -> str:
    if g.exponent is None:
        return "—"
    prefix = ">=" if g.lower_bound else "~" if g.projected else ""
    return f"{prefix}{g.exponent:.2f}"


def table(results: Sequence[Growth], limit: float = LIMIT) -> str:
    """A markdown table: one row per workload."""
    lines = [
        f"| workload | N | 4N | t(N) | t(4N) | exponent | <= {limit:g}? | note |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for g in results:
        measured_n = any(size == g.n for size, _, _ in g.points)
        measured_4n = any(size == 4 * g.n for size, _, _ in g.points)
        lines.append(
            f"| {g.name} | {g.n:,} | {4 * g.n:,} "
            f"| {_fmt_time(g.t_n, not measured_n)} | {_fmt_time(g.t_4n, not measured_4n)} "
            f"| {_fmt_exponent(g)} | {'PASS' if g.passed else 'FAIL'} "
            f"| {g.note.replace('|', '/')} |"
        )
    return "\n".join(lines)


def legend(results: Sequence[Growth]) -> str:
    """What each workload is."""
    return "\n".join(f"- `{g.name}`: {g.description} (n = {g.unit})" for g in results)


def section(
    results: Sequence[Growth], cap: float, limit: float = LIMIT, build: str | None = None
) -> str:
    """The "Hostile input" section of ``docs/benchmarks.md`` (``build``: a second section, of
    the compiled build, names it in its title)."""
    if build is not None:
        return "\n".join(
            [
                f"### Hostile input, {build} build",
                "",
                "The same workloads, measured in a second process on the "
                f"{build} build right after the section above.",
                "",
                table(results, limit),
                "",
            ]
        )
    return "\n".join(
        [
            "### Hostile input",
            "",
            "Documents with one very long token or very deep nesting, fed to `jsonsnap.Parser` "
            "one character (or 16) at a time, and uses of the API at the edges whose input "
            "grows: schemas, collect mode, views, provider streams (`benchmarks/hostile.py`, "
            "`benchmarks/edges.py`). CPU time of the whole "
            "run at N and 4N (best of up to 5, taken in turn) and the growth exponent "
            f"log(t(4N) / t(N)) / log 4: 1 is linear, 2 quadratic; PASS up to {limit:g}. `~` "
            f"marks a projection from smaller sizes where a run would have exceeded the cap "
            f"({cap:g} s at N), `>=` a lower bound from a run that was cut.",
            "",
            table(results, limit),
            "",
            legend(results),
            "",
        ]
    )


def summary(results: Sequence[Growth], limit: float = LIMIT) -> tuple[bool, str]:
    """``(passed, text)`` for a one-line target."""
    failed = [g for g in results if not g.passed]
    if not results:
        return True, "none run"
    if not failed:
        worst = max(results, key=lambda g: g.exponent or 0.0)
        largest = f"{worst.name} {_fmt_exponent(worst)}"
        return True, f"{len(results)} of {len(results)}; largest {largest}"
    listing = ", ".join(f"{g.name} {_fmt_exponent(g)}" for g in failed)
    return False, f"{len(failed)} of {len(results)} fail: {listing}"


# --------------------------------------------------------------------------- command line


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description="Growth exponents of jsonsnap.Parser on hostile inputs fed 1 char at a time."
    )
    ap.add_argument("--quick", action="store_true", help=f"N divided by {QUICK_DIVISOR}, cap 2 s")
    ap.add_argument("--only", default="", help="workloads, e.g. fraction,int/partial,nested")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every N by this")
    ap.add_argument(
        "--cap",
        type=float,
        default=None,
        help=f"CPU seconds a run at N may take (4x at 4N) before the workload fails on a "
        f"projection (default {CAP:g}; {QUICK_CAP:g} with --quick)",
    )
    ap.add_argument("--repeat", type=int, default=REPEAT, help="best of N runs per size")
    ap.add_argument("--limit", type=float, default=LIMIT, help="largest exponent that passes")
    ap.add_argument("--no-fail", action="store_true", help="exit 0 even when a workload fails")
    ap.add_argument("--list", action="store_true", help="list the workloads, then exit")
    ap.add_argument("--json", metavar="FILE", help="also write the results to FILE as JSON")
    ap.add_argument(
        "--compiled",
        metavar="DIR",
        help="measure the compiled build unpacked in DIR too, in a second process, after the "
        "build this process imports (dev.py bench passes build/compiled)",
    )
    return ap.parse_args(argv)


def measure_compiled(
    folder: str | Path,
    *,
    quick: bool = False,
    only: str = "",
    cap: float | None = None,
    scale: float = 1.0,
    progress: Callable[[str], None] | None = None,
) -> list[Growth]:
    """The same workloads measured on the compiled build unpacked in ``folder``: this script
    run again in a second process, with ``folder`` first on its ``PYTHONPATH``, and its
    ``--json`` results read back."""
    here = Path(__file__).resolve().parent
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "hostile.json"
        cmd = [sys.executable, str(here / "hostile.py"), "--no-fail", "--json", str(out)]
        cmd += ["--scale", repr(scale)] + (["--quick"] if quick else [])
        cmd += (["--only", only] if only else []) + (["--cap", repr(cap)] if cap else [])
        path = [str(Path(folder).resolve()), str(here), os.environ.get("PYTHONPATH", "")]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, path)),
            "JSONSNAP_EXPECT_BUILD": "compiled",
        }
        done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for line in done.stderr.decode(errors="replace").splitlines():
            if progress is not None:
                progress(f"[compiled] {line}")
        if not out.exists():
            raise RuntimeError(
                f"the compiled build's run wrote no results (exit {done.returncode})"
            )
        return [Growth(**record) for record in json.loads(out.read_text())]


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    everything = workloads(quick=args.quick)
    chosen = select(everything, args.only.split(",")) if args.only else everything
    if not chosen:
        names = ", ".join(h.name for h in everything)
        print(f"no workload matches {args.only!r}; known: {names}", file=sys.stderr)
        return 2
    if args.list:
        for h in chosen:
            print(f"{h.name:<24} N = {round(h.n * args.scale):>9,} {h.unit:<6} {h.description}")
        return 0
    cap = args.cap if args.cap is not None else QUICK_CAP if args.quick else CAP
    require_build()

    def progress(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    progress(f"jsonsnap from {jsonsnap.__file__} ({jsonsnap.__build__} build)")
    started = time.perf_counter()
    results = measure_all(
        chosen,
        cap=cap,
        repeat=args.repeat,
        limit=args.limit,
        scale=args.scale,
        progress=progress,
    )
    if args.json:
        Path(args.json).write_text(json.dumps([dataclasses.asdict(g) for g in results]))
    builds = [(jsonsnap.__build__, results)]
    if args.compiled:
        compiled = measure_compiled(
            args.compiled,
            quick=args.quick,
            only=args.only,
            cap=args.cap,
            scale=args.scale,
            progress=progress,
        )
        builds.append(("compiled", compiled))
    passed = True
    for build, measured in builds:
        if len(builds) > 1:
            print(f"{build} build:\n")
        print(table(measured, args.limit))
        print()
        print(legend(measured))
        ok, text = summary(measured, args.limit)
        passed = passed and ok
        print()
        print(f"{'PASS' if ok else 'FAIL'}  growth exponent <= {args.limit:g}: {text}")
        print()
    if any(isinstance(h, Edge) and h.name.startswith("collect/") for h in chosen):
        print(memory_section())
    progress(f"done in {time.perf_counter() - started:.0f} s (cap {cap:g} s)")
    return 0 if passed or args.no_fail else 1


if __name__ == "__main__":
    sys.exit(main())

"""Compare the speed of two versions of jsonsnap side by side, in one run on one machine.

    .venv/bin/python benchmarks/compare.py --base /work/base/src --new src
    .venv/bin/python benchmarks/compare.py --base-ref HEAD             # HEAD's src/ vs ./src
    .venv/bin/python benchmarks/compare.py --base-ref HEAD~3 --rounds 10 --only A,F,O

``--base`` and ``--new`` name directories that contain a ``jsonsnap`` package (``--new``
defaults to this checkout's ``src``); ``--base-ref`` / ``--new-ref`` take a git revision of
this repository instead, whose ``src/`` is extracted with ``git archive`` into a temporary
directory.

Each version runs in its own worker process (``python -I -S -B``: no site-packages, so the
editable install of this checkout cannot shadow it; the worker checks where ``jsonsnap`` came
from), which builds the benchmark workloads A-F of ``workloads.py`` (the same fragments as
``run.py``, fingerprinted so that both workers are seen to stream the same text) and checks
every final value against ``json.loads``. Then the parent asks the workers for one timed
sample at a time, interleaved: each round times every item on base and on new back to back
(base first in even rounds, new first in odd ones), so a change of load on the machine hits
both alike. A sample is the CPU time of a loop of calls (as many as make it last
``--sample`` seconds, the same count for both versions), per call.

Items: every workload streamed as ``run.py`` streams jsonsnap (``feed`` + ``snapshot`` per
fragment, then ``close``; ``peers.Jsonsnap.run``), the one-shots (group ``O``):
``jsonsnap.loads`` of B 1 MB and of C 20,000, and ``jsonsnap.parse_partial`` of B 1 MB cut in
the middle of its content (``workloads.truncated``), and the replay (group ``P``): the demo
recording (``src/jsonsnap/examples/text_then_write_file.sse``) decoded with ``jsonsnap.sse``
and each event fed to ``jsonsnap.anthropic.MessageAccumulator``, as ``jsonsnap replay`` does,
then the same loop with each event's envelope decoded by ``json.loads`` (the accumulator fed
the mapping, as an SDK's events feed it), both timed per event. Asked for by ``--only``, the
items of the path users take: ``U``, ``N`` and ``K`` (``accumulator.py``, ``gateway.py``,
``sdk.py``). Each worker checks that it imports the pure build (``builds.py``). The table
gives per item the best and median sample of each version, the ratios new/base, and PASS when
the ratio of the best samples is at most ``--threshold`` (default 1.10). See
``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from formatting import fmt_time

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
DEFAULT = ("A", "B", "C", "D", "E", "F", "O", "P")
"""The workload groups of ``workloads.py``, ``O`` for the one-shots and ``P`` for the replay:
what is compared unless ``--only`` says otherwise."""
GROUPS = (*DEFAULT, "U", "N", "K")
"""With the groups of the path users take: ``U`` (``accumulator.py``), ``N``
(``gateway.py``) and ``K`` (jsonsnap's side of ``sdk.py``)."""
THRESHOLD = 1.10


# --------------------------------------------------------------------------- the parent


@dataclass
class Version:
    label: str
    src: Path
    proc: subprocess.Popen[str] | None = None
    hello: dict[str, Any] = field(default_factory=dict)

    def start(self, quick: bool, groups: Sequence[str], wall: bool, build: str = "pure") -> None:
        """Start the worker on ``src``, which must hold the ``build`` named."""
        cmd = [
            sys.executable,
            "-I",
            "-S",
            "-B",
            str(BENCH / "compare_worker.py"),
            str(self.src),
            "--only",
            ",".join(groups),
            "--build",
            build,
        ]
        if quick:
            cmd.append("--quick")
        if wall:
            cmd.append("--wall")
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        assert self.proc is not None and self.proc.stdin is not None
        assert self.proc.stdout is not None
        return self.proc.stdin, self.proc.stdout

    def receive(self) -> dict[str, Any]:
        _, out = self._pipes()
        line = out.readline()
        if not line:
            raise RuntimeError(f"the {self.label} worker ({self.src}) stopped")
        reply: dict[str, Any] = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"{self.label}: {reply['error']}")
        return reply

    def sample(self, item: str, loops: int) -> float:
        pipe_in, _ = self._pipes()
        pipe_in.write(json.dumps({"item": item, "loops": loops}) + "\n")
        pipe_in.flush()
        return float(self.receive()["seconds"])

    def memory(self, item: str) -> float | None:
        """What ``item`` measures besides time (``Item.memory``), on this version."""
        pipe_in, _ = self._pipes()
        pipe_in.write(json.dumps({"item": item, "memory": True}) + "\n")
        pipe_in.flush()
        found = self.receive()["memory"]
        return None if found is None else float(found)

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                pipe_in, _ = self._pipes()
                pipe_in.write(json.dumps({"quit": True}) + "\n")
                pipe_in.flush()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def extract(ref: str, into: Path) -> Path:
    """``src/`` of git revision ``ref`` of this repository, extracted under ``into``."""
    rev = subprocess.run(
        ["git", "rev-parse", "--short", ref], cwd=ROOT, capture_output=True, text=True
    )
    if rev.returncode != 0:
        raise SystemExit(f"not a revision: {ref} ({rev.stderr.strip()})")
    data = subprocess.run(
        ["git", "archive", "--format=tar", ref, "src"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(into, filter="data")
        else:  # Python before 3.10.12: a tar made by git archive here is trusted
            tar.extractall(into)
    return into / "src"


@dataclass
class Row:
    name: str
    base: list[float]
    new: list[float]
    loops: int
    problem: str = ""

    @property
    def ratio_min(self) -> float:
        return min(self.new) / min(self.base)

    @property
    def ratio_median(self) -> float:
        return statistics.median(self.new) / statistics.median(self.base)

    @property
    def paired(self) -> list[float]:
        """new / base of the two samples taken back to back in each round."""
        return [n / b for n, b in zip(self.new, self.base, strict=True)]


def table(rows: Sequence[Row], threshold: float) -> str:
    lines = [
        "| workload | base min | base median | new min | new median | new/base min "
        "| new/base median | paired new/base: median (range) | verdict |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        if not r.base or not r.new:
            lines.append(f"| {r.name} | — | — | — | — | — | — | — | WRONG |")
            continue
        paired = sorted(r.paired)
        spread = f"{statistics.median(paired):.3f} ({paired[0]:.2f}-{paired[-1]:.2f})"
        verdict = "WRONG" if r.problem else "PASS" if r.ratio_min <= threshold else "FAIL"
        lines.append(
            f"| {r.name} | {fmt_time(min(r.base))} | {fmt_time(statistics.median(r.base))} "
            f"| {fmt_time(min(r.new))} | {fmt_time(statistics.median(r.new))} "
            f"| {r.ratio_min:.3f} | {r.ratio_median:.3f} | {spread} | {verdict} |"
        )
    return "\n".join(lines)


@contextmanager
def versions(args: argparse.Namespace) -> Iterator[tuple[Version, Version]]:
    with ExitStack() as stack:

        def pick(path: Path | None, ref: str | None, default: Path | None, role: str) -> Version:
            if ref is not None:
                tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="jsonsnap-")))
                return Version(f"{role} = {ref}", extract(ref, tmp))
            chosen = path if path is not None else default
            if chosen is None:
                raise SystemExit(f"give --{role} DIR or --{role}-ref REF")
            if not (chosen / "jsonsnap" / "__init__.py").is_file():
                raise SystemExit(f"no jsonsnap package in {chosen}")
            return Version(f"{role} = {chosen}", chosen.resolve())

        base = pick(args.base, args.base_ref, None, "base")
        new = pick(args.new, args.new_ref, ROOT / "src", "new")
        try:
            yield base, new
        finally:
            base.stop()
            new.stop()


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description="Compare two versions of jsonsnap on the benchmark workloads, interleaved."
    )
    ap.add_argument("--base", type=Path, help="directory containing the base jsonsnap package")
    ap.add_argument("--base-ref", help="git revision whose src/ is the base")
    ap.add_argument("--new", type=Path, help="directory containing the new jsonsnap (default src)")
    ap.add_argument("--new-ref", help="git revision whose src/ is the new version")
    ap.add_argument("--rounds", type=int, default=None, help="rounds (default 40; 5 with --quick)")
    ap.add_argument(
        "--sample",
        type=float,
        default=0.1,
        help="seconds a sample lasts at least (calls are looped)",
    )
    ap.add_argument(
        "--threshold",
        type=float,
        default=THRESHOLD,
        help="largest new/base ratio (of the best samples) that passes",
    )
    ap.add_argument(
        "--only",
        default="",
        help="groups: A-F, O for the one-shots, P for the replay (the default: these), U, N "
        "and K for the accumulator path, many streams and jsonsnap's side against the SDK",
    )
    ap.add_argument("--quick", action="store_true", help="the small workload sizes (run.py's)")
    ap.add_argument("--wall", action="store_true", help="wall-clock time instead of CPU time")
    ap.add_argument("--no-fail", action="store_true", help="exit 0 even when an item fails")
    ap.add_argument("--json", type=Path, help="also write every sample to this file")
    return ap.parse_args(argv)


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def command_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the versions named on the command line, if anything."""
    if (args.base is None) == (args.base_ref is None):
        return "give one of --base DIR and --base-ref REF"
    if args.new is not None and args.new_ref is not None:
        return "give at most one of --new DIR and --new-ref REF"
    return None


def prepare(base: Version, new: Version, args: argparse.Namespace, groups: list[str]) -> list[Row]:
    """Start both workers and wait for them to have built and checked the same items; one
    row per item, with the loop count of its samples (0: not timed, as it raised in one)."""
    progress("starting the workers (building the workloads, checking the values) ...")
    for v in (base, new):
        v.start(args.quick, groups, args.wall)
    for v in (base, new):
        v.hello = v.receive()
        progress(f"  {v.label}: jsonsnap from {v.hello['jsonsnap']}")
    if base.hello["fingerprint"] != new.hello["fingerprint"]:
        raise SystemExit("the two workers did not build the same workloads")
    names: list[str] = base.hello["items"]
    # An item that raised in either version is not timed.
    timed = [n for n in names if all(n in v.hello["first"] for v in (base, new))]
    first = {n: min(base.hello["first"][n], new.hello["first"][n]) for n in timed}
    loops = {n: max(1, math.ceil(args.sample / max(1e-7, first[n]))) for n in timed}
    rows = [Row(name, [], [], loops.get(name, 0)) for name in names]
    for r in rows:
        found = [
            f"{v.label.split(' = ')[0]}: {v.hello['problems'][r.name]}"
            for v in (base, new)
            if r.name in v.hello["problems"]
        ]
        r.problem = "; ".join(found)
    return rows


def take_rounds(base: Version, new: Version, rows: list[Row], rounds: int) -> None:
    """Every round, one sample of each item on each version, back to back (base first in even
    rounds, new first in odd ones)."""
    for i in range(rounds):
        t0 = time.perf_counter()
        order = (base, new) if i % 2 == 0 else (new, base)
        for r in rows:
            for v in order if r.loops else ():
                seconds = v.sample(r.name, r.loops)
                (r.base if v is base else r.new).append(seconds)
        progress(f"  round {i + 1}/{rounds} ({time.perf_counter() - t0:.1f} s)")


def replay_lines(rows: Sequence[Row]) -> list[str]:
    """For the replay: the accumulator's own envelopes against ``json.loads``'s, per version."""
    pairs = [
        (r, next((o for o in rows if o.name == f"{r.name}, json.loads"), None))
        for r in rows
        if r.name.startswith("replay ") and not r.name.endswith(", json.loads")
    ]
    lines = []
    for r, ref in pairs:
        if ref is None or not (r.base and r.new and ref.base and ref.new):
            continue
        base, new = min(r.base) / min(ref.base), min(r.new) / min(ref.new)
        lines.append(
            f"{r.name}, per event: envelopes decoded by the accumulator / by json.loads, best "
            "samples: "
            f"base {base:.2f}x, new {new:.2f}x"
        )
    return lines


def report(
    base: Version,
    new: Version,
    rows: list[Row],
    args: argparse.Namespace,
    rounds: int,
    started: float,
) -> None:
    """The versions, the table, what was wrong, the replay's envelopes and the paired ratios."""
    clock = "wall-clock" if args.wall else "CPU"
    print(f"- {base.label} (jsonsnap from {base.hello['jsonsnap']})")
    print(f"- {new.label} (jsonsnap from {new.hello['jsonsnap']})")
    print(
        f"- {base.hello['python']}, {os.cpu_count()} cores; {rounds} rounds, interleaved; "
        f"{clock} time per call, each sample looped to >= {args.sample:g} s; "
        f"verdict: new/base of the best samples <= {args.threshold:g}"
    )
    print()
    print(table(rows, args.threshold))
    for r in rows:
        if r.problem:
            print(f"\nWRONG {r.name}: {r.problem}")
    for line in replay_lines(rows):
        print(f"\n{line}")
    paired = [p for r in rows for p in r.paired] or [math.nan]
    print(
        f"\nall paired ratios: median {statistics.median(paired):.3f}, "
        f"range {min(paired):.3f}-{max(paired):.3f}; "
        f"whole run {time.perf_counter() - started:.0f} s"
    )


def write_json(
    path: Path, base: Version, new: Version, rows: list[Row], args: argparse.Namespace, rounds: int
) -> None:
    """Every sample, with the versions and the settings."""
    data = {
        "base": {"label": base.label, **base.hello},
        "new": {"label": new.label, **new.hello},
        "rounds": rounds,
        "clock": "wall-clock" if args.wall else "CPU",
        "threshold": args.threshold,
        "rows": [
            {"name": r.name, "loops": r.loops, "base": r.base, "new": r.new, "problem": r.problem}
            for r in rows
        ],
    }
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    groups = [g.strip().upper() for g in args.only.split(",") if g.strip()] or list(DEFAULT)
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        print(f"unknown group(s): {', '.join(unknown)}; known: {', '.join(GROUPS)}")
        return 2
    problem = command_problem(args)
    if problem is not None:
        print(problem, file=sys.stderr)
        return 2
    rounds = args.rounds if args.rounds is not None else 5 if args.quick else 40
    started = time.perf_counter()
    with versions(args) as (base, new):
        rows = prepare(base, new, args, groups)
        take_rounds(base, new, rows, rounds)
    report(base, new, rows, args, rounds, started)
    if args.json is not None:
        write_json(args.json, base, new, rows, args, rounds)
    failed = [r for r in rows if r.problem or (r.base and r.ratio_min > args.threshold)]
    return 1 if failed and not args.no_fail else 0


if __name__ == "__main__":
    sys.exit(main())

"""Both builds side by side on the same items: the pure build here, the compiled one in a worker.

The groups of ``accumulator.py`` (``U``), ``gateway.py`` (``N``) and ``sdk.py`` (``K``) time
:class:`compare_worker.Item` objects, as ``compare.py`` does. :class:`Sides` builds them in
this process, which must hold the pure build (``builds.build_problem``; or the build
``JSONSNAP_EXPECT_BUILD`` names, without a worker), runs and checks each
once, and, given the compiled build's folder, starts ``compare_worker.py`` on it (with
``--build compiled``: it checks the build it imports) through ``compare.Version``. Both sides
build the same items (fingerprinted). Then each round takes one sample of every item on each
side, back to back (the pure build first in even rounds, the compiled one in odd ones), so
that only one process is timing at any moment and a change of load hits both alike; a sample
is the CPU time of a loop of calls (as many as make it last ``sample`` seconds, the same count
on both sides), per call and per what the item is timed per (events, tokens). Items that only
this process can run (the official SDK, which the worker's isolated interpreter cannot
import) are given as ``extra``: timed in the same rounds, on this side only.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from builds import require_build
from compare import Version
from compare_worker import Item, build_items, first_runs, time_item

PURE, COMPILED = "pure", "compiled"
clock = time.process_time


@dataclass
class Result:
    """One item, on each build measured."""

    name: str
    seconds: dict[str, float] = field(default_factory=dict)
    """The best sample of each build: seconds per call, per what the item is timed per."""
    memory: dict[str, float | None] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)

    def best(self, build: str = PURE) -> float | None:
        return self.seconds.get(build)


class Sides:
    """The items of ``groups`` (``quick``: the small sizes) on the pure build here and, when
    ``folder`` is given, on the compiled build in it; ``extra``: items of this side only."""

    def __init__(
        self,
        groups: Sequence[str],
        quick: bool,
        folder: Path | None,
        extra: Sequence[Item] = (),
        progress: Callable[[str], None] = lambda text: None,
    ) -> None:
        self.groups = list(groups)
        self.quick = quick
        self.folder = folder
        self.extra = list(extra)
        self.progress = progress
        self.items: list[Item] = []
        self.results: dict[str, Result] = {}
        self.worker: Version | None = None
        self.first: dict[str, float] = {}
        self.here = PURE
        """The build of this process: the pure one, unless ``JSONSNAP_EXPECT_BUILD`` names
        the other (and no worker is started)."""

    def __enter__(self) -> Sides:
        self.here = require_build()
        self.items = build_items(self.quick, self.groups)
        fingerprint, first, problems = first_runs(self.items, clock)
        _, extra_first, extra_problems = first_runs(self.extra, clock)
        self.first = {**first, **extra_first}
        for item in [*self.items, *self.extra]:
            result = self.results[item.name] = Result(item.name)
            said = problems.get(item.name) or extra_problems.get(item.name)
            if said is not None:
                result.problems[self.here] = said
        if self.folder is not None:
            self.worker = Version(COMPILED, self.folder.resolve())
            self.worker.start(self.quick, self.groups, wall=False, build=COMPILED)
            hello = self.worker.receive()
            self.progress(f"  the compiled build: jsonsnap from {hello['jsonsnap']}")
            if hello["fingerprint"] != fingerprint:
                raise RuntimeError("the compiled build's worker did not build the same items")
            for name, said in hello["problems"].items():
                self.results[name].problems[COMPILED] = said
            for name, seconds in hello["first"].items():
                self.first[name] = min(self.first.get(name, seconds), seconds)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.worker is not None:
            self.worker.stop()

    @property
    def builds(self) -> list[str]:
        return [self.here, COMPILED] if self.worker is not None else [self.here]

    def measure(self, rounds: int, sample: float) -> dict[str, Result]:
        """``rounds`` rounds of every item that ran right on both sides; then what each item
        measures besides time, once per side."""
        timed = [item for item in self.items if not self.results[item.name].problems]
        extra = [item for item in self.extra if not self.results[item.name].problems]
        loops = {
            item.name: max(1, math.ceil(sample / max(1e-7, self.first[item.name])))
            for item in [*timed, *extra]
        }
        for i in range(rounds):
            started = time.perf_counter()
            for item in timed:
                for build in self.builds if i % 2 == 0 else self.builds[::-1]:
                    self._sample(item, build, loops[item.name])
            for item in extra:
                self._sample(item, self.here, loops[item.name])
            self.progress(f"  round {i + 1}/{rounds} ({time.perf_counter() - started:.1f} s)")
        for item in timed:
            if item.memory is not None:
                self.results[item.name].memory[self.here] = item.memory()
                if self.worker is not None:
                    self.results[item.name].memory[COMPILED] = self.worker.memory(item.name)
        return self.results

    def _sample(self, item: Item, build: str, loops: int) -> None:
        if build == self.here:
            seconds = time_item(item, loops, clock)
        else:
            assert self.worker is not None
            seconds = self.worker.sample(item.name, loops)
        best = self.results[item.name].seconds
        best[build] = min(best.get(build, math.inf), seconds)


# --------------------------------------------------------------------------- the scripts


def rounds_for(quick: bool) -> int:
    """The rounds of a group's run: 5, or 3 with ``--quick``."""
    return 3 if quick else 5


def sample_for(quick: bool) -> float:
    """The seconds a sample lasts at least: 0.1, or 0.05 with ``--quick``."""
    return 0.05 if quick else 0.1


def parse_args(doc: str | None, quick: str, argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line of a group's script (``quick``: what ``--quick`` does)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0] if doc else None)
    ap.add_argument("--quick", action="store_true", help=quick)
    ap.add_argument("--rounds", type=int, default=None, help="rounds (default 5; 3 with --quick)")
    ap.add_argument("--compiled", type=Path, metavar="DIR", help="the compiled build too")
    ap.add_argument("--no-fail", action="store_true", help="exit 0 even when a target fails")
    args = ap.parse_args(argv)
    args.rounds = args.rounds or rounds_for(args.quick)
    return args


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def verdicts(
    builds: Sequence[str], summary: Callable[[str], tuple[bool | None, str]], name: str
) -> bool:
    """Print the target line ``name`` of each build; whether none failed."""
    passed = True
    for build in builds:
        ok, text = summary(build)
        passed = passed and ok is not False
        word = {True: "PASS", False: "FAIL", None: "N/A "}[ok]
        print(f"{word}  {build}: {name}: {text}")
    return passed


def section_of(title: str, text: str, *parts: str) -> str:
    """A section of ``docs/benchmarks.md``: its title, what it measures, then its tables."""
    return "\n\n".join([f"### {title}", text, *parts]) + "\n"


def measured(
    group: str,
    quick: bool,
    folder: Path | None,
    rounds: int,
    progress: Callable[[str], None],
    extra: Sequence[Item] = (),
) -> tuple[dict[str, Result], list[str]]:
    """The items of ``group`` on both sides (``folder``: the compiled build's), and the builds
    measured."""
    with Sides([group], quick, folder, extra, progress=progress) as sides:
        return sides.measure(rounds, sample_for(quick)), sides.builds

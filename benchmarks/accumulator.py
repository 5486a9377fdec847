"""The accumulator path: a provider's bytes to live tool arguments, per event, on both builds.

    .venv/bin/python benchmarks/accumulator.py --compiled build/compiled   # both builds
    .venv/bin/python benchmarks/accumulator.py --quick                     # B 100 KB for B 1 MB

What users run is rarely the bare parser: they feed an accumulator a provider's stream. Each
body (``bodies.py``: one server-sent event per network chunk) is read three ways, each
returning the tool call's final arguments (checked against ``json.loads`` of the argument
text):

- the accumulator: ``acc.updates(chunks)``, reading ``update.snapshot`` for each tool update;
- the hand-written loop a user would write instead: incremental UTF-8 decoding, lines split,
  ``json.loads`` of each data line, the argument delta picked, fed to a ``Parser``, a snapshot
  per token;
- the bare parser on the argument fragments alone (no envelopes).

The bodies: the demo recording (a text answer, then a ``write_file`` call: 437 events), and
workload A (the token-sized call) and B 1 MB as an Anthropic Messages stream and as a Chat
Completions stream. Times are per event of the body (CPU time, best of interleaved rounds,
``sides.py``: the pure build here, the compiled build in a worker). Target: the accumulator at
most 1.3x the hand loop, Anthropic and Chat Completions, on A and B 1 MB, on each build.
``run.py`` runs it as group ``U``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bodies
import workloads
from compare_worker import Item
from measuring import diff
from sides import Result, measured, parse_args, progress, section_of, verdicts

GROUP = "U"
LIMIT = 1.3
"""The accumulator's largest multiple of the hand loop's time."""
WAYS = ("bare parser", "hand loop", "accumulator")


@dataclass(frozen=True)
class Body:
    """A stream body of one tool call, and what its arguments are."""

    name: str
    """E.g. ``"A tool call, Anthropic"``."""
    protocol: str
    """``"anthropic"`` or ``"chat"``."""
    chunks: list[bytes]
    fragments: list[str]
    expected: Any
    target: bool
    """Whether the 1.3x target holds on it (A and B, not the demo)."""

    @property
    def events(self) -> int:
        return len(self.chunks)


def make_bodies(quick: bool) -> list[Body]:
    """The demo recording, then A and B 1 MB (``quick``: B 100 KB) in both protocols."""
    demo = bodies.recording_chunks(bodies.RECORDING.read_bytes())
    frags = bodies.argument_fragments(demo)
    found = [Body("demo recording, Anthropic", "anthropic", demo, frags, bodies.bare(frags), False)]
    big = "B 100 KB" if quick else "B 1 MB"
    for wl in workloads.build(quick=False, groups=["A", "B"]):
        if wl.name not in ("A tool call", big):
            continue
        expected = json.loads(wl.text)
        frags = list(wl.fragments)
        for protocol, label, make in (
            ("anthropic", "Anthropic", bodies.anthropic_body),
            ("chat", "Chat Completions", bodies.chat_body),
        ):
            found.append(Body(f"{wl.name}, {label}", protocol, make(frags), frags, expected, True))
    return found


def readers(body: Body) -> dict[str, Callable[[], Any]]:
    """The three ways to read ``body``, by the names of :data:`WAYS`."""
    from jsonsnap.anthropic import MessageAccumulator
    from jsonsnap.openai import ChatCompletionAccumulator

    chunks, frags = body.chunks, body.fragments
    anthropic = body.protocol == "anthropic"
    hand = bodies.hand_anthropic if anthropic else bodies.hand_chat
    cls: Callable[[], bodies.Accumulator] = (
        MessageAccumulator if anthropic else ChatCompletionAccumulator
    )
    return {
        "bare parser": lambda: bodies.bare(frags),
        "hand loop": lambda: hand(chunks),
        "accumulator": lambda: bodies.accumulate(cls(), chunks),
    }


def item_name(body: Body, way: str) -> str:
    return f"{GROUP} {body.name}: {way}"


def items(quick: bool) -> list[Item]:
    """What ``compare_worker.py`` times for this group, per event of each body."""
    found = []
    for body in make_bodies(quick):
        print_ = b"\x00".join(body.chunks)
        for way, run in readers(body).items():

            def check(run: Callable[[], Any] = run, expected: Any = body.expected) -> str | None:
                return diff(expected, run())

            found.append(Item(item_name(body, way), run, print_, check, body.events))
    return found


# --------------------------------------------------------------------------- the report

ABOUT = (
    "A provider's stream body (one event per network chunk) read three ways, per event "
    "of the body (CPU time, best of interleaved rounds; `benchmarks/accumulator.py`): "
    "the bare parser on the argument fragments alone, the hand-written loop a user "
    "writes instead (decode, split lines, `json.loads` each event, feed a `Parser`, a "
    "snapshot per token), and the accumulator (`acc.updates(chunks)`, reading "
    f"`update.snapshot` per tool update). Target: the accumulator at most {LIMIT:g}x "
    "the hand loop on A and B."
)
"""What the section says it measures."""


@dataclass
class Row:
    body: str
    events: int
    build: str
    bare: float | None
    hand: float | None
    acc: float | None
    target: bool
    problem: str = ""

    def ratio(self, to: float | None) -> float | None:
        return self.acc / to if self.acc is not None and to else None

    @property
    def passed(self) -> bool | None:
        ratio = self.ratio(self.hand)
        return None if not self.target or ratio is None else ratio <= LIMIT


def rows_of(results: dict[str, Result], builds: Sequence[str], quick: bool) -> list[Row]:
    rows = []
    for body in make_bodies(quick):
        cells = [results[item_name(body, way)] for way in WAYS]
        for build in builds:
            bare, hand, acc = (c.best(build) for c in cells)
            problem = "; ".join(p for c in cells for b, p in c.problems.items() if b == build)
            rows.append(Row(body.name, body.events, build, bare, hand, acc, body.target, problem))
    return rows


def _us(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1e6:.2f} µs"


def _x(ratio: float | None) -> str:
    return "—" if ratio is None else f"{ratio:.2f}x"


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| body | events | build | bare parser | hand loop | accumulator | acc / bare "
        f"| acc / hand | <= {LIMIT:g}x? |",
        "|---|---:|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        verdict = {True: "PASS", False: "FAIL", None: ""}[r.passed]
        if r.problem:
            verdict = f"WRONG: {r.problem}"
        lines.append(
            f"| {r.body} | {r.events:,} | {r.build} | {_us(r.bare)} | {_us(r.hand)} "
            f"| {_us(r.acc)} | {_x(r.ratio(r.bare))} | **{_x(r.ratio(r.hand))}** | {verdict} |"
        )
    return "\n".join(lines)


def section(rows: Sequence[Row]) -> str:
    """The section of ``docs/benchmarks.md``: :data:`ABOUT`, then the table."""
    return section_of("The accumulator path, per event", ABOUT, table(rows))


def summary(rows: Sequence[Row], build: str) -> tuple[bool, str]:
    """``(passed, text)`` for the target line of ``build``."""
    held = [r for r in rows if r.build == build and r.target]
    text = ", ".join(f"{r.body} {_x(r.ratio(r.hand))}" for r in held)
    return all(r.passed and not r.problem for r in held), text or "none run"


def measure(
    quick: bool, folder: Path | None, rounds: int, progress: Callable[[str], None]
) -> list[Row]:
    """Every body, on the pure build and (given its folder) the compiled build."""
    return rows_of(*measured(GROUP, quick, folder, rounds, progress), quick)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(__doc__, "B 100 KB instead of B 1 MB", argv)
    rows = measure(args.quick, args.compiled, args.rounds, progress)
    print(section(rows))
    builds = list(dict.fromkeys(r.build for r in rows))
    name = f"accumulator / hand loop <= {LIMIT:g}x"
    return 0 if verdicts(builds, lambda b: summary(rows, b), name) or args.no_fail else 1


if __name__ == "__main__":
    sys.exit(main())

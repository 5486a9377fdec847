"""Many streams at once, as a gateway or an agent server sees them: streams per core.

    .venv/bin/python benchmarks/gateway.py --compiled build/compiled   # both builds
    .venv/bin/python benchmarks/gateway.py --quick

N streams (100 and 1,000) are open at once, each an Anthropic Messages body of workload A's
tool call (``bodies.anthropic_body``: one event per chunk, the arguments in token-sized
deltas), each read by its own ``MessageAccumulator`` through ``acc.updates(chunks)`` with a
snapshot per tool update. The streams are interleaved at token size: one event of each stream
in turn, as a server multiplexing them sees them (each stream's ``updates()`` iterator is
advanced by the updates its next chunk brings, counted once beforehand on a single stream).

Figures per build (CPU time, best of interleaved rounds, ``sides.py``): the time per token,
hence tokens per second per core and the streams one core keeps at 100 tokens per second
each; and the peak memory per open stream: the peak traced by ``tracemalloc`` over a whole
interleaved run (the chunks made before; every stream open until its end) divided by N. The
same for N bare parsers fed the same fragments, and for the thinnest feed of the same chunks
(decode each, find the argument string, read it with the C string reader, feed a ``Parser``,
a snapshot per token: the floor a reader of the bytes stands on), for reference. Targets: at
least 1,500 streams per core on the pure build and 4,000 on the compiled build, at every N.
``run.py`` runs it as group ``N``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bodies
import workloads
from compare_worker import Item
from measuring import diff, traced_peak
from sides import (
    COMPILED,
    PURE,
    Result,
    measured,
    parse_args,
    progress,
    section_of,
    verdicts,
)

GROUP = "N"
STREAMS = (100, 1_000)
RATE = 100
"""Tokens per second of one stream."""
TARGETS = {PURE: 1_500, COMPILED: 4_000}
"""Streams per core at :data:`RATE` tokens per second, per build."""
WAYS = ("accumulator", "thinnest feed", "bare parser")
#: What precedes the argument string in an Anthropic delta's data (the thinnest feed finds it).
ARGUMENT = '"partial_json":"'


def update_counts(chunks: Sequence[bytes]) -> list[int]:
    """How many updates each chunk of ``chunks`` brings through ``updates()`` (one stream),
    and last, how many the end of the body brings."""
    from jsonsnap.anthropic import MessageAccumulator

    counts = [0] * (len(chunks) + 1)
    at = [0]

    def source() -> Iterator[bytes]:
        for i, chunk in enumerate(chunks):
            at[0] = i
            yield chunk
        at[0] = len(chunks)

    for _ in MessageAccumulator().updates(source()):
        counts[at[0]] += 1
    return counts


def accumulators(n: int, chunks: Sequence[bytes], counts: Sequence[int]) -> list[Any]:
    """``n`` streams of ``chunks``, interleaved one event at a time; each one's final
    arguments."""
    from jsonsnap.anthropic import MessageAccumulator

    accs = [MessageAccumulator() for _ in range(n)]
    running = [acc.updates(iter(chunks)) for acc in accs]
    for count in counts[:-1]:
        for updates in running:
            for _ in range(count):
                update = next(updates)
                if update.tool is not None:
                    update.snapshot  # noqa: B018 (a snapshot per token)
    for updates in running:
        for update in updates:
            if update.tool is not None:
                update.snapshot  # noqa: B018
    return [acc.tool_calls()[-1].final() for acc in accs]


def parsers(n: int, frags: Sequence[str]) -> list[Any]:
    """``n`` bare parsers fed ``frags``, interleaved one fragment at a time."""
    from jsonsnap import Parser

    opened = [Parser() for _ in range(n)]
    for frag in frags:
        for parser in opened:
            parser.feed(frag)
            parser.snapshot()
    return [parser.close() for parser in opened]


def thinnest(n: int, chunks: Sequence[bytes]) -> list[Any]:
    """``n`` streams of ``chunks`` read the thinnest way, interleaved one chunk at a time."""
    from jsonsnap import Parser

    scan = json.decoder.scanstring  # type: ignore[attr-defined]
    opened = [Parser() for _ in range(n)]
    for chunk in chunks:
        for parser in opened:
            text = chunk.decode()
            at = text.find(ARGUMENT)
            if at >= 0:
                parser.feed(scan(text, at + len(ARGUMENT))[0])
                parser.snapshot()
    return [parser.close() for parser in opened]


def item_name(n: int, way: str) -> str:
    return f"{GROUP} {n:,} streams: {way}"


def items(quick: bool) -> list[Item]:
    """What ``compare_worker.py`` times for this group, per token of all the streams."""
    (wl,) = workloads.build(quick=quick, groups=["A"])
    frags = list(wl.fragments)
    chunks = bodies.anthropic_body(frags)
    counts = update_counts(chunks)
    expected = json.loads(wl.text)
    found = []
    for n in STREAMS:
        runs: dict[str, Callable[[], list[Any]]] = {
            "accumulator": lambda n=n: accumulators(n, chunks, counts),  # type: ignore[misc]
            "thinnest feed": lambda n=n: thinnest(n, chunks),  # type: ignore[misc]
            "bare parser": lambda n=n: parsers(n, frags),  # type: ignore[misc]
        }
        for way, run in runs.items():

            def check(run: Callable[[], list[Any]] = run) -> str | None:
                return next(filter(None, (diff(expected, got) for got in run())), None)

            def memory(run: Callable[[], list[Any]] = run, n: int = n) -> float:
                return traced_peak(run) / n

            found.append(
                Item(item_name(n, way), run, b"\x00".join(chunks), check, n * len(frags), memory)
            )
    return found


# --------------------------------------------------------------------------- the report

ABOUT = (
    "N Anthropic streams of workload A's tool call open at once, interleaved one event "
    "of each in turn, each read by its own `MessageAccumulator` (`acc.updates(chunks)`, "
    "a snapshot per token), against the thinnest feed of the same chunks (decode each, find "
    "the argument string, read it with the C string reader, feed a `Parser`, a snapshot per "
    "token) and N bare parsers on the same fragments "
    "(`benchmarks/gateway.py`; CPU time, best of interleaved rounds). Streams per core: "
    f"tokens per second per core / {RATE}. Memory: the peak traced by `tracemalloc` "
    "over a whole interleaved run, divided by N."
)
"""What the section says it measures."""


@dataclass
class Row:
    streams: int
    build: str
    way: str
    per_token: float | None
    memory: float | None
    problem: str = ""

    @property
    def per_core(self) -> float | None:
        """Streams one core keeps at :data:`RATE` tokens per second."""
        return None if not self.per_token else 1 / self.per_token / RATE


def rows_of(results: dict[str, Result], builds: Sequence[str]) -> list[Row]:
    rows = []
    for n in STREAMS:
        for build in builds:
            for way in WAYS:
                r = results[item_name(n, way)]
                memory = r.memory.get(build)
                problem = r.problems.get(build, "")
                rows.append(Row(n, build, way, r.best(build), memory, problem))
    return rows


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| streams | build | reader | per token | tokens / s per core "
        f"| streams per core at {RATE} tokens / s | target | peak memory per open stream |",
        "|---:|---|---|---:|---:|---:|---|---:|",
    ]
    for r in rows:
        if r.problem or r.per_token is None or r.per_core is None:
            lines.append(f"| {r.streams:,} | {r.build} | {r.way} | WRONG: {r.problem} |||||")
            continue
        goal = TARGETS[r.build]
        target = f">= {goal:,} {'PASS' if r.per_core >= goal else 'FAIL'}"
        memory = "—" if r.memory is None else f"{r.memory / 1000:.1f} KB"
        lines.append(
            f"| {r.streams:,} | {r.build} | {r.way} | {r.per_token * 1e6:.2f} µs "
            f"| {1 / r.per_token:,.0f} | **{r.per_core:,.0f}** "
            f"| {target if r.way == 'accumulator' else ''} | {memory} |"
        )
    return "\n".join(lines)


def section(rows: Sequence[Row]) -> str:
    """The section of ``docs/benchmarks.md``: :data:`ABOUT`, then the table."""
    return section_of("Many streams per core", ABOUT, table(rows))


def summary(rows: Sequence[Row], build: str) -> tuple[bool, str]:
    """``(passed, text)`` for the target line of ``build``."""
    held = [r for r in rows if r.build == build and r.way == "accumulator"]
    text = ", ".join(
        f"{r.streams:,} streams: {r.per_core:,.0f}" if r.per_core else f"{r.streams:,}: WRONG"
        for r in held
    )
    passed = all(r.per_core is not None and r.per_core >= TARGETS[build] for r in held)
    return passed and bool(held), text or "none run"


def measure(
    quick: bool, folder: Path | None, rounds: int, progress: Callable[[str], None]
) -> list[Row]:
    """Every number of streams, on the pure build and (given its folder) the compiled one."""
    return rows_of(*measured(GROUP, quick, folder, rounds, progress))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(__doc__, "fewer rounds", argv)
    rows = measure(args.quick, args.compiled, args.rounds, progress)
    print(section(rows))
    passed = all(
        verdicts([b], lambda b: summary(rows, b), f"streams per core >= {TARGETS[b]:,}")
        for b in dict.fromkeys(r.build for r in rows)
    )
    return 0 if passed or args.no_fail else 1


if __name__ == "__main__":
    sys.exit(main())

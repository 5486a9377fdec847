"""The official ``anthropic`` SDK's own stream accumulation against jsonsnap's, on the same bytes.

    .venv/bin/python benchmarks/sdk.py --compiled build/compiled   # both builds
    .venv/bin/python benchmarks/sdk.py --quick                     # up to B 100 KB

The SDK reads an Anthropic Messages body of one tool call (``bodies.anthropic_body``, one
event per chunk) through its own ``MessageStream``: ``client.messages.stream(...)`` on a
client whose HTTP transport answers every request with the body (``httpx2.MockTransport``,
never the network), iterating its events (reading ``event.snapshot`` of each ``input_json``
event, the arguments so far) and taking ``get_final_message()``. jsonsnap's
``MessageAccumulator`` reads the same chunks (``acc.updates(chunks)``, a snapshot per tool
update), on the pure build here and the compiled build in a worker (``sides.py``). Both
results are checked against ``json.loads`` of the arguments.

The calls: workload A (the token-sized call) and B at 10 KB, 100 KB and 1 MB (the ladder of
the growth exponent, ``projection.exponent``, from 10 KB to the largest measured). The SDK
accumulates the arguments by re-parsing all of them at every delta, so its time grows with
the square of the size: on B 1 MB it is timed once (not in ``--quick``), and projected from
the ladder when that projection exceeds :data:`BUDGET`. Targets: jsonsnap at least 2x faster
on A, and faster on the largest call by its growth exponent (both exponents reported).
``run.py`` runs it as group ``K``.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bodies
import workloads
from compare_worker import Item
from formatting import fmt_time
from measuring import diff
from projection import exponent
from sides import Result, measured, parse_args, progress, section_of, verdicts

GROUP = "K"
SMALL_LIMIT = 2.0
"""How many times faster than the SDK jsonsnap must be on A."""
BUDGET = 120.0
"""Seconds the SDK may take on B 1 MB before it is projected instead of run."""


ROUNDS = ("A tool call", "B 10 KB", "B 100 KB")
"""The calls timed in rounds; B 1 MB (not in ``--quick``) is timed once."""


def calls(quick: bool) -> list[workloads.Workload]:
    """A, then the B ladder (``quick``: up to 100 KB)."""
    wanted = ROUNDS + (() if quick else ("B 1 MB",))
    return [wl for wl in workloads.build(groups=["A", "B"]) if wl.name in wanted]


def ours(chunks: Sequence[bytes]) -> Any:
    from jsonsnap.anthropic import MessageAccumulator

    return bodies.accumulate(MessageAccumulator(), chunks)


def sdk_reader(chunks: Sequence[bytes]) -> Callable[[], Any]:
    """The SDK's ``MessageStream`` reading ``chunks``: one client, a new stream per call."""
    import anthropic
    import httpx2

    def handler(request: httpx2.Request) -> httpx2.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx2.Response(200, headers=headers, content=iter(chunks))

    transport = httpx2.MockTransport(handler)
    client = anthropic.Anthropic(
        api_key="test", max_retries=0, http_client=anthropic.DefaultHttpxClient(transport=transport)
    )
    messages: Any = [{"role": "user", "content": "hi"}]

    def read() -> Any:
        with client.messages.stream(model="m", max_tokens=10, messages=messages) as stream:
            for event in stream:
                if event.type == "input_json":
                    event.snapshot  # noqa: B018 (the arguments so far)
            final = stream.get_final_message()
        return final.content[-1].input  # type: ignore[union-attr]

    return read


def _item(name: str, run: Callable[[], Any], chunks: list[bytes], expected: Any) -> Item:
    def check() -> str | None:
        return diff(expected, run())

    return Item(name, run, b"\x00".join(chunks), check)


def items(quick: bool) -> list[Item]:
    """jsonsnap's side, for ``compare_worker.py``: the whole call."""
    found = []
    for wl in calls(quick):
        chunks = bodies.anthropic_body(wl.fragments)
        run = functools.partial(ours, chunks)
        found.append(_item(f"{GROUP} {wl.name}: jsonsnap", run, chunks, json.loads(wl.text)))
    return found


def sdk_items(wls: Sequence[workloads.Workload]) -> list[Item]:
    """The SDK's side (this process only) on ``wls``."""
    found = []
    for wl in wls:
        chunks = bodies.anthropic_body(wl.fragments)
        run = sdk_reader(chunks)
        found.append(_item(f"{GROUP} {wl.name}: SDK", run, chunks, json.loads(wl.text)))
    return found


# --------------------------------------------------------------------------- the report


@dataclass
class Row:
    call: str
    size: int
    """The arguments' size in bytes (the growth exponent's n)."""
    events: int
    sdk: float | None
    ours: dict[str, float | None]
    """jsonsnap's time per build."""
    projected: bool = False
    """Whether the SDK's time is projected (``~``)."""
    problem: str = ""

    def faster(self, build: str) -> float | None:
        """How many times faster than the SDK jsonsnap is on ``build``."""
        mine = self.ours.get(build)
        return self.sdk / mine if self.sdk is not None and mine else None


def largest_once(
    wl: workloads.Workload, ladder: Sequence[Row], progress: Callable[[str], None]
) -> tuple[float, bool, str]:
    """The SDK on the largest call: its time, timed once, or projected from the ladder when
    over :data:`BUDGET`; whether it is projected; what was wrong."""
    (item,) = sdk_items([wl])
    small, big = ladder[-2], ladder[-1]
    assert small.sdk is not None and big.sdk is not None
    guess = big.sdk * (wl.size / big.size) ** exponent(small.size, small.sdk, big.size, big.sdk)
    if guess > BUDGET:
        return guess, True, ""
    progress(f"  the SDK on {wl.name}, once (about {guess:.0f} s) ...")
    started = time.process_time()
    problem = item.check()
    return time.process_time() - started, False, problem or ""


def rows_of(
    results: dict[str, Result], builds: Sequence[str], wls: Sequence[workloads.Workload]
) -> list[Row]:
    rows = []
    for wl in wls:
        mine = results[f"{GROUP} {wl.name}: jsonsnap"]
        theirs = results.get(f"{GROUP} {wl.name}: SDK")
        said = [*mine.problems.values(), *(theirs.problems.values() if theirs else ())]
        ours = {build: mine.best(build) for build in builds}
        sdk = theirs.best(builds[0]) if theirs is not None else None
        events = len(bodies.anthropic_body(wl.fragments))
        rows.append(Row(wl.name, wl.size, events, sdk, ours, problem="; ".join(said)))
    return rows


def exponents(rows: Sequence[Row], builds: Sequence[str]) -> dict[str, float | None]:
    """The growth exponents from the first B call to the largest: the SDK's (``"SDK"``) and
    jsonsnap's on each build."""
    ladder = [r for r in rows if r.call.startswith("B ")]
    if len(ladder) < 2:
        return {}
    first, last = ladder[0], ladder[-1]

    def of(a: float | None, b: float | None) -> float | None:
        return exponent(first.size, a, last.size, b) if a and b else None

    found = {"SDK": of(first.sdk, last.sdk)}
    found.update({build: of(first.ours.get(build), last.ours.get(build)) for build in builds})
    return found


def _time(seconds: float | None, projected: bool = False) -> str:
    return "—" if seconds is None else ("~" if projected else "") + fmt_time(seconds)


def table(rows: Sequence[Row], builds: Sequence[str]) -> str:
    head = "| call | events | the SDK |" + "".join(
        f" jsonsnap, {b} | SDK / jsonsnap, {b} |" for b in builds
    )
    lines = [head, "|---|---:|---:|" + "---:|---:|" * len(builds)]
    for r in rows:
        cells = "".join(
            f" {_time(r.ours.get(b))} | **{r.faster(b):,.1f}x** |"
            if r.faster(b)
            else f" {_time(r.ours.get(b))} | — |"
            for b in builds
        )
        wrong = f" WRONG: {r.problem}" if r.problem else ""
        lines.append(f"| {r.call}{wrong} | {r.events:,} | {_time(r.sdk, r.projected)} |{cells}")
    return "\n".join(lines)


def exponent_line(rows: Sequence[Row], builds: Sequence[str]) -> str:
    found = exponents(rows, builds)
    ladder = [r.call for r in rows if r.call.startswith("B ")]
    if not found:
        return ""
    said = ", ".join(
        f"{'the SDK' if k == 'SDK' else f'jsonsnap {k}'} {v:.2f}" if v is not None else f"{k} —"
        for k, v in found.items()
    )
    return f"Growth exponent from {ladder[0]} to {ladder[-1]}: {said}."


def section(rows: Sequence[Row], builds: Sequence[str]) -> str:
    """The section of ``docs/benchmarks.md``."""
    text = (
        "The `anthropic` SDK's own `MessageStream` (`client.messages.stream(...)` on a mock "
        "transport, reading each `input_json` event's snapshot, then `get_final_message()`) "
        "against jsonsnap's `MessageAccumulator` (`acc.updates(chunks)`, a snapshot per "
        "tool update), on the same bytes: the whole call, CPU time (`benchmarks/sdk.py`). "
        "`~`: projected from the smaller calls (over the budget)."
    )
    return section_of(
        "Against the official SDK's stream", text, table(rows, builds), exponent_line(rows, builds)
    )


def summary(rows: Sequence[Row], build: str) -> tuple[bool | None, str]:
    """``(passed, text)`` for the target line of ``build``."""
    small = next((r for r in rows if r.call.startswith("A ")), None)
    ladder = [r for r in rows if r.call.startswith("B ")]
    found = exponents(rows, [build])
    if small is None or len(ladder) < 2 or any(v is None for v in found.values()):
        return None, "not measured"
    a, big = small.faster(build), ladder[-1].faster(build)
    mine, theirs = found[build], found["SDK"]
    assert mine is not None and theirs is not None
    passed = bool(a and a >= SMALL_LIMIT and big and big > 1 and mine < theirs)
    return passed and not any(r.problem for r in rows), (
        f"{small.call} {a or 0:.1f}x faster (>= {SMALL_LIMIT:g}x), {ladder[-1].call} "
        f"{big or 0:,.0f}x faster; growth exponent {mine:.2f} against the SDK's {theirs:.2f}"
    )


def measure(
    quick: bool, folder: Path | None, rounds: int, progress: Callable[[str], None]
) -> tuple[list[Row], list[str]]:
    wls = calls(quick)
    extra = sdk_items([wl for wl in wls if wl.name in ROUNDS])
    results, builds = measured(GROUP, quick, folder, rounds, progress, extra)
    rows = rows_of(results, builds, wls)
    if wls[-1].name not in ROUNDS:
        last = rows[-1]
        last.sdk, last.projected, problem = largest_once(wls[-1], rows[:-1], progress)
        last.problem = "; ".join(filter(None, [last.problem, problem]))
    return rows, builds


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(__doc__, "up to B 100 KB", argv)
    rows, builds = measure(args.quick, args.compiled, args.rounds, progress)
    print(section(rows, builds))
    passed = verdicts(builds, lambda b: summary(rows, b), "against the anthropic SDK")
    return 0 if passed or args.no_fail else 1


if __name__ == "__main__":
    sys.exit(main())

"""The worker of ``compare.py``: one version of jsonsnap, timed item by item on request.

    python -I -S -B benchmarks/compare_worker.py SRC --only A,B,O,P [--quick] [--wall] [--build B]

``compare.py`` starts one per version, with ``-I -S -B`` so that neither the editable install
of this checkout nor the other version's modules can be imported instead, and no bytecode is
written into the directories compared. The worker puts ``SRC`` (a directory holding a
``jsonsnap`` package) and ``benchmarks/`` first on its path, checks that ``jsonsnap`` came from
there and is the build ``--build`` names (``builds.build_problem``), builds the items
(:func:`build_items`), runs and checks each once, and says so in one JSON line (the items, a
fingerprint of what they stream, each one's first time and problems). Then it answers each
request (``{"item": ..., "loops": N}``) with the CPU time per call of a loop of ``N`` calls (per
event for the replay), or with ``{"item": ..., "memory": true}`` what the item measures besides
time (``Item.memory``), until ``{"quit": true}`` or the end of its input. ``run.py --compiled
DIR`` starts one on the compiled build for the groups of ``accumulator.py``, ``gateway.py`` and
``sdk.py`` (``sides.py``).
"""

from __future__ import annotations

import argparse
import functools
import gc
import hashlib
import json
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workloads import Workload

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RECORDING = ROOT / "src" / "jsonsnap" / "examples" / "text_then_write_file.sse"
"""The demo recording replayed by group ``P`` (read from this checkout: the same bytes for
both versions)."""


@dataclass
class Item:
    name: str
    func: Callable[[], object]
    fingerprint: bytes
    check: Callable[[], str | None]
    per: int = 1
    """What one call is timed per: a sample is divided by it (events, for the replay)."""
    memory: Callable[[], float] | None = None
    """What the item measures besides time, once (bytes per stream, for the server)."""


def build_items(quick: bool, groups: Sequence[str]) -> list[Item]:
    """What the worker times, in order. Imports jsonsnap: call it once ``sys.path`` is set."""
    import accumulator
    import gateway
    import sdk
    import workloads

    wanted = set(groups)
    build = wanted & set(workloads.GROUPS)
    if "O" in wanted:
        build |= {"B", "C"}
    wls = workloads.build(quick=quick, groups=sorted(build))
    items = stream_items([wl for wl in wls if wl.group in wanted])
    if "O" in wanted:
        items += one_shot_items(wls)
    if "P" in wanted:
        items += replay_items(RECORDING.read_bytes())
    for group in (accumulator, gateway, sdk):
        if group.GROUP in wanted:
            items += group.items(quick)
    return items


def stream_items(wls: Sequence[Workload]) -> list[Item]:
    """Each workload streamed as ``run.py`` streams jsonsnap, checked against ``json.loads``."""
    import peers
    from measuring import diff

    adapter = peers.Jsonsnap()
    items: list[Item] = []
    for wl in wls:
        frags, text = wl.fragments, wl.text

        def check(frags: Sequence[str] = frags, text: str = text) -> str | None:
            return diff(json.loads(text), adapter.run(frags))

        run = functools.partial(adapter.run, frags)
        items.append(Item(wl.name, run, "\x00".join(frags).encode(), check))
    return items


def one_shot_items(wls: Sequence[Workload]) -> list[Item]:
    """``jsonsnap.loads`` of the largest B and C, ``parse_partial`` of the largest B cut."""
    import jsonsnap
    from measuring import diff
    from workloads import truncated

    biggest_b = max((w for w in wls if w.group == "B"), key=lambda w: w.chars)
    biggest_c = max((w for w in wls if w.group == "C"), key=lambda w: w.chars)
    items: list[Item] = []
    for wl in (biggest_b, biggest_c):
        text = wl.text

        def loads_check(text: str = text) -> str | None:
            return diff(json.loads(text), jsonsnap.loads(text))

        run = functools.partial(jsonsnap.loads, text)
        items.append(Item(f"loads {wl.name}", run, text.encode(), loads_check))
    cut = truncated(biggest_b.text)
    expected = json.loads(cut + '"}')

    def partial_check() -> str | None:
        return diff(expected, jsonsnap.parse_partial(cut))

    run = functools.partial(jsonsnap.parse_partial, cut)
    items.append(Item(f"parse_partial {biggest_b.name} cut", run, cut.encode(), partial_check))
    return items


def replay(body: bytes, envelope: Callable[[Any], Any] | None) -> Any:
    """The recording's result: its events decoded with ``jsonsnap.sse`` and fed one by one to
    a ``MessageAccumulator`` (``envelope``: what each event is turned into first)."""
    from jsonsnap.anthropic import MessageAccumulator
    from jsonsnap.sse import SSEDecoder

    decoder = SSEDecoder()
    acc = MessageAccumulator()
    feed = acc.feed
    for event in decoder.feed(body) + decoder.close():
        feed(event if envelope is None else envelope(event))
    acc.close()
    return acc.result


def replay_items(body: bytes) -> list[Item]:
    """The replay of ``body``, the envelopes decoded by the accumulator (jsonsnap's parser),
    and by ``json.loads`` (for reference), per event."""
    from jsonsnap.sse import SSEDecoder
    from measuring import diff

    decoder = SSEDecoder()
    events = len(decoder.feed(body) + decoder.close())

    def loads_data(event: Any) -> Any:
        return json.loads(event.data)

    def check() -> str | None:
        return diff(replay(body, loads_data), replay(body, None))

    name = f"replay demo ({events} events)"
    return [
        Item(name, functools.partial(replay, body, None), body, check, events),
        Item(
            f"{name}, json.loads", functools.partial(replay, body, loads_data), body, check, events
        ),
    ]


def time_item(item: Item, loops: int, clock: Callable[[], float]) -> float:
    """The time of one call of ``item`` (per what it is timed per), from a loop of ``loops``."""
    func = item.func
    gc.collect()
    start = clock()
    for _ in range(loops):
        func()
    return (clock() - start) / loops / item.per


def first_runs(
    items: Sequence[Item], clock: Callable[[], float]
) -> tuple[str, dict[str, float], dict[str, str]]:
    """Each item run once and checked: the fingerprint of them all, the time of each run, and
    what was wrong (a crash is a result to report, not a reason to stop)."""
    first: dict[str, float] = {}
    problems: dict[str, str] = {}
    digest = hashlib.sha256()
    for item in items:
        digest.update(item.name.encode() + b"\x01" + item.fingerprint + b"\x02")
        gc.collect()
        try:
            start = clock()
            item.func()
            first[item.name] = clock() - start
            problem = item.check()
        except Exception as exc:
            problem = f"{type(exc).__name__}: {exc}"
        if problem is not None:
            problems[item.name] = problem
    return digest.hexdigest(), first, problems


def worker(src: str, quick: bool, groups: Sequence[str], wall: bool, build: str) -> int:
    """Serve timing requests on stdin/stdout, one JSON object per line."""
    sys.path[:0] = [src, str(BENCH)]
    from builds import build_problem

    problem = build_problem(build, Path(src))
    if problem is not None:
        print(json.dumps({"error": problem}))
        return 1
    import jsonsnap

    items = build_items(quick, groups)
    by_name = {item.name: item for item in items}
    clock = time.perf_counter if wall else time.process_time
    fingerprint, first, problems = first_runs(items, clock)
    hello = {
        "jsonsnap": str(Path(jsonsnap.__file__ or "").resolve().parent),
        "build": jsonsnap.__build__,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "items": [item.name for item in items],
        "fingerprint": fingerprint,
        "first": first,
        "problems": problems,
    }
    print(json.dumps(hello), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("quit"):
            break
        item = by_name[request["item"]]
        if request.get("memory"):
            reply = {"memory": item.memory() if item.memory is not None else None}
        else:
            reply = {"seconds": time_item(item, int(request["loops"]), clock)}
        print(json.dumps(reply), flush=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="The worker of compare.py (it starts it).")
    ap.add_argument("src", help="directory containing the jsonsnap package to time")
    ap.add_argument("--only", required=True, help="the groups, e.g. A,B,O,P")
    ap.add_argument("--quick", action="store_true", help="the small workload sizes")
    ap.add_argument("--wall", action="store_true", help="wall-clock time instead of CPU time")
    ap.add_argument(
        "--build", choices=("pure", "compiled"), default="pure", help="the build SRC must hold"
    )
    args = ap.parse_args(argv)
    return worker(args.src, args.quick, args.only.split(","), args.wall, args.build)


if __name__ == "__main__":
    sys.exit(main())

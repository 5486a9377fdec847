"""What change records cost: stream a file-write argument with and without them.

    python benchmarks/changes.py

Streams the 1 MB file-write document of workload B (16-64 character fragments, a snapshot
after each) three ways: a plain ``Parser``; ``Parser(track_changes=True)`` draining
``changes()`` after every fragment (target: at most 1.5x the plain parser); and a subscription
that receives the new characters of ``content`` after every fragment. Prints each total and its
ratio to the plain parser.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable
from typing import Any

import jsonsnap
from builds import require_build
from workloads import file_write, split_random


def best_of(func: Callable[[], object], rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def plain(pieces: list[str]) -> Any:
    parser = jsonsnap.Parser()
    for piece in pieces:
        parser.feed(piece)
        parser.snapshot()
    return parser.close()


def drained(pieces: list[str]) -> Any:
    parser = jsonsnap.Parser(track_changes=True)
    records = 0
    for piece in pieces:
        parser.feed(piece)
        parser.snapshot()
        records += len(parser.changes())
    return parser.close()


def subscribed(pieces: list[str]) -> Any:
    parser = jsonsnap.Parser()
    shown: list[str] = []
    parser.subscribe(
        ("content",), lambda change: shown.append(change.text), kinds=[jsonsnap.Appended]
    )
    for piece in pieces:
        parser.feed(piece)
        parser.snapshot()
    value = parser.close()
    assert "".join(shown) == value["content"]
    return value


def main() -> None:
    require_build()
    text = file_write(1_000_000, random.Random(1))
    pieces = list(split_random(text, random.Random(2), 16, 64))
    base = best_of(lambda: plain(pieces))
    print(f"1 MB file write, {len(pieces):,} fragments of 16-64 characters")
    print(f"{'parser':<40} {'total':>9} {'ratio':>7}")
    for name, run in (
        ("Parser()", plain),
        ("Parser(track_changes=True) + changes()", drained),
        ("subscribe(('content',), Appended)", subscribed),
    ):
        took = best_of(functools.partial(run, pieces))
        print(f"{name:<40} {took * 1e3:>7.1f}ms {took / base:>6.2f}x")


if __name__ == "__main__":
    main()

"""A quick look at streaming cost: feed a document in fragments, snapshot after each one.

    python benchmarks/quick.py

Prints, for a few documents, the total time to stream and the ratio to one ``json.loads`` of
the complete document measured in the same run.
"""

from __future__ import annotations

import functools
import json
import random
import time
from collections.abc import Callable

import jsonsnap


def source_text(size: int, rng: random.Random) -> str:
    """Source-like text: newlines, quotes, backslashes, tabs, CJK and emoji."""
    words = ["def", "return", "x", '"quoted"', "path\\to", "\t", "中文", "😀", "print(1)", "for"]
    lines: list[str] = []
    total = 0
    while total < size:
        line = " ".join(rng.choice(words) for _ in range(rng.randint(1, 10)))
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)[:size]


def fragments(text: str, rng: random.Random, low: int, high: int) -> list[str]:
    out: list[str] = []
    pos = 0
    while pos < len(text):
        step = rng.randint(low, high)
        out.append(text[pos : pos + step])
        pos += step
    return out


def best_of(func: Callable[[], object], rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def stream(pieces: list[str]) -> object:
    parser = jsonsnap.Parser()
    for piece in pieces:
        parser.feed(piece)
        parser.snapshot()
    return parser.close()


def main() -> None:
    rng = random.Random(1234)
    documents = {
        f"file write {size // 1000} KB": json.dumps(
            {"path": "src/app.py", "content": source_text(size, rng)}, ensure_ascii=False
        )
        for size in (10_000, 100_000, 1_000_000)
    }
    documents["20,000 records"] = json.dumps(
        [
            {"id": i, "name": f"item {i}", "ok": i % 3 == 0, "v": None, "xs": [i, 2.5]}
            for i in range(20_000)
        ]
    )
    print(f"{'document':<22} {'fragments':>9} {'json.loads':>11} {'stream':>10} {'ratio':>7}")
    for name, doc in documents.items():
        pieces = fragments(doc, rng, 16, 64)
        assert stream(pieces) == json.loads(doc)
        base = best_of(functools.partial(json.loads, doc))
        took = best_of(functools.partial(stream, pieces), rounds=3)
        timings = f"{base * 1e3:>9.2f}ms {took * 1e3:>8.1f}ms {took / base:>6.1f}x"
        print(f"{name:<22} {len(pieces):>9} {timings}")


if __name__ == "__main__":
    main()

"""Ways to cut one document into fragments, shared by every test.

Every table-driven test goes through :func:`chunkings`: a result that depends on where the
fragments were cut is a bug, so each input is fed whole, one character at a time, at every
2-way split (short documents only) and at seeded random split points.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T", str, bytes)

#: Documents up to this length are also cut at every 2-way split.
TWO_WAY_LIMIT = 200
#: How many seeded random chunkings each document gets.
RANDOM_ROUNDS = 5


def random_splits(text: T, rng: random.Random, max_piece: int = 16) -> list[T]:
    """Cut ``text`` into pieces of 1..max_piece characters chosen by ``rng``."""
    pieces: list[T] = []
    pos = 0
    while pos < len(text):
        step = rng.randint(1, max_piece)
        pieces.append(text[pos : pos + step])
        pos += step
    return pieces


def chunkings(
    text: T, *, seed: int = 0, rounds: int = RANDOM_ROUNDS
) -> Iterator[tuple[str, Sequence[T]]]:
    """Yield ``(label, fragments)`` for each way of cutting ``text``; the label names the cut."""
    yield "whole", [text]
    if len(text) > 1:
        yield "1-char", [text[i : i + 1] for i in range(len(text))]
    if len(text) <= TWO_WAY_LIMIT:
        for cut in range(1, len(text)):
            yield f"split@{cut}", [text[:cut], text[cut:]]
    rng = random.Random(seed * 7919 + len(text))
    for round_ in range(rounds):
        yield f"random#{round_}", random_splits(text, rng, max_piece=rng.choice((2, 3, 7, 16, 64)))

"""Ways to cut one document into fragments, shared by every test.

Every table-driven test goes through :func:`chunkings`: a result that depends on where the
fragments were cut is a bug, so each input is fed whole, one character at a time, at 2-way
splits (short documents only) and at seeded random split points.

The 2-way splits are every one for documents up to :data:`TWO_WAY_EXHAUSTIVE` characters, and up
to :data:`TWO_WAY_LIMIT` in the thorough profile (see conftest.py); between the two, the first and
last few cuts and a sample of :data:`TWO_WAY_SAMPLE` more, seeded by the text, so a given document
is always cut at the same places. Every cut position is still crossed by the 1-char chunking.

A document longer than :data:`BIG` (the 100,000-deep ones, say) is fed one character at a time
only over its first and last :data:`BIG_ENDS` characters ("1-char ends", the middle one fragment),
and its random pieces are up to ``len // BIG_PIECES`` characters long, not 64 at most: the
middle repeats what the ends do, and is cut at random all the same. The thorough profile cuts
every document as a short one.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from typing import TypeVar

import effort

T = TypeVar("T", str, bytes)

#: Documents up to this length are also cut at 2-way splits.
TWO_WAY_LIMIT = 200
#: Documents up to this length are cut at every 2-way split (all up to TWO_WAY_LIMIT when
#: thorough); longer ones at a sample.
TWO_WAY_EXHAUSTIVE = 64
#: How many 2-way splits a sampled document gets, besides the first and last few.
TWO_WAY_SAMPLE = 12
#: How many seeded random chunkings each document gets.
RANDOM_ROUNDS = 5
#: Documents longer than this are cut one character at a time only at their ends (but thorough).
BIG = 16_384
#: How many characters of each end of a big document go one at a time.
BIG_ENDS = 2_048
#: About how many random pieces a big document is cut into, at least.
BIG_PIECES = 1_000


def random_splits(text: T, rng: random.Random, max_piece: int = 16) -> list[T]:
    """Cut ``text`` into pieces of 1..max_piece characters chosen by ``rng``."""
    pieces: list[T] = []
    pos = 0
    while pos < len(text):
        step = rng.randint(1, max_piece)
        pieces.append(text[pos : pos + step])
        pos += step
    return pieces


def two_way_cuts(text: str | bytes, seed: int = 0) -> list[int]:
    """The positions :func:`chunkings` splits ``text`` at in two."""
    if len(text) > TWO_WAY_LIMIT:
        return []
    return effort.positions(
        1,
        len(text),
        limit=TWO_WAY_EXHAUSTIVE,
        thorough_limit=TWO_WAY_LIMIT,
        sample=TWO_WAY_SAMPLE,
        seed=effort.seed_of(text) + seed,
    )


def chunkings(
    text: T, *, seed: int = 0, rounds: int = RANDOM_ROUNDS
) -> Iterator[tuple[str, Sequence[T]]]:
    """Yield ``(label, fragments)`` for each way of cutting ``text``; the label names the cut."""
    big = len(text) > BIG and not effort.thorough()
    yield "whole", [text]
    if big:
        last = len(text) - BIG_ENDS
        ends = one_by_one(text[:BIG_ENDS])
        ends.append(text[BIG_ENDS:last])
        ends.extend(one_by_one(text[last:]))
        yield "1-char ends", ends
    elif len(text) > 1:
        yield "1-char", one_by_one(text)
    for cut in two_way_cuts(text, seed):
        yield f"split@{cut}", [text[:cut], text[cut:]]
    rng = random.Random(seed * 7919 + len(text))
    for round_ in range(rounds):
        max_piece = rng.choice((2, 3, 7, 16, 64))
        if big:
            max_piece = max(max_piece, len(text) // BIG_PIECES)
        yield f"random#{round_}", random_splits(text, rng, max_piece=max_piece)


def one_by_one(text: T) -> list[T]:
    """``text`` one character (or byte) at a time."""
    return [text[i : i + 1] for i in range(len(text))]


def per_event(body: bytes) -> list[bytes]:
    """An event stream's body one event per chunk (each with its blank line), as a server that
    flushes each event sends it."""
    return [piece for piece in re.split(rb"(?<=\n\n)", body) if piece]

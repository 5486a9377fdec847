"""The projection model: how long a run would take, from its first fragments.

A parser whose first fragments (the probe) take longer than ``--probe`` is not run in full
before its total is projected (``measuring.timed_runs``), and skipped when the projection is
over the budget. Two models, after the peer's ``model`` (``peers.py``):

``reparse``
    the peer parses the whole prefix received so far after every fragment: the time of the
    fragments probed, plus per remaining fragment the cost of one parse of its prefix,
    interpolated between parses of longer and longer prefixes timed on their own
    (:func:`project_reparse`);
``incremental``
    the cumulative time of the probed fragments fitted as ``a·fragments + b·characters +
    c·Σ prefix lengths`` (least squares, non-negative coefficients), evaluated at the end of
    the document (:func:`project_fit`).

:func:`exponent` is the growth exponent every benchmark reports: the log-log slope of time
against size between two points.
"""

from __future__ import annotations

import bisect
import gc
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

from peers import Peer

clock = time.perf_counter


def exponent(n1: float, t1: float, n2: float, t2: float) -> float:
    """The growth exponent from size ``n1`` taking ``t1`` seconds to ``n2`` taking ``t2``:
    ``log(t2 / t1) / log(n2 / n1)``, 1 for linear growth, 2 for quadratic (times under a
    nanosecond count as one)."""
    return math.log(max(t2, 1e-9) / max(t1, 1e-9)) / math.log(n2 / n1)


def _solve(a: list[list[float]], b: list[float]) -> list[float] | None:
    """Solve the small linear system ``a x = b`` (Gaussian elimination, partial pivoting)."""
    n = len(b)
    m = [[*row, rhs] for row, rhs in zip(a, b, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[pivot][col]) < 1e-12:
            return None
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                for c in range(col, n + 1):
                    m[r][c] -= f * m[col][c]
    return [m[i][n] / m[i][i] for i in range(n)]


def nonnegative_fit(rows: list[list[float]], ys: list[float]) -> list[float]:
    """Least squares ``ys ~ rows @ coef`` with ``coef >= 0`` (every subset of the few columns
    is tried; the feasible one with the smallest residual wins)."""
    width = len(rows[0])
    scale = [max(abs(r[c]) for r in rows) or 1.0 for c in range(width)]
    x = [[r[c] / scale[c] for c in range(width)] for r in rows]
    best: tuple[float, list[float]] | None = None
    for mask in range(1, 1 << width):
        cols = [c for c in range(width) if mask >> c & 1]
        ata = [[sum(row[i] * row[j] for row in x) for j in cols] for i in cols]
        aty = [sum(row[i] * y for row, y in zip(x, ys, strict=True)) for i in cols]
        sol = _solve(ata, aty)
        if sol is None or min(sol) < 0:
            continue
        coef = [0.0] * width
        for c, v in zip(cols, sol, strict=True):
            coef[c] = v
        resid = sum(
            (sum(row[c] * coef[c] for c in range(width)) - y) ** 2
            for row, y in zip(x, ys, strict=True)
        )
        if best is None or resid < best[0]:
            best = (resid, coef)
    if best is None:
        return [0.0] * width
    return [best[1][c] / scale[c] for c in range(width)]


@dataclass
class Prefixes:
    """Per fragment ``i`` (1-based): ``chars[i]`` characters fed so far and ``work[i]`` the sum
    of the prefix lengths so far (what a re-parser parses in total)."""

    chars: list[int]
    work: list[int]

    @classmethod
    def of(cls, fragments: Sequence[str]) -> Prefixes:
        chars = [0]
        work = [0]
        total = acc = 0
        for f in fragments:
            total += len(f)
            acc += total
            chars.append(total)
            work.append(acc)
        return cls(chars, work)


def features(prefixes: Prefixes, k: int) -> list[float]:
    """What the cost of the first ``k`` fragments of a stateful parser is fitted on: a cost per
    fragment, per character, and per character already received (which an incremental parser
    should not have, but one that copies the string being received on every fragment has)."""
    return [float(k), float(prefixes.chars[k]), float(prefixes.work[k])]


def project_fit(prefixes: Prefixes, times: Sequence[float]) -> float:
    """Projected seconds for all the fragments of a stateful parser: the cumulative time of the
    first ``k`` fitted (least squares, non-negative coefficients) on :func:`features`, evaluated
    at the end."""
    k = len(times)
    n = len(prefixes.chars) - 1
    spent = math.fsum(times)
    if k >= n:
        return spent
    if k < 8:  # too few points to fit: scale by the characters
        return spent * prefixes.chars[n] / max(1, prefixes.chars[k])
    cumulative: list[float] = []
    acc = 0.0
    for t in times:
        acc += t
        cumulative.append(acc)
    points = sorted({max(1, round(k * q / 40)) for q in range(1, 41)})
    rows = [features(prefixes, j) for j in points]
    ys = [cumulative[j - 1] for j in points]
    coef = nonnegative_fit(rows, ys)
    full = features(prefixes, n)
    projected = sum(c * f for c, f in zip(coef, full, strict=True))
    return max(projected, spent)


def parse_costs(
    peer: Peer, text: str, start: int, step: int, probe: float
) -> list[tuple[float, float]]:
    """Seconds for one fragment of ``step`` characters ending prefixes of ``text`` longer than
    ``start`` characters (15/16 of it, half, a quarter, ...; never the complete text, which many
    re-parsers hand straight to ``json.loads``), from the shortest up, stopping after one lasts
    ``probe`` seconds. Each is timed as in a stream: after a fragment ending just before it (so
    that the previous value is alive) and warm (the best of up to three)."""
    n = len(text)
    sizes = sorted({n * 15 // 16} | {n >> j for j in range(1, 16)})
    sizes = [size for size in sizes if size > max(start, step)]
    points: list[tuple[float, float]] = []
    gc.collect()
    for size in sizes:
        head, last = text[: size - step], text[size - step : size]
        best = math.inf
        for _ in range(3):
            stream = peer.open()
            stream.step(head)
            t0 = clock()
            stream.step(last)
            took = clock() - t0
            best = min(best, took)
            if took > probe / 10:
                break
        points.append((float(size), best))
        if best >= probe:
            break
    return points


def project_reparse(
    peer: Peer, text: str, prefixes: Prefixes, times: Sequence[float], probe: float
) -> float:
    """Projected seconds for a re-parser: the time of the fragments streamed so far, plus, for
    each remaining fragment, the cost of one parse of its prefix, interpolated between parses
    of longer and longer prefixes timed on their own (and extrapolated on a log-log line past
    the longest one timed)."""
    k = len(times)
    n = len(prefixes.chars) - 1
    spent = math.fsum(times)
    if k >= n:
        return spent
    points: list[tuple[float, float]] = []
    bins = min(8, k)
    for b in range(bins):
        lo, hi = k * b // bins, k * (b + 1) // bins
        if hi > lo:
            size = math.fsum(prefixes.chars[i + 1] for i in range(lo, hi)) / (hi - lo)
            points.append((size, math.fsum(times[lo:hi]) / (hi - lo)))
    step = max(1, round(prefixes.chars[n] / n))
    points += parse_costs(peer, text, prefixes.chars[k], step, probe)
    points.sort()
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    if len(points) >= 2 and xs[-1] > xs[-2] > 0 and ys[-1] > 0 and ys[-2] > 0:
        slope = exponent(xs[-2], ys[-2], xs[-1], ys[-1])
        slope = min(3.0, max(1.0, slope))
    else:
        slope = 1.0

    def cost(size: float) -> float:
        if size <= xs[0]:
            return ys[0]
        if size >= xs[-1]:
            return float(ys[-1] * (size / xs[-1]) ** slope)
        j = bisect.bisect_left(xs, size)
        x0, x1, y0, y1 = xs[j - 1], xs[j], ys[j - 1], ys[j]
        return y0 + (y1 - y0) * (size - x0) / (x1 - x0) if x1 > x0 else y1

    rest = math.fsum(cost(prefixes.chars[i]) for i in range(k + 1, n + 1))
    return spent + rest

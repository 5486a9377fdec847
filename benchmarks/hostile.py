"""Hostile inputs: does the cost of feeding stay linear when one token is very long?

    .venv/bin/python benchmarks/hostile.py             # every workload (a minute or two)
    .venv/bin/python benchmarks/hostile.py --quick     # small sizes, a smoke run
    .venv/bin/python benchmarks/hostile.py --only fraction,nested --cap 5 --no-fail

Each workload is a document built from a size ``n`` (digits, nesting depth or characters),
fed to :class:`jsonsnap.Parser` in fragments of one character (or 16). For each one the CPU
time of the whole run (new parser, every fragment, ``close()``) is taken at ``N`` and at ``4N``,
best of up to 5 runs taken in turn, and the growth exponent ``log(t(4N) / t(N)) / log(4)`` is
checked against 1.15: 1 is linear, 2 quadratic (an exponent just over it is measured again).

Smaller sizes (``N/64``, ``N/16``, ``N/4``) are run first, to project the time of each next
size from the exponent seen so far: a run projected to take longer than the cap (10 s at ``N``,
four times that at ``4N``; 2 s with ``--quick``) is not started, and a run that takes twice its
allowance is cut. The workload then fails, with the exponent measured on the largest sizes run
(marked ``~``) or a lower bound (``>=``). So a quadratic parser is reported in seconds, not in
hours. Every size's final value (or error) is checked against ``json.loads`` once.

The workloads are plain objects (:func:`workloads`), measured by :func:`measure`; ``run.py``
runs them as its group ``H`` and writes :func:`section` into the report. See
``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import json
import math
import operator
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

import jsonsnap
from edges import Edge, edges, memory_section
from workloads import SEED, source_text

LIMIT = 1.15
"""The largest growth exponent from ``N`` to ``4N`` that passes."""
CAP = 10.0
"""Seconds (CPU) a run at ``N`` may take; a run at ``4N`` may take four times as long."""
QUICK_CAP = 2.0
QUICK_DIVISOR = 4
"""``--quick`` divides every ``N`` by this."""
REPEAT = 5
"""Best of this many runs at each size."""
REPEAT_BUDGET = 3.0
"""Seconds spent at ``N`` or ``4N`` after which a run is not repeated (0.5 s at the smaller
sizes, which only serve to project)."""
BORDERLINE = 0.35
"""An exponent up to this much over the limit is measured again, with twice the runs."""
LADDER = (64, 16, 4)
"""The sizes run before ``N`` (as divisors of ``N``), to project the time of the next one."""

clock = time.process_time

Mode = Literal["feed", "snapshot", "changes", "subscribe"]


# --------------------------------------------------------------------------- documents


def fraction(n: int) -> str:
    """A number with ``n`` zeros after the decimal point: ``[0.000...01]``."""
    return "[0." + "0" * n + "1]"


def exponent(n: int) -> str:
    """An exponent of ``n + 1`` digits: ``[1e000...01]``."""
    return "[1e" + "0" * n + "1]"


def signed_exponent(n: int) -> str:
    """The same with a capital E and a sign: ``[1E+000...01]``."""
    return "[1E+" + "0" * n + "1]"


def integer(n: int) -> str:
    """An integer of ``n`` digits: ``[111...1 ]``. Past ``sys.get_int_max_str_digits()``
    (4,300) Python refuses to convert it, so the document ends in ``JSONDecodeError``."""
    return "[" + "1" * n + " ]"


def integer_float(n: int) -> str:
    """A float with ``n`` digits before its point: ``[111...1.0]`` (no digit limit)."""
    return "[" + "1" * n + ".0]"


def nested(n: int) -> str:
    """Arrays nested ``n`` deep: ``[[[...]]]``, ``2n`` characters."""
    return "[" * n + "]" * n


#: An array of itself, or an integer, at every level (a group of alternatives per level).
NESTED_ANY_OF: Final = {
    "$defs": {
        "t": {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/t"}}, {"type": "integer"}]}
    },
    "$ref": "#/$defs/t",
}
#: A string whose characters are counted and whose whole is searched.
LONG_STRING: Final = {"type": "string", "maxLength": 10**9, "pattern": "^[^\\x00]"}


def long_string(n: int) -> str:
    """A JSON string of ``n`` characters of source-like text (quotes, backslashes, tabs and
    newlines escaped; CJK and emoji as they are), the control: linear everywhere."""
    return json.dumps(source_text(n, random.Random(f"{SEED}-hostile")), ensure_ascii=False)


# --------------------------------------------------------------------------- one run


@dataclass
class Outcome:
    """What one run produced."""

    value: Any = None
    error: str | None = None
    """The message of the ``JSONDecodeError`` raised, if any."""
    failed_at: int | None = None
    """Characters fed up to and including the fragment that raised (all of them when
    ``close()`` raised)."""
    records: int = 0
    """Change records drained with ``changes()``."""
    callbacks: int = 0
    """Calls of the subscription's callback."""


def _feed(parser: jsonsnap.Parser, it: Iterator[str], out: Outcome) -> None:
    feed = parser.feed
    for fragment in it:
        feed(fragment)


def _feed_snapshot(parser: jsonsnap.Parser, it: Iterator[str], out: Outcome) -> None:
    feed = parser.feed
    snapshot = parser.snapshot
    for fragment in it:
        feed(fragment)
        snapshot()


def _feed_changes(parser: jsonsnap.Parser, it: Iterator[str], out: Outcome) -> None:
    feed = parser.feed
    changes = parser.changes
    count = 0
    try:
        for fragment in it:
            feed(fragment)
            count += len(changes())  # counted only: the records' paths are never looked at
    finally:
        out.records += count


_LOOPS: dict[Mode, Callable[[jsonsnap.Parser, Iterator[str], Outcome], None]] = {
    "feed": _feed,
    "snapshot": _feed_snapshot,
    "changes": _feed_changes,
    "subscribe": _feed,
}


@dataclass(frozen=True)
class Hostile:
    """One hostile workload: a document of size ``n`` and how it is fed."""

    name: str
    """Short name, used by ``--only`` and in the tables."""
    description: str
    build: Callable[[int], str]
    """The document of size ``n``."""
    n: int
    """The default ``N``: chosen so that a linear parser spends at least ~50 ms there."""
    unit: str = "digits"
    """What ``n`` counts."""
    fragment: int = 1
    """Characters per fragment."""
    mode: Mode = "feed"
    """``feed`` only; ``snapshot()`` after each fragment; ``changes()`` drained after each
    (``track_changes=True``); or one ``subscribe(("x",), ...)`` that never matches."""
    partial_numbers: bool = False
    schema: Any = None
    """A schema the value is checked against while it streams (``None``: not checked)."""
    repair: bool = False
    """Read tolerantly (``Parser(repair=True)``)."""
    multiple: bool = False
    """Several values (``Parser(multiple_values=True)``)."""
    expected: Callable[[int], Any] | None = None
    """The final value of the document of size ``n``, when ``json.loads`` cannot tell it (a
    document that needs repairs)."""

    def prepare(self, n: int) -> tuple[str, list[str]]:
        """The document of size ``n`` and its fragments (made before the clock starts)."""
        text = self.build(n)
        if self.fragment == 1:
            return text, list(text)
        step = self.fragment
        return text, [text[i : i + step] for i in range(0, len(text), step)]

    def run(self, prepared: tuple[str, list[str]]) -> Outcome:
        """Open a parser, feed every fragment as the mode says, close it: the timed work."""
        fragments = prepared[1]
        out = Outcome()
        parser = jsonsnap.Parser(
            partial_numbers=self.partial_numbers,
            track_changes=self.mode == "changes",
            schema=self.schema,
            repair=self.repair,
            multiple_values=self.multiple,
        )
        if self.mode == "subscribe":

            def callback(record: Any) -> None:
                out.callbacks += 1

            parser.subscribe(("x",), callback)
        it = iter(fragments)
        try:
            _LOOPS[self.mode](parser, it, out)
        except jsonsnap.JSONDecodeError as exc:
            out.error = str(exc)
            fed = len(fragments) - operator.length_hint(it)
            out.failed_at = sum(len(f) for f in fragments[:fed])
            return out
        try:
            out.value = parser.close()
        except jsonsnap.JSONDecodeError as exc:
            out.error = str(exc)
            out.failed_at = sum(len(f) for f in fragments)
            return out
        if self.mode == "changes":
            out.records += len(parser.changes())
        return out

    def check(self, n: int, prepared: tuple[str, list[str]], out: Outcome) -> str | None:
        """``None`` when the outcome is what ``json.loads`` says it should be, else what is
        wrong. For the nested arrays the value is walked without recursion, and the records
        counted (a ``Started`` and a ``Completed`` per array); an integer too long for Python
        must fail, but only once every digit has been fed."""
        text = prepared[0]
        if self.build is nested or self.expected is _nested_value:
            if out.error is not None:
                return f"JSONDecodeError after {out.failed_at:,} chars: {out.error}"
            if not _is_nested(out.value, n):
                return f"not {n:,} nested arrays"
            if self.mode == "changes" and out.records != 2 * n:
                return f"{out.records:,} change records instead of {2 * n:,}"
            if out.callbacks:
                return f"the subscription matched {out.callbacks:,} records instead of none"
            return None
        try:
            expected = json.loads(text) if self.expected is None else self.expected(n)
        except ValueError:  # an integer past sys.get_int_max_str_digits()
            if out.error is None:
                return "no JSONDecodeError, json.loads raises ValueError"
            assert out.failed_at is not None
            if out.failed_at < len(text) - 1:
                return (
                    f"JSONDecodeError after {out.failed_at:,} of {len(text):,} chars, before "
                    f"the last digit was followed by anything: {out.error}"
                )
            return None
        if out.error is not None:
            return (
                f"JSONDecodeError after {out.failed_at:,} of {len(text):,} chars (json.loads "
                f"accepts the document): {out.error}"
            )
        if not _same(expected, out.value):
            return f"final value {_short(out.value)} instead of {_short(expected)}"
        return None


def _is_nested(value: Any, n: int) -> bool:
    depth = 1
    while isinstance(value, list) and len(value) == 1:
        value = value[0]
        depth += 1
    return isinstance(value, list) and not value and depth == n


def _same(a: Any, b: Any) -> bool:
    """Exactly equal: same types, floats by ``repr`` (for the shallow documents here)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return repr(a) == repr(b)
    return bool(a == b)


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except ValueError:  # an int too long to show
        text = "<int>"
    return text if len(text) <= 40 else text[:37] + "..."


_NESTED_MODES: tuple[tuple[Mode, str], ...] = (
    ("changes", "`track_changes=True`, `changes()` after each"),
    ("subscribe", "`subscribe(('x',), callback)` never matching"),
)


def _chars(size: int) -> str:
    return "1 char" if size == 1 else f"{size} chars"


#: A workload of this group: a document fed to a parser, or a use of the API at the edges.
Workload = Hostile | Edge


def workloads(quick: bool = False) -> list[Workload]:
    """Every hostile workload (``quick``: ``N`` divided by 4)."""
    numbers: list[tuple[str, Callable[[int], str], str]] = [
        ("fraction", fraction, "`'[0.' + '0'*n + '1]'`"),
        ("exponent", exponent, "`'[1e' + '0'*n + '1]'`"),
        ("exponent-signed", signed_exponent, "`'[1E+' + '0'*n + '1]'`"),
        ("int", integer, "`'[' + '1'*n + ' ]'` (JSONDecodeError past 4,300 digits)"),
        ("int-float", integer_float, "`'[' + '1'*n + '.0]'`"),
    ]
    out: list[Workload] = []
    for name, build, text in numbers:
        out.append(Hostile(name, f"{text}, 1 char per `feed()`", build, 100_000))
    for name, build, text in numbers:
        out.append(
            Hostile(
                f"{name}/partial",
                f"{text}, 1 char per `feed()`, `Parser(partial_numbers=True)`, "
                "`snapshot()` after each",
                build,
                100_000,
                mode="snapshot",
                partial_numbers=True,
            )
        )
    deep = "`'['*n + ']'*n`"
    out.append(
        Hostile(
            "nested/snapshot",
            f"{deep}, 1 char per `feed()`, `snapshot()` after each",
            nested,
            16_000,
            unit="depth",
            mode="snapshot",
        )
    )
    out.extend(
        Hostile(
            f"nested/{mode}-{size}",
            f"{deep}, {_chars(size)} per `feed()`, {how}",
            nested,
            16_000,
            unit="depth",
            fragment=size,
            mode=mode,
        )
        for mode, how in _NESTED_MODES
        for size in (1, 16)
    )
    out.append(
        Hostile(
            "nested/schema",
            f"{deep}, 16 chars per `feed()`, checked against a recursive `anyOf` (an array of "
            "itself, or an integer): a group of alternatives per level",
            nested,
            16_000,
            unit="depth",
            fragment=16,
            schema=NESTED_ANY_OF,
        )
    )
    out.append(
        Hostile(
            "string/schema",
            "a string of n chars, 1 char per `feed()`, checked against `maxLength` and "
            "`pattern`: read one escape at a time, each character's place counted",
            long_string,
            200_000,
            unit="chars",
            schema=LONG_STRING,
        )
    )
    out.append(
        Hostile(
            "string",
            "control: a string of n chars of source-like text, 1 char per `feed()`",
            long_string,
            500_000,
            unit="chars",
        )
    )
    out.extend(tolerant())
    out.extend(edges())
    if quick:
        out = [dataclasses.replace(h, n=max(64, h.n // QUICK_DIVISOR)) for h in out]
    return out


def _source(n: int) -> str:
    """``n`` characters of source-like text without quotes, backslashes or control
    characters but newlines."""
    text = source_text(n, random.Random(f"{SEED}-tolerant"))
    return "".join(c for c in text if c not in "\\\"'" and (c >= " " or c == "\n"))[:n]


def tolerant() -> list[Hostile]:
    """Hostile input to the tolerant parser (``repair=True``): a repair on every line, or one
    long stretch of text that a repair reads, 1 char per ``feed()`` with ``snapshot()`` after
    each."""
    cases: list[tuple[str, str, Callable[[int], str], Callable[[int], Any]]] = [
        (
            "raw-newlines",
            "a string of n chars of source text with raw newlines (a repair each)",
            lambda n: '{"s": "' + _source(n) + '"}',
            lambda n: {"s": _source(n)},
        ),
        (
            "single-quoted",
            "a single-quoted string of n chars (read without the lane)",
            lambda n: "['" + _source(n).replace("\n", " ") + "']",
            lambda n: [_source(n).replace("\n", " ")],
        ),
        (
            "comment",
            "`[1 /* ` + '* ' * (n/2) + `*/]`: a comment of n chars that never ends until it does",
            lambda n: "[1 /* " + "* " * (n // 2) + "*/]",
            lambda n: [1],
        ),
        (
            "prose",
            'n chars of prose before `{"a": 1}`',
            lambda n: _source(n).replace("{", "(").replace("[", "(") + ' {"a": 1}',
            lambda n: {"a": 1},
        ),
        (
            "unquoted-key",
            "`{` + 'k' * n + `: 1}`: an unquoted key of n chars",
            lambda n: "{" + "k" * n + ": 1}",
            lambda n: {"k" * n: 1},
        ),
        (
            "missing-commas",
            "`[` + '1 ' * (n/2) + `]`: n/2 missing commas",
            lambda n: "[" + "1 " * (n // 2) + "]",
            lambda n: [1] * (n // 2),
        ),
        (
            "unclosed",
            "`'[' * n`, closed as it shows at `close()`",
            lambda n: "[" * n,
            _nested_value,
        ),
    ]
    out = [
        Hostile(
            f"repair/{name}",
            f"{text}, `Parser(repair=True)`, 1 char per `feed()`, `snapshot()` after each",
            build,
            100_000,
            unit="chars",
            mode="snapshot",
            repair=True,
            expected=expected,
        )
        for name, text, build, expected in cases
    ]
    out.append(
        Hostile(
            "multiple/ndjson",
            'n chars of `{"a": [1, "x"]}` lines, `Parser(multiple_values=True)`, 1 char per '
            "`feed()`, `snapshot()` after each",
            lambda n: '{"a": [1, "x"]}\n' * (n // 16),
            100_000,
            unit="chars",
            mode="snapshot",
            multiple=True,
            expected=lambda n: [{"a": [1, "x"]}] * (n // 16),
        )
    )
    return out


def _nested_value(n: int) -> Any:
    """``n`` nested empty arrays, built without recursion."""
    value: list[Any] = []
    for _ in range(n - 1):
        value = [value]
    return value


def select(all_workloads: list[Workload], selectors: Sequence[str]) -> list[Workload]:
    """The workloads named by ``selectors``: an exact name, or what comes before its ``/``
    (``nested`` selects every nested workload; ``edges`` every one of ``edges.py``)."""
    wanted = {s.strip() for s in selectors if s.strip()}
    return [
        h
        for h in all_workloads
        if h.name in wanted
        or h.name.split("/")[0] in wanted
        or ("edges" in wanted and isinstance(h, Edge))
    ]


# --------------------------------------------------------------------------- measuring


class CapExceeded(BaseException):
    """A run outlived its limit (a ``BaseException``, so that no ``except Exception`` on the
    way swallows it)."""


@contextlib.contextmanager
def deadline(seconds: float, make: Callable[[], BaseException] = CapExceeded) -> Iterator[None]:
    """Raise ``make()`` (:class:`CapExceeded` by default) in the block after ``seconds`` of wall
    time (where ``setitimer`` exists). A real-time timer: arming a CPU-time one
    (``ITIMER_PROF``) makes ``process_time()`` tick-grained (4 ms) for the rest of the process
    on some Linux VMs."""
    if not hasattr(signal, "setitimer"):
        yield
        return

    def on_alarm(signum: int, frame: types.FrameType | None) -> None:
        raise make()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Growth:
    """One workload's result."""

    name: str
    description: str
    n: int
    unit: str
    t_n: float | None = None
    t_4n: float | None = None
    exponent: float | None = None
    projected: bool = False
    """``t_n``, ``t_4n`` or ``exponent`` come from smaller sizes (the cap stopped the run)."""
    lower_bound: bool = False
    """``exponent`` is a lower bound (a run was cut)."""
    passed: bool = False
    note: str = ""
    points: list[tuple[int, float, int]] = field(default_factory=list)
    """``(size, best CPU seconds, runs)`` of every size measured."""


def _slope(a: tuple[int, float, int], b: tuple[int, float, int]) -> float:
    """The log-log slope of time against size from ``a`` to ``b``."""
    return math.log(max(b[1], 1e-9) / max(a[1], 1e-9)) / math.log(b[0] / a[0])


def _predict(points: list[tuple[int, float, int]], size: int) -> float | None:
    """The time at ``size`` from the last two sizes' exponent (between 1 and 3), or linearly
    from the last one."""
    if not points:
        return None
    last = points[-1]
    e = 1.0
    if len(points) >= 2:
        e = min(3.0, max(1.0, _slope(points[-2], last)))
    return float(last[1] * (size / last[0]) ** e)


class _Wrong(Exception):
    """A run's outcome is not what ``json.loads`` says."""


def measure(
    h: Workload,
    *,
    n: int | None = None,
    cap: float = CAP,
    repeat: int = REPEAT,
    limit: float = LIMIT,
    progress: Callable[[str], None] | None = None,
) -> Growth:
    """The growth exponent of ``h`` from ``n`` (default ``h.n``) to ``4n``; see the module
    documentation for the ladder of sizes and the cap. The runs at ``N`` and ``4N`` alternate,
    so that a change of load on the machine hits both alike."""
    big = h.n if n is None else n
    sizes = sorted({max(1, big // d) for d in LADDER} | {big, 4 * big})
    result = Growth(h.name, h.description, big, h.unit)
    points = result.points
    say = progress or (lambda text: None)
    docs: dict[int, Any] = {}
    samples: dict[int, list[float]] = {}

    def label(size: int) -> str:
        return "N" if size == big else "4N" if size == 4 * big else f"N/{big // size}"

    def allowance(size: int) -> float:
        return cap * (4 if size > big else 1)

    def once(size: int) -> None:
        prepared = docs[size]
        # The objects alive before the run (the workload's text, a whole benchmark's data when
        # run.py runs this) are set aside, so that the collections inside the run look at
        # what the run makes, and the time measures the parser, not the caller's heap.
        gc.collect()
        gc.freeze()
        try:
            with deadline(2 * allowance(size)):
                start = clock()
                outcome = h.run(prepared)
                took = clock() - start
        finally:
            gc.unfreeze()
        if not samples[size]:
            problem = h.check(size, prepared, outcome)
            if problem is not None:
                raise _Wrong(f"wrong at {label(size)} ({size:,} {h.unit}): {problem}")
        samples[size].append(took)

    def more(size: int, budget: float, count: int = max(1, repeat)) -> bool:
        runs = samples[size]
        return len(runs) < count and math.fsum(runs) < budget

    def alternate(budget: float, count: int) -> None:
        while more(big, budget, count) or more(4 * big, budget, count):
            for size in (big, 4 * big):
                if more(size, budget, count):
                    once(size)

    def point(size: int) -> tuple[int, float, int]:
        return (size, min(samples[size]), len(samples[size]))

    def show(size: int, seconds: float, runs: int) -> None:
        say(f"  {h.name:<24} {label(size):>5} = {size:>9,} {h.unit:<6} {seconds:9.4f} s ({runs})")

    def stop(note: str) -> Growth:
        """Give up before ``4N``: project ``t(N)``, ``t(4N)`` and the exponent from the
        largest sizes measured."""
        result.passed = False
        result.note = note
        if len(points) >= 2:
            e = _slope(points[-2], points[-1])
            result.exponent = e
            result.projected = True
            size, seconds, _ = points[-1]
            result.t_n = result.t_n or float(seconds * (big / size) ** e)
            result.t_4n = float(result.t_n * 4**e)
        return result

    current = sizes[0]
    try:
        for current in sizes:
            guess = _predict(points, current)
            if guess is not None and guess > allowance(current):
                return stop(
                    f"t({label(current)}) projected {guess:.3g} s > cap "
                    f"{allowance(current):g} s; exponent from "
                    f"{label(points[-2][0]) if len(points) > 1 else '?'} "
                    f"to {label(points[-1][0])}"
                )
            docs[current] = h.prepare(current)
            samples[current] = []
            once(current)
            while current < big and more(current, REPEAT_BUDGET / 6):
                once(current)
            if current < big:
                docs.pop(current)
            points.append(point(current))
            if current < big:
                show(*points[-1])
            if current == big:
                result.t_n = points[-1][1]
        # The best of a few runs at N and 4N, taken in turn; as many again when the exponent
        # is just over the limit (where a burst of load elsewhere can put it).
        current = 4 * big
        alternate(REPEAT_BUDGET, max(1, repeat))
        first = _slope(point(big), point(4 * big))
        if limit < first <= limit + BORDERLINE:
            alternate(3 * REPEAT_BUDGET, 2 * max(1, repeat))
            result.note = f"measured again: {first:.2f} after the first runs"
    except CapExceeded:
        result.passed = False
        if points and points[-1][0] < current:
            result.lower_bound = True
            result.exponent = _slope(points[-1], (current, 2 * allowance(current), 1))
        result.note = f"run at {label(current)} cut after {2 * allowance(current):g} s"
        return result
    except _Wrong as exc:
        result.passed = False
        result.note = str(exc)
        return result
    points[-2:] = [point(big), point(4 * big)]
    show(*points[-2])
    show(*points[-1])
    result.t_n = points[-2][1]
    result.t_4n = points[-1][1]
    result.exponent = _slope(points[-2], points[-1])
    result.passed = result.exponent <= limit
    if result.t_n < 0.02:
        result.note = "; ".join(
            filter(None, [result.note, "t(N) under 20 ms: noisy (raise N with --scale)"])
        )
    return result


def measure_all(
    chosen: Sequence[Workload],
    *,
    cap: float = CAP,
    repeat: int = REPEAT,
    limit: float = LIMIT,
    scale: float = 1.0,
    progress: Callable[[str], None] | None = None,
) -> list[Growth]:
    """:func:`measure` each workload in turn (``scale`` multiplies every ``N``)."""
    return [
        measure(
            h,
            n=max(1, round(h.n * scale)),
            cap=cap,
            repeat=repeat,
            limit=limit,
            progress=progress,
        )
        for h in chosen
    ]


# --------------------------------------------------------------------------- report


def _fmt_time(seconds: float | None, projected: bool = False) -> str:
    if seconds is None:
        return "—"
    if seconds < 1:
        text = f"{seconds * 1e3:.3g} ms" if seconds < 0.1 else f"{seconds * 1e3:.0f} ms"
    elif seconds < 100:
        text = f"{seconds:.3g} s"
    elif seconds < 3600:
        text = f"{seconds / 60:.1f} min"
    else:
        text = f"{seconds / 3600:.1f} h"
    return f"~{text}" if projected else text


def _fmt_exponent(g: Growth) -> str:
    if g.exponent is None:
        return "—"
    prefix = ">=" if g.lower_bound else "~" if g.projected else ""
    return f"{prefix}{g.exponent:.2f}"


def table(results: Sequence[Growth], limit: float = LIMIT) -> str:
    """A markdown table: one row per workload."""
    lines = [
        f"| workload | N | 4N | t(N) | t(4N) | exponent | <= {limit:g}? | note |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for g in results:
        measured_n = any(size == g.n for size, _, _ in g.points)
        measured_4n = any(size == 4 * g.n for size, _, _ in g.points)
        lines.append(
            f"| {g.name} | {g.n:,} | {4 * g.n:,} "
            f"| {_fmt_time(g.t_n, not measured_n)} | {_fmt_time(g.t_4n, not measured_4n)} "
            f"| {_fmt_exponent(g)} | {'PASS' if g.passed else 'FAIL'} "
            f"| {g.note.replace('|', '/')} |"
        )
    return "\n".join(lines)


def legend(results: Sequence[Growth]) -> str:
    """What each workload is."""
    return "\n".join(f"- `{g.name}`: {g.description} (n = {g.unit})" for g in results)


def section(
    results: Sequence[Growth], cap: float, limit: float = LIMIT, build: str | None = None
) -> str:
    """The "Hostile input" section of ``docs/benchmarks.md`` (``build``: a second section, of
    the compiled build, names it in its title)."""
    if build is not None:
        return "\n".join(
            [
                f"### Hostile input, {build} build",
                "",
                "The same workloads, measured in a second process on the "
                f"{build} build right after the section above.",
                "",
                table(results, limit),
                "",
            ]
        )
    return "\n".join(
        [
            "### Hostile input",
            "",
            "Documents with one very long token or very deep nesting, fed to `jsonsnap.Parser` "
            "one character (or 16) at a time, and uses of the API at the edges whose input "
            "grows: schemas, collect mode, views, provider streams (`benchmarks/hostile.py`, "
            "`benchmarks/edges.py`). CPU time of the whole "
            "run at N and 4N (best of up to 5, taken in turn) and the growth exponent "
            f"log(t(4N) / t(N)) / log 4: 1 is linear, 2 quadratic; PASS up to {limit:g}. `~` "
            f"marks a projection from smaller sizes where a run would have exceeded the cap "
            f"({cap:g} s at N), `>=` a lower bound from a run that was cut.",
            "",
            table(results, limit),
            "",
            legend(results),
            "",
        ]
    )


def summary(results: Sequence[Growth], limit: float = LIMIT) -> tuple[bool, str]:
    """``(passed, text)`` for a one-line target."""
    failed = [g for g in results if not g.passed]
    if not results:
        return True, "none run"
    if not failed:
        worst = max(results, key=lambda g: g.exponent or 0.0)
        largest = f"{worst.name} {_fmt_exponent(worst)}"
        return True, f"{len(results)} of {len(results)}; largest {largest}"
    listing = ", ".join(f"{g.name} {_fmt_exponent(g)}" for g in failed)
    return False, f"{len(failed)} of {len(results)} fail: {listing}"


# --------------------------------------------------------------------------- command line


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description="Growth exponents of jsonsnap.Parser on hostile inputs fed 1 char at a time."
    )
    ap.add_argument("--quick", action="store_true", help=f"N divided by {QUICK_DIVISOR}, cap 2 s")
    ap.add_argument("--only", default="", help="workloads, e.g. fraction,int/partial,nested")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every N by this")
    ap.add_argument(
        "--cap",
        type=float,
        default=None,
        help=f"CPU seconds a run at N may take (4x at 4N) before the workload fails on a "
        f"projection (default {CAP:g}; {QUICK_CAP:g} with --quick)",
    )
    ap.add_argument("--repeat", type=int, default=REPEAT, help="best of N runs per size")
    ap.add_argument("--limit", type=float, default=LIMIT, help="largest exponent that passes")
    ap.add_argument("--no-fail", action="store_true", help="exit 0 even when a workload fails")
    ap.add_argument("--list", action="store_true", help="list the workloads, then exit")
    ap.add_argument("--json", metavar="FILE", help="also write the results to FILE as JSON")
    ap.add_argument(
        "--compiled",
        metavar="DIR",
        help="measure the compiled build unpacked in DIR too, in a second process, after the "
        "build this process imports (dev.py bench passes build/compiled)",
    )
    return ap.parse_args(argv)


def measure_compiled(
    folder: str | Path,
    *,
    quick: bool = False,
    only: str = "",
    cap: float | None = None,
    scale: float = 1.0,
    progress: Callable[[str], None] | None = None,
) -> list[Growth]:
    """The same workloads measured on the compiled build unpacked in ``folder``: this script
    run again in a second process, with ``folder`` first on its ``PYTHONPATH``, and its
    ``--json`` results read back."""
    here = Path(__file__).resolve().parent
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "hostile.json"
        cmd = [sys.executable, str(here / "hostile.py"), "--no-fail", "--json", str(out)]
        cmd += ["--scale", repr(scale)] + (["--quick"] if quick else [])
        cmd += (["--only", only] if only else []) + (["--cap", repr(cap)] if cap else [])
        path = [str(Path(folder).resolve()), str(here), os.environ.get("PYTHONPATH", "")]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, path)),
            "JSONSNAP_EXPECT_BUILD": "compiled",
        }
        done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for line in done.stderr.decode(errors="replace").splitlines():
            if progress is not None:
                progress(f"[compiled] {line}")
        if not out.exists():
            raise RuntimeError(
                f"the compiled build's run wrote no results (exit {done.returncode})"
            )
        return [Growth(**record) for record in json.loads(out.read_text())]


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    everything = workloads(quick=args.quick)
    chosen = select(everything, args.only.split(",")) if args.only else everything
    if not chosen:
        names = ", ".join(h.name for h in everything)
        print(f"no workload matches {args.only!r}; known: {names}", file=sys.stderr)
        return 2
    if args.list:
        for h in chosen:
            print(f"{h.name:<24} N = {round(h.n * args.scale):>9,} {h.unit:<6} {h.description}")
        return 0
    cap = args.cap if args.cap is not None else QUICK_CAP if args.quick else CAP

    def progress(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    progress(f"jsonsnap from {jsonsnap.__file__} ({jsonsnap.__build__} build)")
    started = time.perf_counter()
    results = measure_all(
        chosen,
        cap=cap,
        repeat=args.repeat,
        limit=args.limit,
        scale=args.scale,
        progress=progress,
    )
    if args.json:
        Path(args.json).write_text(json.dumps([dataclasses.asdict(g) for g in results]))
    builds = [(jsonsnap.__build__, results)]
    if args.compiled:
        compiled = measure_compiled(
            args.compiled,
            quick=args.quick,
            only=args.only,
            cap=args.cap,
            scale=args.scale,
            progress=progress,
        )
        builds.append(("compiled", compiled))
    passed = True
    for build, measured in builds:
        if len(builds) > 1:
            print(f"{build} build:\n")
        print(table(measured, args.limit))
        print()
        print(legend(measured))
        ok, text = summary(measured, args.limit)
        passed = passed and ok
        print()
        print(f"{'PASS' if ok else 'FAIL'}  growth exponent <= {args.limit:g}: {text}")
        print()
    if any(isinstance(h, Edge) and h.name.startswith("collect/") for h in chosen):
        print(memory_section())
    progress(f"done in {time.perf_counter() - started:.0f} s (cap {cap:g} s)")
    return 0 if passed or args.no_fail else 1


if __name__ == "__main__":
    sys.exit(main())

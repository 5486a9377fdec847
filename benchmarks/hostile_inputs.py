"""The hostile inputs of ``hostile.py``: documents with one very long token or very deep
nesting, and how each is fed to :class:`jsonsnap.Parser`.

A :class:`Hostile` workload builds its document from a size ``n`` (digits, nesting depth or
characters), feeds it in fragments of one character (or 16) as its mode says, and checks the
outcome against ``json.loads`` once per size. :func:`workloads` is the whole table: numbers
(plain, and with ``partial_numbers``), nesting (snapshots, change records, a subscription, a
recursive schema), strings, the tolerant parser's repairs, several values, and the uses of the
API at the edges of ``edges.py``.
"""

from __future__ import annotations

import dataclasses
import json
import operator
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import jsonsnap
from edges import Edge, edges
from workloads import SEED, source_text

QUICK_DIVISOR = 4
"""``--quick`` divides every ``N`` by this."""

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


def _source(n: int) -> str:
    """``n`` characters of source-like text without quotes, backslashes or control
    characters but newlines."""
    text = source_text(n, random.Random(f"{SEED}-tolerant"))
    return "".join(c for c in text if c not in "\\\"'" and (c >= " " or c == "\n"))[:n]


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


#: The tolerant parser's hostile inputs: name, what it is, the document, its value.
_REPAIRS: Final[tuple[tuple[str, str, Callable[[int], str], Callable[[int], Any]], ...]] = (
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
    ("unclosed", "`'[' * n`, closed as it shows at `close()`", lambda n: "[" * n, _nested_value),
)


def tolerant() -> list[Hostile]:
    """Hostile input to the tolerant parser (``repair=True``): a repair on every line, or one
    long stretch of text that a repair reads, 1 char per ``feed()`` with ``snapshot()`` after
    each; then several values (``multiple_values=True``)."""
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
        for name, text, build, expected in _REPAIRS
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


#: The numbers, each a document of ``n`` digits: name, document, how it is shown.
_NUMBERS: Final[tuple[tuple[str, Callable[[int], str], str], ...]] = (
    ("fraction", fraction, "`'[0.' + '0'*n + '1]'`"),
    ("exponent", exponent, "`'[1e' + '0'*n + '1]'`"),
    ("exponent-signed", signed_exponent, "`'[1E+' + '0'*n + '1]'`"),
    ("int", integer, "`'[' + '1'*n + ' ]'` (JSONDecodeError past 4,300 digits)"),
    ("int-float", integer_float, "`'[' + '1'*n + '.0]'`"),
)
_DEEP = "`'['*n + ']'*n`"
#: The strings.
_STRINGS: Final = (
    Hostile(
        "string/schema",
        "a string of n chars, 1 char per `feed()`, checked against `maxLength` and "
        "`pattern`: read one escape at a time, each character's place counted",
        long_string,
        200_000,
        unit="chars",
        schema=LONG_STRING,
    ),
    Hostile(
        "string",
        "control: a string of n chars of source-like text, 1 char per `feed()`",
        long_string,
        500_000,
        unit="chars",
    ),
)


def numbers() -> list[Hostile]:
    """Each number fed alone, then with ``partial_numbers`` and a snapshot after each char."""
    plain = [
        Hostile(name, f"{text}, 1 char per `feed()`", build, 100_000)
        for name, build, text in _NUMBERS
    ]
    partial = [
        Hostile(
            f"{name}/partial",
            f"{text}, 1 char per `feed()`, `Parser(partial_numbers=True)`, `snapshot()` after each",
            build,
            100_000,
            mode="snapshot",
            partial_numbers=True,
        )
        for name, build, text in _NUMBERS
    ]
    return plain + partial


def nesting() -> list[Hostile]:
    """Arrays nested ``n`` deep: with snapshots, change records, a subscription, a schema."""
    snapshot = Hostile(
        "nested/snapshot",
        f"{_DEEP}, 1 char per `feed()`, `snapshot()` after each",
        nested,
        16_000,
        unit="depth",
        mode="snapshot",
    )
    watched = [
        Hostile(
            f"nested/{mode}-{size}",
            f"{_DEEP}, {_chars(size)} per `feed()`, {how}",
            nested,
            16_000,
            unit="depth",
            fragment=size,
            mode=mode,
        )
        for mode, how in _NESTED_MODES
        for size in (1, 16)
    ]
    checked = Hostile(
        "nested/schema",
        f"{_DEEP}, 16 chars per `feed()`, checked against a recursive `anyOf` (an array of "
        "itself, or an integer): a group of alternatives per level",
        nested,
        16_000,
        unit="depth",
        fragment=16,
        schema=NESTED_ANY_OF,
    )
    return [snapshot, *watched, checked]


def workloads(quick: bool = False) -> list[Workload]:
    """Every hostile workload (``quick``: ``N`` divided by 4)."""
    out: list[Workload] = [*numbers(), *nesting(), *_STRINGS, *tolerant(), *edges()]
    if quick:
        out = [dataclasses.replace(h, n=max(64, h.n // QUICK_DIVISOR)) for h in out]
    return out

"""What the simplest pure-Python code costs on the benchmark's workloads, next to jsonsnap.

    .venv/bin/python benchmarks/floor.py        # after `python3 dev.py bench` installed jiter
    .venv/bin/python benchmarks/floor.py --compiled build/compiled   # and the compiled build

A parser that keeps its state between fragments and is driven as the benchmark drives every
parser (``feed(fragment)`` then ``snapshot()`` for each fragment) pays at least the first of
these, whatever it does inside:

1. **calls**: two Python method calls per fragment, to methods that do nothing
   (``feed`` returns ``True``, ``snapshot`` returns the value);
2. **lane**: for text inside a string, the least a ``feed`` can do: test that the fragment is
   plain text, and append it to the string in place;
3. **tokens**: one compiled-regex match per JSON token, in a Python loop over the document (the
   least a tokenizer that reads one token per match does);
4. **values**: the same loop building the value as well (a stack of lists and dicts, numbers
   converted, strings decoded by the standard library's C scanner): a minimal non-incremental
   parser in Python, with no fragments, snapshots or error positions;
5. **empty feeds**: jsonsnap's own ``feed("")`` then ``snapshot()`` per fragment, the thinnest
   feed of the build measured (its call and the checks every call makes: open, not busy, no
   string being appended to), which no fragment can cost less than. With ``--compiled DIR`` the
   table is printed again for the compiled build in ``DIR``, measured in a worker process: the
   floor of the compiled build is its empty feed, the calls into compiled methods from Python.

The floors print as multiples of one ``json.loads`` of the whole document, measured in the same
run, beside jsonsnap's own time and, for the small tool call, jiter re-parsing the buffer after
each fragment. The calls are a floor for any parser driven this way, the tokens one for a
parser that reads one token per regex match; the minimal parser is a reference point (jsonsnap
reads several tokens in one match where it can).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import jsonsnap
import workloads
from builds import require_build

TOKEN = re.compile(
    r'[ \t\n\r]*(?:"(?:[^"\\]|\\.)*"|-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?'
    r"|true|false|null|[\[\]{}:,])"
)


class Empty:
    """``feed()`` and ``snapshot()`` that do nothing."""

    __slots__ = ("root",)

    def __init__(self) -> None:
        self.root: Any = {}

    def feed(self, data: str) -> bool:
        return True

    def snapshot(self) -> Any:
        return self.root


class Lane:
    """The least a ``feed()`` inside a string can do: check, then append in place."""

    __slots__ = ("key", "root")

    def __init__(self) -> None:
        self.root: dict[str, str] = {"content": ""}
        self.key = "content"

    def feed(self, data: str) -> bool:
        if data and '"' not in data and "\\" not in data and data.isprintable():
            root = self.root
            key = self.key
            s = root[key]
            root[key] = ""
            s += data
            root[key] = s
        return True

    def snapshot(self) -> Any:
        return self.root


def best(run: Callable[[], object], seconds: float = 0.3) -> float:
    """The best time of ``run`` over about ``seconds`` (at least 3 runs)."""
    times: list[float] = []
    deadline = time.perf_counter() + seconds
    while len(times) < 3 or time.perf_counter() < deadline:
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def drive(make: Callable[[], Any], fragments: tuple[str, ...]) -> Callable[[], None]:
    def run() -> None:
        parser = make()
        feed = parser.feed
        snapshot = parser.snapshot
        for fragment in fragments:
            feed(fragment)
            snapshot()

    return run


def empty_feeds(fragments: tuple[str, ...]) -> Callable[[], None]:
    """jsonsnap's thinnest feed: ``feed("")`` and ``snapshot()`` once per fragment."""
    blanks = ("",) * len(fragments)
    return drive(jsonsnap.Parser, blanks)


def tokens(text: str) -> Callable[[], int]:
    match = TOKEN.match

    def run() -> int:
        pos = count = 0
        end = len(text)
        while pos < end:
            m = match(text, pos)
            if m is None:
                break
            pos = m.end()
            count += 1
        return count

    return run


_DIGITS = frozenset("-0123456789")
_CONSTANTS = {"true": True, "false": False, "null": None}
_scanstring: Any = json.decoder.scanstring  # type: ignore[attr-defined]


def values(text: str) -> Callable[[], Any]:
    """A minimal parser of a valid document: one regex match per token, a stack of containers."""
    match = TOKEN.match

    def run() -> Any:
        stack: list[Any] = []
        keys: list[Any] = []
        box: list[Any] = [None]
        key: Any = None
        pos = 0
        end = len(text)
        while pos < end:
            m = match(text, pos)
            if m is None:
                break
            pos = m.end()
            token = m[0].lstrip(" \t\n\r")
            c = token[0]
            if c in ",:":
                continue
            if c in "]}":
                stack.pop()
                key = keys.pop()
                continue
            if c == "[" or c == "{":
                value: Any = [] if c == "[" else {}
            elif c == '"':
                value = _scanstring(token, 1, True)[0]
                if stack and type(stack[-1]) is dict and key is None:
                    key = value
                    continue
            elif c in _DIGITS:
                value = float(token) if "." in token or "e" in token or "E" in token else int(token)
            else:
                value = _CONSTANTS[token]
            if not stack:
                box[0] = value
            elif type(stack[-1]) is list:
                stack[-1].append(value)
            else:
                stack[-1][key] = value
                key = None
            if c == "[" or c == "{":
                stack.append(value)
                keys.append(key)
                key = None
        return box[0]

    return run


def jiter_run(fragments: tuple[str, ...]) -> Callable[[], None] | None:
    try:
        import jiter
    except ImportError:
        return None

    def run() -> None:
        buf = ""
        for fragment in fragments:
            buf += fragment
            jiter.from_json(buf.encode(), partial_mode="trailing-strings")

    return run


def main() -> None:
    require_build()
    cli = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_argument("--compiled", metavar="DIR", help="also measure the compiled build in DIR")
    args = cli.parse_args()
    table()
    if args.compiled:
        # The same script in a worker process that imports the compiled build.
        env = {
            **os.environ,
            "PYTHONPATH": str(Path(args.compiled).resolve()),
            "JSONSNAP_EXPECT_BUILD": "compiled",
        }
        sys.stdout.flush()
        subprocess.run([sys.executable, __file__], env=env, check=True)


def measure(workload: workloads.Workload) -> dict[str, Any]:
    """The floors of one workload, and jsonsnap's time (seconds), with ``json.loads``'s."""
    text, fragments = workload.text, workload.fragments
    calls = best(drive(Empty, fragments))
    token_run = tokens(text)
    build = values(text)
    assert build() == json.loads(text), workload.name
    jiter = jiter_run(fragments) if workload.group == "A" else None
    return {
        "fragments": len(fragments),
        "tokens": token_run(),
        "loads": best(lambda: json.loads(text)),
        "jsonsnap": best(drive(jsonsnap.Parser, fragments)),
        "empty": best(empty_feeds(fragments)),
        "calls": calls,
        "tokens floor": calls + best(token_run),
        "values floor": calls + best(build),
        "lane": best(drive(Lane, fragments)) if workload.group == "F" else None,
        "jiter": best(jiter) if jiter is not None else None,
    }


def table() -> None:
    """Measure the floors on the build imported here and print them as a table."""
    chosen = {"A tool call", "C 20,000", "D deep 500", "E escapes 100 KB", "F 1-char 100 KB"}
    rows = [(w.name, measure(w)) for w in workloads.build() if w.name in chosen]
    print(
        f"Python {sys.version.split()[0]}, jsonsnap's {jsonsnap.__build__} build; times are the "
        "best of repeated runs\n"
    )
    print(
        "| workload | fragments | tokens | json.loads | jsonsnap | empty feeds "
        "| jsonsnap / empty feeds | calls floor | calls + tokens floor | calls + values floor "
        "| lane floor | jiter-trailing |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, row in rows:
        loads = row["loads"]

        def x(t: float | None, loads: float = loads) -> str:
            return "" if t is None else f"{t * 1e3:.3f} ms ({t / loads:.1f}x)"

        print(
            f"| {name} | {row['fragments']:,} | {row['tokens']:,} | {loads * 1e3:.3f} ms "
            f"| {x(row['jsonsnap'])} | {x(row['empty'])} | {row['jsonsnap'] / row['empty']:.1f}x "
            f"| {x(row['calls'])} | {x(row['tokens floor'])} | {x(row['values floor'])} "
            f"| {x(row['lane'])} | {x(row['jiter'])} |"
        )


if __name__ == "__main__":
    main()

"""What the simplest pure-Python code costs on the benchmark's workloads, next to jsonsnap.

    .venv/bin/python benchmarks/floor.py        # after `python3 dev.py bench` installed jiter

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
   parser in Python, with no fragments, snapshots or error positions.

The floors print as multiples of one ``json.loads`` of the whole document, measured in the same
run, beside jsonsnap's own time and, for the small tool call, jiter re-parsing the buffer after
each fragment. The calls are a floor for any parser driven this way, the tokens one for a
parser that reads one token per regex match; the minimal parser is a reference point (jsonsnap
reads several tokens in one match where it can).
"""

from __future__ import annotations

import json
import re
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
    chosen = {"A tool call", "C 20,000", "D deep 500", "E escapes 100 KB", "F 1-char 100 KB"}
    rows = []
    for workload in workloads.build():
        if workload.name not in chosen:
            continue
        text, fragments = workload.text, workload.fragments
        loads = best(lambda text=text: json.loads(text))  # type: ignore[misc]
        ours = best(drive(jsonsnap.Parser, fragments))
        calls = best(drive(Empty, fragments))
        token_run = tokens(text)
        count = token_run()
        floor = calls + best(token_run)
        build = values(text)
        assert build() == json.loads(text), workload.name
        built = calls + best(build)
        lane = best(drive(Lane, fragments)) if workload.group == "F" else None
        jiter = jiter_run(fragments) if workload.group == "A" else None
        jiter_time = best(jiter) if jiter is not None else None
        rows.append(
            (workload, len(fragments), count, loads, ours, calls, floor, built, lane, jiter_time)
        )
    print(f"Python {sys.version.split()[0]}; times are the best of repeated runs\n")
    print(
        "| workload | fragments | tokens | json.loads | jsonsnap | calls floor "
        "| calls + tokens floor | calls + values floor | lane floor | jiter-trailing |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for workload, frags, count, loads, ours, calls, floor, built, lane, jiter_time in rows:

        def x(t: float | None, loads: float = loads) -> str:
            return "" if t is None else f"{t * 1e3:.3f} ms ({t / loads:.1f}x)"

        print(
            f"| {workload.name} | {frags:,} | {count:,} | {loads * 1e3:.3f} ms | {x(ours)} "
            f"| {x(calls)} | {x(floor)} | {x(built)} | {x(lane)} | {x(jiter_time)} |"
        )


if __name__ == "__main__":
    main()

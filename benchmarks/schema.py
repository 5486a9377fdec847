"""What checking against a schema costs: the same stream parsed plain and checked, side by side.

    python benchmarks/schema.py            # A, B 1 MB and C 20,000
    python benchmarks/schema.py --quick    # A, B 10 KB and C 2,000

Streams the documents of workloads A (the small tool call in token-sized fragments, with the
schema of a ``write_file`` tool: each argument's type, all of them required, no other key),
B (a file write, schema ``{path: string, content: string}``, both required, no other key) and
C (an array of records, with a schema for the record: every field's type, ``required``,
``additionalProperties: false``, number bounds, a fixed-length ``dims`` array) through
``jsonsnap.Parser()`` and through ``jsonsnap.Parser(schema=...)``, a snapshot after each
fragment, in interleaved rounds (plain, checked, plain, checked...) so that both see the same
machine. A stream of A takes microseconds, so each of its timings is of ``A_REPEAT`` streams
(the times reported are per stream). Reports the best time of each, the ratio of checked to
plain (targets, compiled: at most 1.5x; pure: A at most 2.5x, B 1.5x, C 2x) and both against
one ``json.loads`` of the document. ``run.py`` includes this as group ``S``.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jsonsnap
import workloads as workloads_module
from builds import require_build

clock = time.perf_counter
#: How many streams of workload A each of its timings takes.
A_REPEAT = 200

TOOL_CALL: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "content": {"type": "string"},
        "mode": {"type": "string"},
        "create_dirs": {"type": "boolean"},
        "encoding": {"type": "string"},
        "line_count": {"type": "integer", "minimum": 0},
        "backup": {"type": ["string", "null"]},
    },
    "required": ["path", "content", "mode", "create_dirs", "encoding", "line_count", "backup"],
    "additionalProperties": False,
}
FILE_WRITE: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"],
    "additionalProperties": False,
}
_NUMBER = {"type": "number"}
RECORDS: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "id": {"type": "integer", "minimum": 0},
            "name": {"type": "string"},
            "price": _NUMBER,
            "qty": {"type": "integer", "minimum": 0, "maximum": 500},
            "active": {"type": "boolean"},
            "note": {"type": ["string", "null"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "dims": {
                "type": "array",
                "prefixItems": [_NUMBER, _NUMBER, {"type": "array"}],
                "minItems": 3,
                "maxItems": 3,
            },
        },
        "required": ["id", "name", "price", "qty", "active", "note", "tags", "dims"],
        "additionalProperties": False,
    },
}
#: The workloads measured, with their schema and the largest checked/plain ratio that passes
#: on the compiled build and on the pure one (whose checker is interpreted: a small call's
#: few values cost it more beside its own fixed costs).
CASES: tuple[tuple[str, str, dict[str, Any], float, float], ...] = (
    ("A tool call", "A tool call", TOOL_CALL, 1.5, 2.5),
    ("B 1 MB", "B 10 KB", FILE_WRITE, 1.5, 1.5),
    ("C 20,000", "C 2,000", RECORDS, 1.5, 2.0),
)


@dataclass
class Row:
    workload: str
    loads: float
    plain: float
    checked: float
    limit: float

    @property
    def ratio(self) -> float:
        return self.checked / self.plain

    @property
    def passed(self) -> bool:
        return self.ratio <= self.limit


def stream(fragments: Sequence[str], schema: jsonsnap.Schema | None) -> Any:
    parser = jsonsnap.Parser(schema=schema) if schema is not None else jsonsnap.Parser()
    for fragment in fragments:
        parser.feed(fragment)
        parser.snapshot()
    return parser.close()


def _timed(func: Callable[[], object], times: int = 1) -> float:
    """The time of one call of ``func``, over ``times`` calls."""
    gc.collect()
    start = clock()
    for _ in range(times):
        func()
    return (clock() - start) / times


def _ms(seconds: float) -> str:
    """A time in milliseconds, with the digits a time of microseconds needs too."""
    ms = seconds * 1e3
    return f"{ms:.1f} ms" if ms >= 10 else f"{ms:.3f} ms"


def measure(
    quick: bool = False, rounds: int = 7, progress: Callable[[str], None] = print
) -> list[Row]:
    """Measure each case; the plain and checked runs interleaved, ``rounds`` of each."""
    built = {w.name: w for w in workloads_module.build(quick=quick, groups="ABC")}
    rows = []
    compiled = jsonsnap.__build__ == "compiled"
    for full, small, schema_json, compiled_limit, pure_limit in CASES:
        limit = compiled_limit if compiled else pure_limit
        wl = built[small if quick else full]
        schema = jsonsnap.Schema(schema_json)
        expected = json.loads(wl.text)
        if stream(wl.fragments, schema) != expected or stream(wl.fragments, None) != expected:
            raise AssertionError(f"{wl.name}: a final value differs from json.loads")
        fragments, text = wl.fragments, wl.text
        runs: list[Callable[[], object]] = [
            functools.partial(stream, fragments, None),
            functools.partial(stream, fragments, schema),
            functools.partial(json.loads, text),
        ]
        times = A_REPEAT if wl.group == "A" else 1
        plain = checked = loads = float("inf")
        for _ in range(rounds):
            plain = min(plain, _timed(runs[0], times))
            checked = min(checked, _timed(runs[1], times))
            loads = min(loads, _timed(runs[2], times))
        row = Row(wl.name, loads, plain, checked, limit)
        progress(f"  {wl.name}: plain {_ms(plain)}, checked {_ms(checked)}")
        rows.append(row)
    return rows


def section(rows: list[Row]) -> str:
    """The markdown section of docs/benchmarks.md."""
    lines = [
        "### Schema checking: the same stream plain and checked",
        "",
        "`Parser(schema=...)` against `Parser()` on the same fragments (a snapshot after each),",
        "interleaved rounds, best of each (`benchmarks/schema.py`). A: a `write_file` tool's",
        "schema (each argument's type, all required, no other key); B: `{path: string, content:",
        "string}`; C: a schema for each record (types, bounds, `required`,",
        "`additionalProperties: false`, a fixed-length array).",
        "",
        "| workload | json.loads | plain | checked | checked / plain | target "
        "| checked / json.loads |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines.extend(
        f"| {r.workload} | {r.loads * 1e3:.3f} ms | {_ms(r.plain)} | "
        f"{_ms(r.checked)} | **{r.ratio:.2f}x** | <= {r.limit:g}x "
        f"{'PASS' if r.passed else 'FAIL'} | {r.checked / r.loads:.1f}x |"
        for r in rows
    )
    return "\n".join(lines) + "\n"


def summary(rows: list[Row]) -> tuple[bool, str]:
    text = ", ".join(f"{r.workload} {r.ratio:.2f}x (<= {r.limit:g})" for r in rows)
    return all(r.passed for r in rows), text


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true", help="the small sizes")
    ap.add_argument("--rounds", type=int, default=7, help="rounds of each (default 7)")
    args = ap.parse_args(argv)
    require_build()
    rows = measure(quick=args.quick, rounds=args.rounds)
    print(section(rows))
    passed, text = summary(rows)
    print(("PASS " if passed else "FAIL ") + text)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())

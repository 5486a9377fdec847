"""What a string checked character by character costs: the same stream, its content unchecked
and checked by each keyword that reads it exactly.

    python benchmarks/exact_strings.py            # B 1 MB
    python benchmarks/exact_strings.py --quick    # B 10 KB
    python benchmarks/exact_strings.py --compiled build/compiled   # and the compiled build

Streams the document of workload B (a file write, 16-64 characters per fragment, a snapshot
after each) through ``jsonsnap.Parser(schema=...)``, where the schema is ``{path: string,
content: ...}`` and ``content`` is a string with (a) no other keyword, (b) ``maxLength``
2,000,000, (c) a ``pattern`` that accepts it (``^[\\s\\S]*$``, and ``^(?:[^\\x00]|\\n)*$``,
whose alternation inside a repetition the pattern automaton reads), (d) ``enum`` and ``const``
of the content itself (its prefixes compared as it comes). The cases run in interleaved rounds
(a, b, c, d, a, b, ...) so that all see the same machine; the report gives the best time of
each and its ratio to (a). The target: every keyword at most 2x the unchecked string.
``run.py`` includes this as group ``X``. The build measured is the one imported (its name is
printed; ``--expect`` refuses another); ``--compiled DIR`` measures the compiled build in
``DIR`` too, in a second process (this script again, with ``DIR`` first on its path), and
prints its table after the first.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import jsonsnap
import schema as schema_module
import workloads as workloads_module

clock = time.perf_counter

#: The largest checked/unchecked ratio that passes.
LIMIT = 2.0


@dataclass
class Row:
    case: str
    keyword: str
    seconds: float
    unchecked: float

    @property
    def ratio(self) -> float:
        return self.seconds / self.unchecked

    @property
    def passed(self) -> bool:
        return self.ratio <= LIMIT


def cases(content: str) -> list[tuple[str, str, dict[str, Any]]]:
    """The cases: a name, the keyword as the table shows it, and the schema of ``content``."""
    return [
        ("(a) unchecked", "-", {"type": "string"}),
        ("(b) maxLength", "`maxLength: 2000000`", {"type": "string", "maxLength": 2_000_000}),
        ("(c) pattern", "`pattern: ^[\\s\\S]*$`", {"type": "string", "pattern": r"^[\s\S]*$"}),
        (
            "(c) pattern, alternation",
            "`pattern: ^(?:[^\\x00]|\\n)*$`",
            {"type": "string", "pattern": r"^(?:[^\x00]|\n)*$"},
        ),
        ("(d) enum", "`enum: [the content]`", {"type": "string", "enum": [content]}),
        ("(d) const", "`const: the content`", {"type": "string", "const": content}),
    ]


def file_write(content: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": content},
        "required": ["path", "content"],
        "additionalProperties": False,
    }


#: A stream of fragments, a snapshot after each, and its timing: as ``schema.py`` does.
stream = schema_module.stream
_timed = schema_module._timed


def measure(
    quick: bool = False, rounds: int = 7, progress: Callable[[str], None] = print
) -> list[Row]:
    """Each case, in ``rounds`` interleaved rounds; the best time of each."""
    wl = next(iter(workloads_module.build(quick=quick, groups="B")[-1:]))
    expected = json.loads(wl.text)
    made = [
        (name, keyword, jsonsnap.Schema(file_write(s)))
        for name, keyword, s in cases(expected["content"])
    ]
    runs = []
    for name, _, schema in made:
        if stream(wl.fragments, schema) != expected:
            raise AssertionError(f"{wl.name}, {name}: the final value differs from json.loads")
        runs.append(functools.partial(stream, wl.fragments, schema))
    best = [float("inf")] * len(runs)
    for _ in range(rounds):
        for i, run in enumerate(runs):
            best[i] = min(best[i], _timed(run))
    rows = [
        Row(name, keyword, t, best[0]) for (name, keyword, _), t in zip(made, best, strict=True)
    ]
    for r in rows:
        progress(f"  {wl.name} {r.case}: {r.seconds * 1e3:.1f} ms ({r.ratio:.2f}x)")
    return rows


def measure_compiled(
    folder: str | Path,
    *,
    quick: bool = False,
    rounds: int = 7,
    progress: Callable[[str], None] = print,
) -> list[Row]:
    """The same cases on the compiled build in ``folder``: this script in a second process,
    with ``folder`` first on its ``PYTHONPATH``; its ``--json`` rows read back."""
    here = Path(__file__).resolve().parent
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "exact_strings.json"
        cmd = [sys.executable, str(here / "exact_strings.py"), "--expect", "compiled"]
        cmd += ["--json", str(out), "--rounds", str(rounds)] + (["--quick"] if quick else [])
        path = [str(Path(folder).resolve()), str(here), os.environ.get("PYTHONPATH", "")]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, path))}
        done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for line in done.stderr.decode(errors="replace").splitlines():
            progress(f"[compiled] {line}")
        if not out.exists():
            raise RuntimeError(f"the compiled build's run wrote no rows (exit {done.returncode})")
        return [Row(**record) for record in json.loads(out.read_text())]


def group(
    quick: bool,
    compiled: str | Path | None,
    add: Callable[[str], None],
    progress: Callable[[str], None],
) -> list[Row]:
    """``run.py``'s group ``X``: the rows of this build, and its section (``add``); then the
    section of the compiled build in ``compiled``, when given."""
    rows = measure(quick=quick, progress=progress)
    add(section(rows))
    if compiled is not None:
        add(section(measure_compiled(compiled, quick=quick, progress=progress), "compiled"))
    return rows


def section(rows: list[Row], build: str = jsonsnap.__build__) -> str:
    """The markdown section of docs/benchmarks.md."""
    lines = [
        f"### Exact strings: a checked string against the same string unchecked ({build} build)",
        "",
        "Workload B (a file write, 16-64 characters per fragment, a snapshot after each) with",
        "`content` checked by each keyword that reads a string character by character;",
        "interleaved rounds, best of each (`benchmarks/exact_strings.py`).",
        "",
        "| case | keyword | time | / unchecked | target |",
        "|---|---|---:|---:|---:|",
    ]
    for r in rows:
        verdict = "" if r.keyword == "-" else f"<= {LIMIT:g}x {'PASS' if r.passed else 'FAIL'}"
        lines.append(
            f"| {r.case} | {r.keyword} | {r.seconds * 1e3:.1f} ms | **{r.ratio:.2f}x** "
            f"| {verdict} |"
        )
    return "\n".join(lines) + "\n"


def summary(rows: list[Row]) -> tuple[bool, str]:
    checked = rows[1:]
    text = ", ".join(f"{r.case} {r.ratio:.2f}x" for r in checked) + f" (<= {LIMIT:g})"
    return all(r.passed for r in checked), text


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true", help="B 10 KB instead of B 1 MB")
    ap.add_argument("--rounds", type=int, default=7, help="rounds of each (default 7)")
    ap.add_argument("--expect", choices=("pure", "compiled"), help="refuse any other build")
    ap.add_argument("--compiled", metavar="DIR", help="also measure the compiled build in DIR")
    ap.add_argument("--json", metavar="FILE", help="write the rows to FILE")
    args = ap.parse_args(argv)
    if args.expect is not None and jsonsnap.__build__ != args.expect:
        print(f"jsonsnap is the {jsonsnap.__build__} build, not the {args.expect} build")
        return 2
    say = functools.partial(print, file=sys.stderr, flush=True)
    say(f"jsonsnap from {jsonsnap.__file__} ({jsonsnap.__build__} build)")
    tables = [(jsonsnap.__build__, measure(quick=args.quick, rounds=args.rounds, progress=say))]
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in tables[0][1]]))
    if args.compiled:
        rows = measure_compiled(args.compiled, quick=args.quick, rounds=args.rounds, progress=say)
        tables.append(("compiled", rows))
    passed = True
    for build, rows in tables:
        print(section(rows, build))
        ok, text = summary(rows)
        passed = passed and ok
        print(("PASS " if ok else "FAIL ") + f"{build} build: {text}\n")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())

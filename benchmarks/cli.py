"""What a terminal costs the command line: each command in a pseudo-terminal against a pipe.

    python benchmarks/cli.py            # best of 3 runs each; exit status 1 above 3x
    python benchmarks/cli.py --rounds 1

Runs ``python -m jsonsnap`` on generated inputs, with its output on a pty of 100x30 (read as
fast as it comes, as a terminal emulator would) and on a pipe, and prints the wall time of
each and their ratio. The live region is redrawn at most at a frame rate and draws only what
fits the screen, so a terminal should cost about what a pipe costs: the target is at most 3x.

- ``parse``: a 1 MB JSON string (one line), read 4 KiB at a time.
- ``replay --no-delay`` of Anthropic recordings whose tool call streams a 400 KB argument in
  16-64 character fragments: a file of short lines, one single-line string, and a list of
  records; and of one that streams 400 KB of text (typed out, no panel).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import random
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable
from pathlib import Path

from builds import require_build

COLUMNS, ROWS = 100, 30
TARGET = 3.0
WORDS = ("the", "of", "stream", "value", "parser", "snapshot", "fragment", "terminal", "record")


def text(size: int, rng: random.Random, line: int | None) -> str:
    """About ``size`` characters of words, with a newline every ``line`` words (or none)."""
    out: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        out.append(word)
        length += len(word) + 1
        if line and len(out) % line == 0:
            out.append("\n")
    return " ".join(out)


def pieces(text: str, rng: random.Random) -> list[str]:
    """``text`` cut into pieces of 16 to 64 characters."""
    out = []
    pos = 0
    while pos < len(text):
        step = rng.randint(16, 64)
        out.append(text[pos : pos + step])
        pos += step
    return out


def recording(arguments: object, rng: random.Random, typed: str = "") -> bytes:
    """An Anthropic Messages stream whose one tool call streams ``arguments``, after a text
    block that streams ``typed`` (if any)."""

    def event(kind: str, data: dict[str, object]) -> str:
        return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"

    message = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
    usage = {"input_tokens": 10, "output_tokens": 1}
    parts = [
        event("message_start", {"message": {**message, "usage": usage}}),
        event(
            "content_block_start",
            {"index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "write"}},
        ),
    ]
    if typed:
        parts[1:] = [event("content_block_start", {"index": 0, "content_block": {"type": "text"}})]
        parts += (
            event("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": t}})
            for t in pieces(typed, rng)
        )
        parts.append(event("content_block_stop", {"index": 0}))
        tool = {"type": "tool_use", "id": "toolu_1", "name": "write"}
        parts.append(event("content_block_start", {"index": 1, "content_block": tool}))
    index = 1 if typed else 0
    for piece in pieces(json.dumps(arguments), rng):
        delta = {"type": "input_json_delta", "partial_json": piece}
        parts.append(event("content_block_delta", {"index": index, "delta": delta}))
    parts += [
        event("content_block_stop", {"index": index}),
        event("message_delta", {"delta": {"stop_reason": "tool_use"}, "usage": usage}),
        event("message_stop", {}),
    ]
    return "".join(parts).encode()


def inputs(folder: Path) -> dict[str, list[str]]:
    """The workloads: a name and the command line's arguments, their files written."""
    rng = random.Random(7)
    string = folder / "string.json"
    string.write_text(json.dumps(text(1_000_000, rng, None)))
    size = 400_000
    shapes: dict[str, object] = {
        "file": {"path": "notes.txt", "content": text(size, rng, 12)},
        "single-line": {"path": "notes.txt", "content": text(size, rng, None)},
        "records": {"records": [{"id": i, "name": f"r{i}", "ok": i % 3 == 0} for i in range(9000)]},
    }
    work = {"parse 1 MB string": ["parse", str(string)]}
    for name, arguments in shapes.items():
        path = folder / f"{name}.sse"
        path.write_bytes(recording(arguments, rng))
        work[f"replay 400 KB {name}"] = ["replay", str(path), "--no-delay"]
    path = folder / "text.sse"
    path.write_bytes(recording({"path": "a.txt"}, rng, text(size, rng, 15)))
    work["replay 400 KB of text"] = ["replay", str(path), "--no-delay"]
    return work


def in_pty(args: list[str]) -> float:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | {"TERM": "xterm-256color"}
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "jsonsnap", *args], stdout=slave, stderr=slave, env=env
    )
    os.close(slave)
    while select.select([master], [], [], 60)[0]:
        try:
            if not os.read(master, 1 << 16):
                break
        except OSError:  # EIO: the program has exited
            break
    process.wait()
    took = time.perf_counter() - start
    os.close(master)
    if process.returncode:
        raise SystemExit(f"{args}: exit status {process.returncode} in a pty")
    return took


def in_pipe(args: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "jsonsnap", *args], capture_output=True, check=False
    )
    took = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"{args}: exit status {done.returncode} in a pipe")
    return took


def best(run: Callable[[list[str]], float], args: list[str], rounds: int) -> float:
    return min(run(args) for _ in range(rounds))


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--rounds", type=int, default=3, help="runs of each (the best counts)")
    rounds = options.parse_args().rounds
    require_build()
    worst = 0.0
    with tempfile.TemporaryDirectory() as folder:
        print(f"{'workload':<28} {'pty':>8} {'pipe':>8} {'ratio':>6}")
        for name, args in inputs(Path(folder)).items():
            terminal, pipe = best(in_pty, args, rounds), best(in_pipe, args, rounds)
            ratio = terminal / pipe
            worst = max(worst, ratio)
            print(f"{name:<28} {terminal:>7.2f}s {pipe:>7.2f}s {ratio:>5.2f}x", flush=True)
    verdict = "within" if worst <= TARGET else "ABOVE"
    print(f"worst ratio {worst:.2f}x: {verdict} the {TARGET:g}x target")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())

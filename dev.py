#!/usr/bin/env python3
"""Project tasks that work on a fresh clone with only Python and pip.

    python3 dev.py demo    # replay a recorded tool call that writes a file, with its live preview
    python3 dev.py test    # the whole test suite, then mypy --strict and ruff
    python3 dev.py bench   # the benchmarks against json.loads and the peers (see README)

Each task creates ``.venv`` in the checkout on first use and installs what it needs into it
(again only when ``pyproject.toml`` changes). Extra arguments go to the tool (``pytest`` for
``test``).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")


def ensure_env(extras: str) -> None:
    """Create the virtual environment and install the project with ``extras`` when needed."""
    if not PYTHON.exists():
        print(f"creating {VENV.relative_to(ROOT)} ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + extras.encode()).hexdigest()
    stamp = VENV / f".installed-{extras or 'base'}"
    if stamp.exists() and stamp.read_text() == digest:
        return
    target = f".[{extras}]" if extras else "."
    print(f"installing {target} into .venv ...", flush=True)
    pip = [str(PYTHON), "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "install", "-e", target], cwd=ROOT, check=True)
    stamp.write_text(digest)


def run(*cmd: str) -> int:
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT).returncode


def main(argv: list[str]) -> int:
    task, args = (argv[0], argv[1:]) if argv else ("help", [])
    if task == "demo":
        ensure_env("")
        fixture = "fixtures/anthropic/text_then_write_file.sse"
        return run(str(PYTHON), "-m", "jsonsnap", "replay", fixture, *args)
    if task == "test":
        ensure_env("test,lint")
        status = run(str(PYTHON), "-m", "pytest", *args)
        if status == 0:
            status = run(str(PYTHON), "-m", "mypy")
        if status == 0:
            status = run(str(PYTHON), "-m", "ruff", "check", ".")
        if status == 0:
            status = run(str(PYTHON), "-m", "ruff", "format", "--check", ".")
        return status
    if task == "bench":
        ensure_env("bench")
        return run(str(PYTHON), "benchmarks/run.py", *args)
    print(__doc__)
    return 0 if task in ("help", "-h", "--help") else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

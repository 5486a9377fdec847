"""The compiled build beside the pure one: a worker process that measures it, cell by cell.

With ``run.py --compiled DIR``, ``run.py`` starts one :class:`Worker`: this script, run as
``compiled.py SPEC`` with ``DIR`` and ``benchmarks/`` first on its ``PYTHONPATH``. The worker
checks that the jsonsnap it imports is the compiled build from ``DIR`` (``builds.build_problem``),
builds the same workloads as ``run.py`` (fingerprinted: they must match), then measures the
jsonsnap peer on each workload that ``run.py`` names on its standard input, as
``measuring.measure_cell`` measures every cell, and answers with the cell as one JSON line.
Only one of the two processes is timing at any moment.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import jsonsnap
import peers as peers_module
import workloads as workloads_module
from builds import build_problem
from measuring import COMPILED, Cell, Settings, describe_error, measure_cell
from peers import Peer
from projection import Prefixes
from workloads import Workload

BENCH = Path(__file__).resolve().parent


class CompiledBuild(Peer):
    """The compiled build's row in the parser table; its cells come from a :class:`Worker`."""

    id = COMPILED
    distribution = "jsonsnap"
    model = "incremental"
    pure_python = False
    notes = (
        "the same source compiled with mypyc (compiled build), measured in its own process in "
        "the same run"
    )

    def __init__(self, version: str) -> None:
        super().__init__()
        self._version = version

    def version(self) -> str:
        return self._version


def fingerprint(wls: Sequence[Workload]) -> str:
    """A digest of the workloads' names, texts and cut points: the same in two processes when
    they stream the same fragments."""
    digest = hashlib.sha256()
    for wl in wls:
        digest.update(wl.name.encode() + b"\0" + wl.text.encode() + b"\0")
        digest.update(",".join(str(len(f)) for f in wl.fragments).encode() + b"\1")
    return digest.hexdigest()


def worker(spec: str) -> int:
    """``compiled.py SPEC``: measure the jsonsnap peer (the compiled build in
    ``SPEC["dir"]``, which must be the one imported) on each workload named by a line of
    standard input; answer one JSON line per request on standard output (the cell, or
    ``{"error": ...}``). The first line says it is ready, or why not."""
    config: dict[str, Any] = json.loads(spec)
    replies = sys.stdout
    sys.stdout = sys.stderr  # standard output carries the replies only

    def reply(message: dict[str, Any]) -> None:
        replies.write(json.dumps(message) + "\n")
        replies.flush()

    problem = build_problem("compiled", Path(config["dir"]))
    if problem is not None:
        reply({"error": problem})
        return 1
    settings = Settings(**config["settings"])
    wls = workloads_module.build(quick=settings.quick, groups=config["groups"])
    by_name = {wl.name: wl for wl in wls}
    peer = peers_module.Jsonsnap()
    reply(
        {
            "jsonsnap": str(Path(jsonsnap.__file__ or "").resolve().parent),
            "version": jsonsnap.__version__,
            "fingerprint": fingerprint(wls),
        }
    )
    for line in sys.stdin:
        name = line.rstrip("\n")
        wl = by_name.get(name)
        if wl is None:
            reply({"error": f"no workload named {name!r} here"})
            continue
        try:
            expected = json.loads(wl.text)
            cell = measure_cell(peer, wl, expected, Prefixes.of(wl.fragments), settings)
        except Exception as exc:  # measure_cell reports the parser's own errors in the cell
            reply({"error": f"{name}: {describe_error(exc)}"})
            continue
        reply({"cell": asdict(cell)})
    return 0


class WorkerError(Exception):
    """The compiled build's worker failed, or answered with an error."""


class Worker:
    """The worker process that measures the compiled build in ``folder`` (``compiled.py``,
    with ``folder`` and the benchmarks first on its ``PYTHONPATH``)."""

    def __init__(self, folder: Path, settings: Settings, groups: Sequence[str]) -> None:
        self.folder = folder
        self.hello: dict[str, Any] = {}
        spec = {"dir": str(folder.resolve()), "settings": asdict(settings), "groups": list(groups)}
        path = [str(folder.resolve()), str(BENCH), os.environ.get("PYTHONPATH", "")]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, path)),
            "JSONSNAP_EXPECT_BUILD": "compiled",
        }
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), json.dumps(spec)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
            env=env,
        )

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        self.close(kill=kind is not None)

    def receive(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            status = self.proc.wait()
            raise WorkerError(f"the worker stopped (exit status {status}); see its output above")
        reply: dict[str, Any] = json.loads(line)
        if "error" in reply:
            raise WorkerError(str(reply["error"]))
        return reply

    def ready(self, wls: Sequence[Workload]) -> dict[str, Any]:
        """Wait for the worker to have built its workloads; they must be this process's."""
        self.hello = self.receive()
        if self.hello.get("fingerprint") != fingerprint(wls):
            raise WorkerError("the worker did not build the same workloads as this process")
        return self.hello

    def measure(self, wl: Workload) -> Cell:
        """The compiled build's cell on ``wl``."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(wl.name + "\n")
            self.proc.stdin.flush()
        except OSError as exc:
            raise WorkerError(f"the worker does not listen: {describe_error(exc)}") from exc
        cell = Cell(**self.receive()["cell"])
        cell.peer = COMPILED
        return cell

    def close(self, kill: bool = False) -> None:
        """End the worker: at once when ``kill``, else once it has read the end of its input."""
        if self.proc.poll() is None:
            try:
                if kill:
                    self.proc.kill()
                elif self.proc.stdin is not None:
                    self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: compiled.py SPEC (run.py --compiled DIR starts it)")
    sys.exit(worker(sys.argv[1]))

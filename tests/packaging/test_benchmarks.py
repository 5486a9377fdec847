"""The benchmarks' own promises (their figures are not tested here: no timed tests).

- A benchmark reports a build's figures only for that build: every entry point refuses to run
  when the jsonsnap it imports is not the build it means (``benchmarks/builds.py``), as when a
  compiled wheel built in place left its extension modules beside the source.
- The readers the groups of the accumulator path compare (``benchmarks/bodies.py``) all read
  the same arguments from the same bytes: the accumulator, the hand-written loop, the bare
  parser, the streams interleaved as a gateway sees them, the official SDK's stream.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

import paths

BENCH: Final = paths.ROOT / "benchmarks"
if str(BENCH) not in sys.path:
    sys.path.append(str(BENCH))

import accumulator  # noqa: E402 - needs the sys.path line above
import bodies  # noqa: E402
import gateway  # noqa: E402
import workloads  # noqa: E402

#: Entry points, each with arguments that would measure something small.
ENTRY_POINTS: Final = {
    "run.py": ["--only", "U", "--quick", "--no-write"],
    "accumulator.py": ["--quick"],
    "schema.py": ["--quick"],
}


def run_script(script: str, args: list[str], path: Path) -> subprocess.CompletedProcess[str]:
    """``benchmarks/script`` with ``path`` first on its ``PYTHONPATH``, no build named."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "JSONSNAP_EXPECT_BUILD")}
    env["PYTHONPATH"] = str(path)
    return subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def spoiled_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the pure build's source with a compiled module left beside it."""
    folder = tmp_path_factory.mktemp("spoiled")
    package = folder / "jsonsnap"
    shutil.copytree(paths.ROOT / "src" / "jsonsnap", package)
    (package / "_parse" / "_left_behind.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    return folder


@pytest.mark.parametrize("script", sorted(ENTRY_POINTS))
def test_an_entry_point_refuses_compiled_modules_beside_the_source(
    script: str, spoiled_source: Path
) -> None:
    done = run_script(script, ENTRY_POINTS[script], spoiled_source)
    assert done.returncode == 2, done.stderr
    assert "error: compiled modules beside the pure build's source" in done.stderr
    assert "_left_behind" in done.stderr


def test_the_compiled_builds_worker_refuses_the_pure_build(spoiled_source: Path) -> None:
    source = paths.ROOT / "src"
    cmd = [sys.executable, "-I", str(BENCH / "compare_worker.py"), str(source), "--only", "U"]
    done = subprocess.run([*cmd, "--build", "compiled"], capture_output=True, text=True)
    assert done.returncode == 1
    assert "is the pure build" in json.loads(done.stdout)["error"]
    spoiled = subprocess.run([*cmd[:3], str(spoiled_source), *cmd[4:]], capture_output=True)
    assert spoiled.returncode == 1
    assert b"compiled modules beside" in spoiled.stdout


def test_a_pure_run_refuses_the_compiled_build() -> None:
    compiled = paths.ROOT / "build" / "compiled"
    if not (compiled / "jsonsnap").is_dir():
        pytest.skip("no compiled build in build/compiled")
    done = run_script("accumulator.py", ["--quick"], compiled)
    assert done.returncode == 2
    assert "error: jsonsnap is the compiled build" in done.stderr


def small_bodies() -> list[accumulator.Body]:
    """The demo recording and workload A in both protocols, as group U reads them."""
    demo = bodies.recording_chunks(bodies.RECORDING.read_bytes())
    frags = bodies.argument_fragments(demo)
    found = [accumulator.Body("demo", "anthropic", demo, frags, bodies.bare(frags), False)]
    (wl,) = workloads.build(quick=True, groups=["A"])
    expected, frags = json.loads(wl.text), list(wl.fragments)
    for protocol, make in (("anthropic", bodies.anthropic_body), ("chat", bodies.chat_body)):
        found.append(accumulator.Body(wl.name, protocol, make(frags), frags, expected, True))
    return found


@pytest.mark.parametrize("body", small_bodies(), ids=lambda b: f"{b.name}-{b.protocol}")
def test_every_reader_reads_the_same_arguments(body: accumulator.Body) -> None:
    assert body.chunks[0].endswith(b"\n\n")
    assert b"".join(body.chunks).count(b"\n\n") == body.events
    for way, read in accumulator.readers(body).items():
        assert read() == body.expected, way


def test_interleaved_streams_read_what_one_stream_reads() -> None:
    (wl,) = workloads.build(quick=True, groups=["A"])
    chunks = bodies.anthropic_body(wl.fragments)
    counts = gateway.update_counts(chunks)
    assert len(counts) == len(chunks) + 1
    assert sum(counts[2:-3]) >= len(wl.fragments)  # an update per token at least
    expected = json.loads(wl.text)
    assert gateway.accumulators(3, chunks, counts) == [expected] * 3
    assert gateway.parsers(3, wl.fragments) == [expected] * 3
    assert gateway.thinnest(3, chunks) == [expected] * 3


def test_the_sdk_reads_what_the_accumulator_reads() -> None:
    pytest.importorskip("anthropic")
    import sdk

    (wl,) = workloads.build(quick=True, groups=["A"])
    chunks = bodies.anthropic_body(wl.fragments)
    assert sdk.sdk_reader(chunks)() == sdk.ours(chunks) == json.loads(wl.text)

"""The example page (examples/web) in a real browser: the tool panel grows live and ends final.

``examples/web/server.py`` serves the page and replays the default recording (a text, then a
``write_file`` call in 411 fragments) as a UI message stream, paced. ``tests/js/web_panel.mjs``
drives headless Chromium with playwright-core: it clicks play and samples the first tool panel
until the page has read ``[DONE]``. The samples must show the arguments growing (several
distinct texts, each a prefix of the next, while not final), and the last must be marked final
with the recording's argument text; the answer text shown must be the recording's.

Skipped, saying why, where node, playwright-core (``npm ci`` in tests/js) or
``/usr/bin/chromium`` is missing. Everything stays on 127.0.0.1.
"""

from __future__ import annotations

import itertools
import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Final

import pytest

from jsonsnap.anthropic import MessageAccumulator
from recordings import ROOT

JS: Final = Path(__file__).resolve().parent / "js"
SERVER: Final = ROOT.parent / "examples" / "web" / "server.py"
RECORDING: Final = ROOT / "anthropic" / "text_then_write_file.sse"
CHROMIUM: Final = Path("/usr/bin/chromium")
NODE: Final = shutil.which("node")


def _missing() -> str | None:
    if NODE is None:
        return "node is not installed"
    if not (JS / "node_modules" / "playwright-core" / "package.json").is_file():
        return "playwright-core is not installed in tests/js (run: cd tests/js && npm ci)"
    if not CHROMIUM.is_file():
        return "chromium is not installed (/usr/bin/chromium; Debian: apt-get install chromium)"
    return None


pytestmark = pytest.mark.skipif(_missing() is not None, reason=_missing() or "")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_the_panel_grows_and_ends_final(tmp_path: Path) -> None:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, str(SERVER), "--port", str(port), "--delay", "0.004"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        assert server.stdout.readline().startswith("serving http://127.0.0.1:")
        started = time.monotonic()
        run = subprocess.run(
            [
                str(NODE),
                str(JS / "web_panel.mjs"),
                f"http://127.0.0.1:{port}/",
                str(CHROMIUM),
                str(tmp_path / "profile"),
            ],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        took = time.monotonic() - started
    finally:
        server.terminate()
        server.wait(10)
    assert run.returncode == 0, run.stderr[-2000:]
    seen = json.loads(run.stdout)
    assert seen["done"], "the page never read [DONE]"
    acc = MessageAccumulator().read(RECORDING.read_bytes())
    (tool,) = acc.tool_calls()
    samples = seen["samples"]
    live = [s["text"] for s in samples if s["final"] == "false"]
    distinct = list(dict.fromkeys(live))
    assert len(distinct) >= 5, distinct
    for before, after in itertools.pairwise(distinct):
        assert after.startswith(before) and len(after) > len(before)
    assert all(tool.raw.startswith(text) for text in distinct)
    last = samples[-1]
    assert last["final"] == "true" and last["status"] == "final"
    assert last["text"] == tool.raw and json.loads(last["text"]) == tool.final()
    text = "".join(b["text"] for b in acc.message["content"] if b["type"] == "text")  # type: ignore[index]
    assert seen["text"] == text
    assert took < 15, took

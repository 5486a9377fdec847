"""The example page (examples/web): its server against hostile requests, and the page in a
real browser, the tool panel growing live and ending final.

``examples/web/server.py`` serves the page and replays a recording as a UI message stream.
Against a real server on 127.0.0.1: generated requests (Content-Length headers of every kind,
bodies shorter, as long as or longer than they say, chunked ones) each get their answer at once
(200, or 400, 411, 413; 408 for a body that never comes), with no traceback on the server's
standard error; a Bedrock body (binary frames) is replayed as the command line replays it.

In the browser, the default recording (a text, then a ``write_file`` call in 411 fragments),
paced: ``tests/js/web_panel.mjs`` drives headless Chromium with playwright-core: it clicks play
and samples the first tool panel until the page has read ``[DONE]``. The samples must show the
arguments growing (several distinct texts, each a prefix of the next, while not final), and the
last must be marked final with the recording's argument text; the answer text shown must be the
recording's. Skipped, saying why, where node, playwright-core (``npm ci`` in tests/js) or
``/usr/bin/chromium`` is missing. Everything stays on 127.0.0.1.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import paths
from effort import examples
from jsonsnap.anthropic import MessageAccumulator
from jsonsnap.bedrock import ConverseStreamAccumulator
from recordings import ROOT

JS: Final = paths.JS
SERVER: Final = ROOT.parent / "examples" / "web" / "server.py"
RECORDING: Final = ROOT / "anthropic" / "text_then_write_file.sse"
CHROMIUM: Final = Path("/usr/bin/chromium")
NODE: Final = shutil.which("node")
#: What the server reads of a request body at most (examples/web/server.py's MAX_BODY).
MAX_BODY: Final = 1 << 20


def _missing() -> str | None:
    if NODE is None:
        return "node is not installed"
    if not (JS / "node_modules" / "playwright-core" / "package.json").is_file():
        return "playwright-core is not installed in tests/js (run: cd tests/js && npm ci)"
    if not CHROMIUM.is_file():
        return "chromium is not installed (/usr/bin/chromium; Debian: apt-get install chromium)"
    return None


browser = pytest.mark.skipif(_missing() is not None, reason=_missing() or "")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Served:
    """The example server in a process of its own, on a free port, its standard error kept."""

    def __init__(self, folder: Path, *options: str) -> None:
        self.port = free_port()
        self.errors = folder / f"server-{self.port}.err"
        with self.errors.open("wb") as errors:
            self.process = subprocess.Popen(
                [sys.executable, str(SERVER), "--port", str(self.port), *options],
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
            )
        assert self.process.stdout is not None
        self.banner = self.process.stdout.readline()

    def exchange(self, request: bytes, *, end: bool = True, timeout: float = 10.0) -> bytes:
        """Send ``request`` (then say that nothing more comes, if ``end``), and read the answer
        to the end (the server closes the connection after each)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as sock:
            sock.sendall(request)
            if end:
                sock.shutdown(socket.SHUT_WR)
            answer = bytearray()
            while chunk := sock.recv(65536):
                answer += chunk
        return bytes(answer)

    def stop(self) -> str:
        """Stop the server; what it wrote on standard error."""
        alive = self.process.poll() is None
        self.process.terminate()
        self.process.wait(10)
        assert alive, "the server died"
        return self.errors.read_text("utf-8", "replace")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    server = Served(tmp_path_factory.mktemp("web"), "--delay", "0", "--timeout", "0.5")
    assert server.banner.startswith("serving http://127.0.0.1:")
    yield server
    assert server.stop() == ""  # not a line: no traceback, no failure


def status_of(answer: bytes) -> int:
    assert re.match(rb"HTTP/1\.[01] [0-9]{3} ", answer), answer[:200]
    return int(answer[9:12])


def post(headers: list[tuple[str, str]], body: bytes, path: str = "/api/chat") -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", *(f"{k}: {v}" for k, v in headers)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


#: Content-Length values that are not a number of bytes.
NOT_A_LENGTH = ["abc", "-1", "+5", " ", "", "1_000", "0x10", "1.5", "1e3", "٣", "5, 5", "5 5"]


@pytest.mark.parametrize("value", [*NOT_A_LENGTH, "100000000000", "9" * 5000, str(MAX_BODY + 1)])
def test_a_bad_content_length_is_answered_at_once(served: Served, value: str) -> None:
    started = time.monotonic()
    answer = served.exchange(post([("Content-Length", value)], b"{}"), end=False)
    took = time.monotonic() - started
    assert status_of(answer) == (400 if value in NOT_A_LENGTH else 413), answer[:200]
    assert took < 3, took  # at once, not after the timeout or a read of 100 GB


@settings(max_examples=examples(60), deadline=None)
@given(
    declared=st.one_of(
        st.integers(0, 64).map(str),
        st.integers(MAX_BODY - 2, MAX_BODY + 2).map(str),
        st.integers(10**10, 10**30).map(str),
        st.integers(-(10**6), -1).map(str),
        st.integers(0, 64).map(lambda n: f"00{n}"),
        st.text(st.characters(codec="latin-1", exclude_characters="\r\n"), max_size=12),
        st.none(),
    ),
    twice=st.sampled_from([None, "same", "other"]),
    sent=st.integers(-3, 3),
    chunked=st.booleans(),
    path=st.sampled_from(["/api/chat", "/nowhere"]),
)
def test_every_request_gets_its_answer(
    served: Served, declared: str | None, twice: str | None, sent: int, chunked: bool, path: str
) -> None:
    """Whatever the Content-Length says (nothing, digits, too many, a sign, text, twice) and
    whatever the body holds (fewer bytes, as many, more), the answer comes at once: the stream
    for a body as long as it says, at most MAX_BODY, else the error that says why."""
    headers = [] if declared is None else [("Content-Length", declared)]
    if declared is not None and twice is not None:
        headers.append(("Content-Length", declared if twice == "same" else declared + "1"))
    if chunked:
        headers.append(("Transfer-Encoding", "chunked"))
    value = ("0" if declared is None else declared).strip(" \t")
    valid = declared is None or (value.isascii() and value.isdigit() and twice != "other")
    length = int(value) if valid else 0
    body = b"x" * max(0, min(length, 4096) + sent) if length <= 4096 else b"x" * 100
    started = time.monotonic()
    answer = served.exchange(post(headers, body, path))
    took = time.monotonic() - started
    status = status_of(answer)
    if chunked:
        assert status == 411
    elif not valid:
        assert status == 400
    elif length > MAX_BODY:
        assert status == 413
    elif len(body) < length:
        assert status == 400  # the body ended before its length
    else:
        assert status == (200 if path == "/api/chat" else 404)
    if status == 200:
        assert answer.endswith(b"data: [DONE]\n\n")
    assert took < 3, took


def test_a_body_that_never_comes_is_a_timeout(served: Served) -> None:
    started = time.monotonic()
    answer = served.exchange(post([("Content-Length", "100")], b"abc"), end=False)
    assert status_of(answer) == 408 and time.monotonic() - started < 5


def test_a_bedrock_recording_is_served(tmp_path: Path) -> None:
    """A Bedrock body (binary frames) is told as the command line tells it, and replayed."""
    recording = ROOT / "bedrock" / "converse_text_tool.bin"
    server = Served(tmp_path, str(recording), "--delay", "0")
    try:
        assert (
            server.banner.startswith("serving http://127.0.0.1:") and "(bedrock)" in server.banner
        )
        answer = server.exchange(post([("Content-Length", "2")], b"{}"))
    finally:
        assert server.stop() == ""
    assert status_of(answer) == 200 and answer.endswith(b"data: [DONE]\n\n")
    chunks = [json.loads(line[6:]) for line in answer.split(b"\n") if line.startswith(b"data: {")]
    acc = ConverseStreamAccumulator().read(recording.read_bytes())
    (tool,) = acc.tool_calls()
    (available,) = [c for c in chunks if c["type"] == "tool-input-available"]
    assert available["toolName"] == tool.name and available["input"] == tool.final()


def server_module() -> Any:
    """examples/web/server.py, imported (its main() is run in-process)."""
    spec = importlib.util.spec_from_file_location("web_server", SERVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["missing.sse"], "No such file or directory: "),
        (["greeting.sse"], "the recording is not a stream of a protocol jsonsnap knows"),
        (["broken.bin"], "the recording cannot be read: "),
        (["--delay", "-1"], "argument --delay: not a number of seconds: '-1'"),
        (["--timeout", "0"], "argument --timeout: must be more than 0"),
        (["--timeout", "nan"], "argument --timeout: not a number of seconds: 'nan'"),
    ],
)
def test_what_it_cannot_serve_is_one_line(
    tmp_path: Path,
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "greeting.sse").write_bytes(b'data: {"type": "greeting"}\n\n')
    bedrock = (ROOT / "bedrock" / "converse_text_tool.bin").read_bytes()
    (tmp_path / "broken.bin").write_bytes(bedrock[:20] + b"\x00" + bedrock[21:])
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        server_module().main([*argv, "--port", str(free_port())])
    err = capsys.readouterr().err
    if argv[0].startswith("--"):  # a usage error
        assert info.value.code == 2 and message in err
    else:
        assert isinstance(info.value.code, str) and message in info.value.code
        assert "\n" not in info.value.code


@browser
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

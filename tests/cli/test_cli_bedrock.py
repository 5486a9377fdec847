"""``jsonsnap replay`` on Bedrock's binary event stream bodies, in a pipe and in a pty.

The body is told from its first bytes (a prelude whose CRC checks out), from a file or from
standard input; its protocol from its first event (``ConverseStream``, or InvokeModel chunks
carrying Anthropic events). A broken body is a stream error that says at which byte.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bedrock_frames import FIXTURES, event_frame
from jsonsnap import __main__ as cli
from jsonsnap.bedrock import ConverseStreamAccumulator, InvokeModelAccumulator, StreamError
from terminal import run_in_pty

BODIES = sorted(FIXTURES.glob("*.bin"))


def accumulate(path: Path) -> tuple[object, str | None]:
    acc = (
        InvokeModelAccumulator() if path.name.startswith("invoke") else ConverseStreamAccumulator()
    )
    try:
        acc.read(path.read_bytes())
    except StreamError as exc:
        return acc.result, str(exc)
    return acc.result, None


@pytest.mark.parametrize("path", BODIES, ids=lambda p: p.name)
def test_each_body_replays_in_plain_lines(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["replay", str(path)])
    out, err = capsys.readouterr()
    _, error = accumulate(path)
    assert status == (1 if error else 0)
    assert "\x1b" not in out and out.count("╭─") == out.count("╰─")
    assert ("╭─" in out) == (path.stem != "converse_reasoning")  # each tool call, a panel
    assert re.search(r"\d+ events, [\d,]+ bytes", out.splitlines()[-1])
    assert (error is None) == ("stream error" not in err)
    if error:
        assert err == f"jsonsnap: stream error: {error}\n"


@pytest.mark.parametrize("path", BODIES, ids=lambda p: p.name)
def test_json_output_is_the_accumulators_result(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = cli.main(["replay", str(path), "--json"])
    out, _ = capsys.readouterr()
    result, error = accumulate(path)
    assert json.loads(out) == result and status == (1 if error else 0)


def test_what_the_plain_replay_says(capsys: pytest.CaptureFixture[str]) -> None:
    cli.main(["replay", str(FIXTURES / "converse_text_tool.bin")])
    out = capsys.readouterr().out
    assert out.startswith("I'll write the menu to notes/café.md with the two desserts.\n")
    assert "╭─ write_file tooluse_kZJMlvQmRJ6eAyJE5GIl7Q" in out
    assert "╰─ ✓ final: strictly parsed (213 chars)" in out
    assert out.splitlines()[-1].startswith(
        "stop reason: tool_use · usage: inputTokens 412, outputTokens 96, totalTokens 508 · "
        "57 events, 11,409 bytes"
    )
    cli.main(["replay", str(FIXTURES / "invoke_anthropic_tool.bin")])
    out = capsys.readouterr().out
    assert "╭─ get_weather toolu_bdrk_01Pq3sXyZ9cRtL2mN8vK4wJd" in out
    assert "stop reason: tool_use · usage: input_tokens 388" in out


def test_a_broken_body_is_a_stream_error_with_its_offset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = bytearray((FIXTURES / "converse_parallel_tools.bin").read_bytes())
    data[500] ^= 0xFF
    path = tmp_path / "broken.bin"
    path.write_bytes(bytes(data))
    assert cli.main(["replay", str(path)]) == 1
    out, err = capsys.readouterr()
    assert re.fullmatch(
        r"jsonsnap: stream error: the (message|prelude) CRC is 0x[0-9a-f]{8}, computed "
        r"0x[0-9a-f]{8} \(at byte \d+ of the event stream\)\n",
        err,
    )
    assert "Let me check" in out  # what came before it is shown
    whole = (FIXTURES / "converse_parallel_tools.bin").read_bytes()
    path.write_bytes(whole[:-3])
    assert cli.main(["replay", str(path)]) == 1
    assert "ends inside a message" in capsys.readouterr().err


def test_frames_of_no_known_event(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "other.bin"
    path.write_bytes(event_frame("Records", {"Payload": "x"}) * 2)
    assert cli.main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert "is an event stream of 2 events of no protocol jsonsnap knows" in err
    assert "(the first is a 'Records')" in err
    # Forced, they are read as events of a kind this version does not know: passed over.
    assert cli.main(["replay", str(path), "--format", "bedrock", "--json"]) == 0
    assert capsys.readouterr().out == "null\n"


def test_from_standard_input_in_a_pipe() -> None:
    for path in (FIXTURES / "converse_reasoning.bin", FIXTURES / "invoke_anthropic_tool.bin"):
        done = subprocess.run(
            [sys.executable, "-m", "jsonsnap", "replay", "-", "--json"],
            input=path.read_bytes(),
            capture_output=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == accumulate(path)[0]


def test_in_a_terminal_from_a_file_and_from_standard_input() -> None:
    path = FIXTURES / "converse_parallel_tools.bin"
    for run in (
        run_in_pty(["replay", str(path), "--speed", "8"], columns=90, rows=24),
        run_in_pty(["replay", "-"], stdin=path.read_bytes(), columns=90, rows=24),
    ):
        assert run.returncode == 0
        text = "\n".join(run.transcript())
        assert "Let me check the weather in both cities and the time in Tōkyō." in text
        assert text.count("╰─ ✓ final: strictly parsed") == 3
        assert "╭─ get_time tooluse_2cH5rS1tU3vW4xY5zA6bC7" in text
        assert 'city: "São Paulo"' in text
        assert re.search(r"stop reason: tool_use · usage: inputTokens 689", text)
        assert b"\x1b[" in run.output  # styled: a terminal


def test_in_a_terminal_thinking_is_dimmed_and_an_exception_reported() -> None:
    run = run_in_pty(["replay", str(FIXTURES / "converse_reasoning.bin"), "--no-delay"])
    assert run.returncode == 0
    assert b"thinking\xe2\x80\xa6\x1b[0m\r\n\x1b[2mThe \x1b[0m\x1b[2muser asks" in run.output
    run = run_in_pty(["replay", str(FIXTURES / "converse_throttled.bin"), "--no-delay"])
    text = "\n".join(run.transcript())
    assert run.returncode == 1
    assert "⚠ unfinished: the stream ended inside this input" in text
    assert "jsonsnap: stream error: throttlingException: Too many tokens" in text

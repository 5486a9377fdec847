"""The command line end to end: replay and parse in a real pseudo-terminal and in a pipe.

The pty runs are few and each checks several things (they cost a process and a screen each);
the pipe runs call ``main()`` in-process, with standard output captured (not a terminal).
Hostile input (escapes from the stream, closed standard streams, bad options) is in
test_cli_hostile.py; the pieces (rendering, the terminal's frames) in test_cli_render.py.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Final

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import paths
from effort import examples
from jsonsnap import __build__, __version__
from jsonsnap import __main__ as cli
from jsonsnap._cli.inputs import Source
from jsonsnap._cli.parse import caret
from jsonsnap._cli.terminal import width_of
from jsonsnap.anthropic import MessageAccumulator
from jsonsnap.gemini import GenerateContentAccumulator
from jsonsnap.openai import ChatCompletionAccumulator, ResponseAccumulator
from jsonsnap.vercel import UIMessageAccumulator
from terminal import Screen, recording, run_in_pty, sse

ROOT = paths.ROOT
FIXTURES = sorted((ROOT / "fixtures").glob("*/*.sse"))
ANTHROPIC = ROOT / "fixtures" / "anthropic"
WRITE_FILE = ANTHROPIC / "text_then_write_file.sse"
SGR = re.compile(rb"\x1b\[[0-9;]*m")


def accumulate(path: Path) -> tuple[Any, str | None]:
    """The fixture's result as its protocol's accumulator makes it, and why replay must fail
    (the stream error; else a tool call not fit to run, as the one line says it)."""
    if path.parent.name == "anthropic":
        acc: Any = MessageAccumulator()
        result = "message"
    elif path.parent.name == "gemini":
        acc, result = GenerateContentAccumulator(), "response"
    elif path.parent.name == "vercel":
        acc, result = UIMessageAccumulator(), "message"
    elif path.name.startswith("responses"):
        acc, result = ResponseAccumulator(), "response"
    else:
        acc, result = ChatCompletionAccumulator(), "completion"
    try:
        acc.read([path.read_bytes()])
    except Exception as exc:
        return getattr(acc, result), f"stream error: {exc}"
    if result == "response" and acc.response.get("tools"):  # checked as replay checks them
        acc = ResponseAccumulator(tools=acc.response["tools"]).read([path.read_bytes()])
    calls = acc.tool_calls()
    bad = [call for call in calls if call.status != "complete"]
    if not bad:
        return getattr(acc, result), None
    try:
        bad[0].final()
    except ValueError as exc:
        why = str(exc)
    number = f"{len(bad)} of {len(calls)} tool call{'s' if len(calls) > 1 else ''}"
    return getattr(
        acc, result
    ), f"{number} {'is' if len(bad) == 1 else 'are'} not fit to run: {why}"


def streaming_sizes(frames: list[list[str]]) -> list[int]:
    """The character counts the panel footers showed while streaming, frame by frame."""
    sizes = []
    for frame in frames:
        for line in frame:
            m = re.search(r"… streaming, ([0-9,]+) chars", line)
            if m:
                sizes.append(int(m[1].replace(",", "")))
    return sizes


# --------------------------------------------------------------------------- in a terminal


@pytest.fixture(scope="module")
def write_file_run() -> Any:
    return run_in_pty(["replay", str(WRITE_FILE), "--speed", "16"], columns=100, rows=30)


def test_the_argument_preview_grows_in_place(write_file_run: Any) -> None:
    run = write_file_run
    assert run.returncode == 0
    frames = run.frames()
    sizes = streaming_sizes(frames)
    # Redrawn at the frame rate (437 events in about 0.3 s: a few frames, not one per event;
    # more on a loaded machine, at most 30 a second), the text growing from frame to frame.
    assert sizes == sorted(sizes) and len(set(sizes)) >= len(sizes) - 1
    assert 3 <= len(sizes) < 200
    # Early: the panel with the file's first lines, the text typed above it.
    early = next(f for f in frames if any("… streaming" in line for line in f))
    assert any("Here is the file:" in line for line in early)
    assert any(line.startswith("╭─ write_file toolu_") for line in early)
    # Taller than the screen: the panel shows its tail, and says how much is above.
    middle = next(f for f in frames if any("more lines above" in line for line in f))
    assert sum("more lines above" in line for line in middle) == 1
    assert any("… streaming" in line for line in middle)
    assert all(width_of(line) <= 100 for frame in frames for line in frame)


def test_the_final_state_on_screen(write_file_run: Any) -> None:
    screen = write_file_run.screen()
    text = "\n".join(screen)
    assert "✓ final: strictly parsed (8,168 chars)" in text
    assert "raise SystemExit(main())" in text
    assert re.search(
        r"stop reason: tool_use · usage: input_tokens 2,417.* 437 events", text.replace("\n", "")
    )
    assert "… streaming" not in text  # committed as final, not left as streaming
    assert SGR.search(write_file_run.output)  # colours on a terminal


def test_the_whole_final_argument_is_printed_at_the_end(write_file_run: Any) -> None:
    """The screen showed the tail; at the end, the whole file is printed, line by line."""
    message, _ = accumulate(WRITE_FILE)
    content = message["content"][1]["input"]["content"]
    transcript = write_file_run.transcript()
    rows = iter(transcript[transcript.index("│ content:") + 1 :])
    shown: list[str] = []
    for row in rows:
        if row.startswith("╰─"):
            break
        if row.startswith("│   │"):
            shown.append(row.removeprefix("│   │").removeprefix(" "))
        else:  # a line longer than the screen, wrapped by the terminal
            shown[-1] += row
    assert shown == [line.expandtabs(4).rstrip() for line in content.split("\n")]
    assert row.startswith("╰─ ✓ final")


@pytest.mark.parametrize(
    ("fixture", "expected", "status"),
    [
        (
            "max_tokens_in_tool_string.sse",
            [
                "⚠ incomplete: the input stopped before its end",
                "stop reason: max_tokens",
                "jsonsnap: 1 of 1 tool call is not fit to run: tool 'write_file' (1)",
            ],
            1,
        ),
        (
            "invalid_tool_json.sse",
            [
                "╰─ ✗ invalid JSON: Expecting ',' delimiter at line 1 column 24 (char 23);",
                "   the snapshot is the text before it",  # the reason wrapped, not cut
                "╰─ ✗ invalid JSON: Extra data at line 1 column 26 (char 25); the snapshot",
                "jsonsnap: 2 of 3 tool calls are not fit to run: tool 'run_command' (1) has",
            ],
            1,
        ),
        (
            "error_mid_stream.sse",
            [
                "⚠ unfinished: the stream ended inside this input",
                "jsonsnap: stream error: overloaded_error: Overloaded",
            ],
            1,
        ),
    ],
)
def test_incomplete_invalid_and_unfinished_inputs(
    fixture: str, expected: list[str], status: int
) -> None:
    run = run_in_pty(["replay", str(ANTHROPIC / fixture), "--no-delay"], columns=76, rows=12)
    transcript = run.transcript()
    for phrase in expected:
        assert any(phrase in line for line in transcript), phrase
    assert run.returncode == status


def test_no_color_keeps_the_live_region_but_drops_colours() -> None:
    run = run_in_pty(
        ["replay", str(ANTHROPIC / "parallel_tools.sse"), "--no-delay"], env={"NO_COLOR": "1"}
    )
    assert not SGR.search(run.output)
    assert "✓ final: strictly parsed (150 chars)" in "\n".join(run.screen())


def test_thinking_is_dimmed_or_hidden() -> None:
    path = str(ANTHROPIC / "thinking_signature.sse")
    shown = run_in_pty(["replay", path, "--no-delay"])
    assert b"\x1b[2mThe user wants " in shown.output  # dim
    hidden = run_in_pty(["replay", path, "--no-delay", "--hide-thinking"])
    assert b"The user wants the median" not in hidden.output
    assert "The **median**" in "\n".join(hidden.screen())


def test_ctrl_c_exits_cleanly_with_what_was_received() -> None:
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: received.append(number))
    try:
        run = run_in_pty(
            ["replay", str(WRITE_FILE)],
            interrupt_when=lambda out: out.count(b"\x1b[J") > 5,
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    # Ctrl-C reached the program's process group, and only it: never the test runner.
    assert run.group != os.getpgrp() and received == []
    text = "".join(run.screen())  # the summary may wrap
    assert run.returncode == 130
    assert "⚠ unfinished: the stream ended inside this input" in text
    assert "interrupted" in text and "events" in text
    assert b"Traceback" not in run.output


def _file_call(lines: int, width: int) -> bytes:
    """A call writing a file of ``lines`` lines of ``width`` characters, after its short
    arguments, streamed in small pieces."""
    content = "\n".join(f"line {i:03} " + "x" * (width - 9) for i in range(lines))
    tool_input = {"path": "src/app.py", "mode": "w", "overwrite": True, "content": content}
    return recording(json.dumps(tool_input), piece=12)


def _live_panels(frames: list[list[str]]) -> list[list[str]]:
    """Each frame's live panel: from its header to its streaming footer."""
    panels = []
    for frame in frames:
        ends = [i for i, line in enumerate(frame) if line.startswith("╰─ … streaming")]
        heads = [i for i, line in enumerate(frame) if line.startswith("╭─ write_file")]
        if ends and heads:
            panels.append(frame[heads[-1] : ends[-1] + 1])
    return panels


def test_the_short_arguments_stay_pinned_while_a_long_one_streams(tmp_path: Path) -> None:
    path = tmp_path / "call.sse"
    path.write_bytes(_file_call(30, 50))
    run = run_in_pty(["replay", str(path), "--speed", "5"], columns=80, rows=16)
    assert run.returncode == 0
    panels = _live_panels(run.frames())
    scrolled = [panel for panel in panels if any("more lines above" in line for line in panel)]
    assert len(scrolled) >= 3
    for panel in scrolled:
        assert panel[1:4] == ['│ path: "src/app.py"', '│ mode: "w"', "│ overwrite: true"]
        assert panel[4].startswith("│ ↑ ") and panel[4].endswith(" more lines above")
        assert panel[5].startswith("│   │ line ")  # the tail of the content
        assert len(panel) <= 15
    # The count above is what is neither pinned nor shown: every line is there once.
    last = scrolled[-1]
    hidden = int(last[4].split()[2])
    shown = [line for line in last if line.startswith("│   │ line ")]
    first = int(shown[0].split()[3])
    assert hidden == first + 1  # "content:" and the lines above the first shown


def test_a_resize_leaves_no_stale_line(tmp_path: Path) -> None:
    """Narrower, shorter, then wider again while a call streams: each frame after a resize
    shows the panel once, for the new size, and nothing of it is left when it ends; on a
    terminal that rewraps its lines (most) and on one that cuts them (xterm)."""
    path = tmp_path / "call.sse"
    path.write_bytes(_file_call(12, 90))
    sizes = [(60, 40), (45, 24), (100, 40)]
    when = [lambda out, n=n: out.count(b"\x1b[J") > n for n in (4, 8, 12)]
    run = run_in_pty(
        ["replay", str(path), "--speed", "2"],
        columns=100,
        rows=40,
        resize=[(w, c, r) for w, (c, r) in zip(when, sizes, strict=True)],
    )
    assert run.returncode == 0 and len(run.resizes) == 3
    for rewrap in (True, False):  # the same output, on either kind of terminal
        run.rewrap = rewrap
        frames = run.frames()
        assert len(frames) > 16
        for frame in frames:
            assert sum(line.startswith("╭─ write_file") for line in frame) <= 1, frame
            assert sum(line.startswith("╰─ … streaming") for line in frame) <= 1, frame
        assert len(_live_panels(frames)) > 12
        assert not [line for line in run.screen() if "streaming" in line or "↑" in line]


@pytest.mark.parametrize("columns", [14])
def test_at_narrow_widths_the_final_header_is_cut_as_the_live_one(
    tmp_path: Path, columns: int
) -> None:
    path = tmp_path / "call.sse"
    args = json.dumps({"city": "Tōkyō", "days": 3, "units": "metric"})
    path.write_bytes(
        recording(args, name="get_weather_forecast", tool_id="toolu_01ABCDEFGH", piece=2)
    )
    run = run_in_pty(["replay", str(path), "--speed", "1"], columns=columns, rows=12)
    assert run.returncode == 0
    transcript = run.transcript()
    live = {line for frame in run.frames() for line in frame if line.startswith("╭─")}
    final = [i for i, line in enumerate(transcript) if line.startswith("╭─")]
    assert len(final) == 1 and transcript[final[0]] in live
    assert transcript[final[0]].endswith("…")
    assert transcript[final[0] + 1].startswith("│ ")  # not the rest of the header, wrapped
    # The footer wrapped at spaces, each row in the width (the body, the whole arguments,
    # may wrap: it is printed whole).
    footer = next(i for i, line in enumerate(transcript) if line.startswith("╰─"))
    rows = [transcript[footer]]
    rows += itertools.takewhile(lambda line: line.startswith("   "), transcript[footer + 1 :])
    assert len(rows) > 1 and all(width_of(line) < columns for line in [transcript[final[0]], *rows])
    assert " ".join(row[3:] for row in rows) == f"✓ final: strictly parsed ({len(args)} chars)"


def test_parse_shows_the_value_growing_then_the_final_value() -> None:
    document = {"path": "a.py", "items": list(range(40)), "content": "x" * 300}
    text = json.dumps(document).encode()
    run = run_in_pty(["parse", "--chunk", "48", "--delay", "0.035"], stdin=text, rows=20)
    assert run.returncode == 0
    frames = run.frames()
    growing = [f for f in frames if any("bytes read" in line for line in f)]
    assert len(growing) > 6
    # The tail of the value, on the screen: the growing string shows its end.
    late = next(f for f in growing if any('"content": "…' in line for line in f))
    assert all(width_of(line) <= 100 for line in late)
    final = "\n".join(run.transcript())
    assert '"content": "' + "x" * 50 in final.replace("\n", "")
    assert "bytes read" not in "\n".join(run.screen())  # the live region gave way


def test_a_truncated_document_keeps_what_was_read_above_the_error() -> None:
    run = run_in_pty(["parse"], stdin=b'{"a": [1, 2], "b": {"c": "unfinish', rows=12)
    screen = [line for line in run.transcript() if line]
    assert run.returncode == 1
    assert screen[:8] == [
        "{",
        '  "a": [',
        "    1,",
        "    2",
        "  ],",
        '  "b": {',
        '    "c": "unfinish"',
        "  }",
    ]
    assert screen[9].startswith("jsonsnap: incomplete JSON: Unterminated string")


# --------------------------------------------------------------------------- in a pipe


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fixture_replays_in_plain_lines(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = cli.main(["replay", str(path)])  # no waiting in a pipe, without --speed
    out, err = capsys.readouterr()
    _, error = accumulate(path)
    assert status == (1 if error else 0)
    assert "\x1b" not in out
    assert err == ("" if error is None else f"jsonsnap: {error}\n")  # one line, after the rest
    assert re.search(r"\d+ events?, [\d,]+ bytes", out)
    assert not re.search(r" $|^\[tool ", out, re.MULTILINE)
    ours = [line for line in out.splitlines() if line.startswith("╰─")] + [out.splitlines()[-1]]
    assert not re.search(r"\bNone\b|\b1 events\b", "\n".join(ours))
    assert out.count("╭─") == out.count("╰─")


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_json_output_is_the_accumulators_result(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = cli.main(["replay", str(path), "--json"])
    captured = capsys.readouterr()
    result, error = accumulate(path)
    assert json.loads(captured.out) == result
    assert status == (1 if error else 0)
    assert captured.err == ("" if error is None else f"jsonsnap: {error}\n")


def _text_then(text: list[str], ending: str, tool: str) -> bytes:
    """A Messages stream: ``text`` in pieces, then (``ending``) an error event, the end of the
    body, or a tool call whose input is ``tool`` and the message's end."""
    message = {"id": "m", "type": "message", "role": "assistant", "model": "m", "content": []}
    body = [
        sse("message_start", {"type": "message_start", "message": {**message, "usage": {}}}),
        sse("content_block_start", {"type": "content_block_start", "index": 0,
                                    "content_block": {"type": "text", "text": ""}}),
    ]  # fmt: skip
    for piece in text:
        delta = {"type": "text_delta", "text": piece}
        body.append(
            sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
        )
    if ending == "error":
        error = {"type": "overloaded_error", "message": "Overloaded"}
        body.append(sse("error", {"type": "error", "error": error}))
    elif ending == "tool":
        call = recording(tool)
        body.append(call[call.index(b"event: content_block_stop") :])
    return b"".join(body)


@settings(max_examples=examples(60), deadline=None)
@given(
    text=st.lists(st.text("ab \n", max_size=12), max_size=5),
    ending=st.sampled_from(["error", "cut", "tool"]),
    tool=st.sampled_from(['{"a": 1}', '{"a": 1', '{"a": 1]', '{"a": 1}{"b": 2}']),
    options=st.sampled_from([[], ["--json"], ["--hide-thinking"]]),
)
def test_an_error_starts_a_line_of_its_own_in_a_shared_pipe(
    text: list[str], ending: str, tool: str, options: list[str]
) -> None:
    """Whatever the stream typed last (a line cut short or not, nothing at all), and however
    it ends (a stream error, a tool call not fit to run, or well, the body cut off or not),
    an error is one line of its own, last, after everything written to standard output."""
    body = _text_then(text, ending, tool)
    pipe = Screen()  # standard output and error on one pipe (2>&1), as its reader sees them
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "stream.sse"
        path.write_bytes(body)
        with contextlib.redirect_stdout(pipe), contextlib.redirect_stderr(pipe):
            status = cli.main(["replay", str(path), *options])
    output = "".join(pipe.parts)
    assert output.endswith("\n")
    errors = [line for line in output.split("\n") if "jsonsnap:" in line]
    assert all(line.startswith("jsonsnap: ") for line in errors), output
    fails = ending == "error" or (ending == "tool" and tool != '{"a": 1}')
    assert status == (1 if fails else 0) and len(errors) == (1 if fails else 0), output
    if fails:
        assert output.endswith(errors[0] + "\n")


def test_plain_replay_tells_each_tool_once_whole(capsys: pytest.CaptureFixture[str]) -> None:
    cli.main(["replay", str(ANTHROPIC / "parallel_tools.sse")])
    out = capsys.readouterr().out
    assert out.count("╭─ get_weather") == 2 and out.count("╰─ ✓ final") == 3
    assert out.index("╭─ get_forecast") > out.index("Tōkyō")
    cli.main(["replay", str(WRITE_FILE)])
    out = capsys.readouterr().out
    assert "│   │     raise SystemExit(main())" in out and "\n│   │\n" in out


def test_the_summary_says_how_it_ended(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = recording('{"a": 1}')
    cut = body[: body.index(b"event: message_delta")]
    path = tmp_path / "cut.sse"
    path.write_bytes(cut)
    cli.main(["replay", str(path)])
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("no stop reason · usage: input_tokens 12 · 7 events, ")
    path.write_bytes(cut[: cut.index(b"event: content_block_start")])
    cli.main(["replay", str(path)])
    assert capsys.readouterr().out.startswith("no stop reason · usage: input_tokens 12 · 1 event, ")


def test_no_waiting_in_a_pipe_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr("jsonsnap._cli.replay.time.sleep", waits.append)
    parallel = str(ANTHROPIC / "parallel_tools.sse")
    assert cli.main(["replay", parallel]) == 0 and waits == []
    assert cli.main(["replay", parallel, "--speed", "2"]) == 0
    assert len(waits) == 38 and set(waits) == {0.006}
    waits.clear()
    assert cli.main(["replay", parallel, "--speed", "0.0001"]) == 0
    assert set(waits) == {5.0}  # capped


def test_replay_from_standard_input() -> None:
    body = (ANTHROPIC / "parallel_tools.sse").read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "jsonsnap", "replay", "-", "--json"],
        input=body,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0
    expected = MessageAccumulator()
    expected.read([body])
    assert json.loads(done.stdout) == expected.message


def test_the_example_recording(capsys: pytest.CaptureFixture[str]) -> None:
    """``demo`` and ``replay --example`` play the recording that comes with the package."""
    source = Source.example()
    try:
        assert source.file.read() == WRITE_FILE.read_bytes()
    finally:
        source.close()
    message, _ = accumulate(WRITE_FILE)
    for command in (["demo", "--json"], ["replay", "--example", "--json"]):
        assert cli.main(command) == 0
        assert json.loads(capsys.readouterr().out) == message
    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "╰─ ✓ final: strictly parsed (8,168 chars)" in out


def test_format_detection_and_forcing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def replay(data: str | bytes, *options: str) -> tuple[int, str, str]:
        path = tmp_path / "stream.sse"
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
        status = cli.main(["replay", str(path), *options])
        out, err = capsys.readouterr()
        return status, out, err

    status, _, err = replay("")
    assert status == 1 and err == f"jsonsnap: {tmp_path / 'stream.sse'} is empty\n"
    status, _, err = replay('{"a": 1}\n')
    assert status == 1 and "is JSON, not an event stream: `jsonsnap parse` reads JSON" in err
    assert replay("hello\nworld\n")[2].endswith("is not an event stream: it has no `data:` lines\n")
    status, _, err = replay("data: [1]\n\ndata: [DONE]\n\n")
    assert err.endswith("is an event stream of 2 events, but none of them carries a JSON object\n")
    status, _, err = replay('data: {"type": "greeting"}\n\n')
    known = "anthropic, bedrock, bedrock-anthropic, chat, gemini, responses, ui-message"
    assert status == 1 and f"of no protocol jsonsnap knows ({known})" in err
    assert "(the first is a 'greeting'); --format reads it as one" in err
    # Told by the data, whatever the event names say; the events before it are kept.
    chat = 'data: {"x": 1}\n\ndata: {"object": "chat.completion.chunk", "choices": []}\n\n'
    status, out, _ = replay(chat, "--json")
    assert status == 0 and json.loads(out)["object"] == "chat.completion"
    garbage = "event: message_start\ndata: {not json\n\n"
    status, _, err = replay(garbage, "--format", "anthropic")
    assert status == 1 and "stream error: the data of a 'message_start' event is not JSON" in err
    assert cli.main(["replay", str(tmp_path / "missing.sse")]) == 1
    assert "No such file or directory: " in capsys.readouterr().err


def test_parse_error_with_line_column_and_caret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "a": [1, 2],\n  "b": {"c": 3 "d": 4}\n}\n')
    assert cli.main(["parse", str(path), "--chunk", "5"]) == 1
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert (
        lines[0] == "jsonsnap: invalid JSON: Expecting ',' delimiter at line 3 column 16 (char 32)"
    )
    assert lines[1] == '    3 |   "b": {"c": 3 "d": 4}'
    assert lines[2] == "      |" + " " * 16 + "^"
    assert lines[1].index('"d"') == lines[2].index("^")
    assert json.loads(out) == {"a": [1, 2], "b": {"c": 3}}  # what was read before it


def test_parse_incomplete_and_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cut.json"
    path.write_text('{"a": "中文 text')
    assert cli.main(["parse", str(path)]) == 1
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert lines[0] == (
        "jsonsnap: incomplete JSON: Unterminated string starting at line 1 column 7 (char 6); "
        "the input ends at line 1 column 15 (char 14)"
    )
    # The caret after the last character, counting the wide ones as two columns.
    assert lines[2].index("^") - len("      | ") == width_of('{"a": "中文 text')
    assert json.loads(out) == {"a": "中文 text"}
    path.write_text("   ")
    assert cli.main(["parse", str(path), "--json"]) == 1
    assert capsys.readouterr().out == ""  # nothing was read: nothing to show
    path.write_text('[1, 2.5, "x", {"k": null}]')
    assert cli.main(["parse", str(path), "--json"]) == 0
    assert capsys.readouterr().out == '[1, 2.5, "x", {"k": null}]\n'
    assert cli.main(["parse", str(tmp_path / "none.json")]) == 1


def test_parse_repair_lists_the_repairs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "model.txt"
    path.write_text('Sure:\n```json\n{"a": [1, 2,], b: True, // note\n "s": "x\ty"}\n```\n')
    assert cli.main(["parse", str(path)]) == 1  # strict by default
    assert "Expecting value at line 1 column 1 (char 0)" in capsys.readouterr().err
    assert cli.main(["parse", "--repair", "--json", str(path), "--chunk", "3"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == {"a": [1, 2], "b": True, "s": "x\ty"}
    assert err.splitlines() == [
        "jsonsnap: 7 repairs:",
        "  text before a value (prose, a code fence) skipped: line 1 column 1 (char 0)"
        " [leading_text]",
        "  a comma before a closing bracket dropped: line 3 column 13 (char 26) [trailing_comma]",
        "  an identifier read as an object key: line 3 column 16 (char 29) [unquoted_key]",
        "  True, False or None read as true, false or null: line 3 column 19 (char 32)"
        " [python_literal]",
        "  a // or /* */ comment skipped: line 3 column 25 (char 38) [comment]",
        "  a raw control character in a string kept as it is: line 4 column 9 (char 54)"
        " [control_character]",
        "  text after the last complete value (a closing fence, prose) ignored: line 5 column 1"
        " (char 59) [trailing_text]",
    ]
    # Many repairs: the first ones listed, the rest counted; an error after repairs.
    path.write_text("[" + "1 " * 30 + "x]")
    assert cli.main(["parse", "--repair", "--json", str(path)]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out) == [1] * 30
    lines = err.splitlines()
    assert lines[0] == "jsonsnap: 29 repairs:"
    assert lines[21] == "  … and 9 more"
    assert lines[22].startswith("jsonsnap: invalid JSON: Expecting ',' delimiter at line 1")


def test_parse_waits_are_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []
    monkeypatch.setattr("jsonsnap._cli.parse.time.sleep", waits.append)
    path = tmp_path / "a.json"
    path.write_text("[1, 2, 3]")
    assert cli.main(["parse", str(path), "--chunk", "4", "--delay", "1e9"]) == 0
    assert waits == [5.0, 5.0, 5.0]


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert (
        info.value.code == 0
        and capsys.readouterr().out == f"jsonsnap {__version__} ({__build__} build)\n"
    )
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    help_text = capsys.readouterr().out
    assert help_text.index("replay") < help_text.index("parse") < help_text.index("demo")


def test_caret_on_a_long_line() -> None:
    from jsonsnap import JSONDecodeError, loads

    text = "[" + "1, " * 200 + "x]"
    with pytest.raises(JSONDecodeError) as info:
        loads(text)
    line, mark = caret(text, info.value, 60)
    assert line[mark.index("^")] == "x"


#: One recording of each protocol read from server-sent events besides Anthropic's and
#: OpenAI's own (Bedrock's binary frames: tests/cli/test_cli_bedrock.py), with its accumulator.
OTHERS: Final = [
    ("gemini/vertex_partial_args.sse", GenerateContentAccumulator, []),
    ("gemini/parallel_calls.sse", GenerateContentAccumulator, []),
    ("vercel/from_anthropic_text_then_write_file.sse", UIMessageAccumulator, []),
    ("openai-compatible/groq_glued_calls.sse", ChatCompletionAccumulator, []),
    ("openai-compatible/vllm_doubled_arguments.sse", ChatCompletionAccumulator, ["--compatible"]),
]


@pytest.mark.parametrize(("name", "kind", "options"), OTHERS, ids=[o[0] for o in OTHERS])
def test_other_protocols_play_in_a_terminal(name: str, kind: Any, options: list[str]) -> None:
    """Each protocol is told and played in a terminal, from a file and from standard input:
    every call's panel ends final, and the summary says how the stream ended."""
    path = ROOT / "fixtures" / name
    acc = kind(compatible=True) if "--compatible" in options else kind()
    acc.read([path.read_bytes()])
    calls = acc.tool_calls()
    assert calls and all(call.status == "complete" for call in calls)
    for run in (
        run_in_pty(["replay", str(path), "--no-delay", *options], columns=100, rows=24),
        run_in_pty(["replay", "-", *options], stdin=path.read_bytes(), columns=100, rows=24),
    ):
        assert run.returncode == 0
        text = "\n".join(run.transcript())
        assert text.count("╰─ ✓ final: strictly parsed") == len(calls), text
        for call in calls:
            assert f"╭─ {call.name}" in text
        assert re.search(r"(stop|finish) reasons?: ", text), text
        assert b"\x1b[" in run.output  # styled: a terminal

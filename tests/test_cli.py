"""The command line: replay and parse in a real pseudo-terminal, in a pipe, and in-process."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from effort import examples
from jsonsnap import JSONDecodeError, loads
from jsonsnap import __main__ as cli
from jsonsnap._cli import body_lines, caret, detect, result_of, tail_lines
from jsonsnap._streams import _Accumulator
from jsonsnap._terminal import Terminal, clean, fit, width_of
from jsonsnap.anthropic import MessageAccumulator
from jsonsnap.openai import ChatCompletionAccumulator, ResponseAccumulator
from jsonsnap.sse import ServerSentEvent
from terminal import run_in_pty

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").glob("*/*.sse"))
WRITE_FILE = ROOT / "fixtures" / "anthropic" / "text_then_write_file.sse"
ANTHROPIC = ROOT / "fixtures" / "anthropic"
ESCAPE = re.compile(rb"\x1b")
SGR = re.compile(rb"\x1b\[[0-9;]*m")


def accumulate(path: Path) -> tuple[_Accumulator, str | None]:
    """The fixture read by the accumulator of its protocol, and the stream error if any."""
    name = path.parent.name
    acc: _Accumulator
    if name == "anthropic":
        acc = MessageAccumulator()
    elif path.name.startswith("responses"):
        acc = ResponseAccumulator()
    else:
        acc = ChatCompletionAccumulator()
    try:
        acc.read([path.read_bytes()])
    except Exception as exc:
        return acc, str(exc)
    return acc, None


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
    return run_in_pty(["replay", str(WRITE_FILE), "--no-delay"], columns=100, rows=30)


def test_the_argument_preview_grows_in_place(write_file_run: Any) -> None:
    run = write_file_run
    assert run.returncode == 0
    frames = run.frames()
    sizes = streaming_sizes(frames)
    # One redraw per delta (the first one is empty), the text growing every time.
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes) - 1 > 300
    # Early: the panel with the file's first lines, the text typed above it.
    early = next(f for f in frames if any("… streaming" in line for line in f))
    assert any("Here is the file:" in line for line in early)
    assert any(line.startswith("╭─ write_file toolu_") for line in early)
    # Taller than the screen: the panel shows its tail, and says how much is above.
    middle = frames[len(frames) // 2]
    above = [line for line in middle if "more lines above" in line]
    assert len(above) == 1 and any("… streaming" in line for line in middle)
    assert all(len(line) <= 100 for frame in frames for line in frame)


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


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        (
            "max_tokens_in_tool_string.sse",
            ["⚠ incomplete: the input stopped before its end", "stop reason: max_tokens"],
        ),
        (
            "invalid_tool_json.sse",
            [
                "✗ invalid JSON: Expecting ',' delimiter at line 1 column 24 (char 23)",
                "✗ invalid JSON: Extra data at line 1 column 26 (char 25)",
            ],
        ),
        (
            "error_mid_stream.sse",
            [
                "⚠ unfinished: the stream ended inside this input",
                "stream error: overloaded_error: Overloaded",
            ],
        ),
    ],
)
def test_incomplete_invalid_and_unfinished_inputs(fixture: str, expected: list[str]) -> None:
    run = run_in_pty(["replay", str(ANTHROPIC / fixture), "--no-delay"], columns=120, rows=60)
    text = "\n".join(run.screen())
    for phrase in expected:
        assert phrase in text
    assert run.returncode == (1 if fixture.startswith("error") else 0)


def test_no_color_keeps_the_live_region_but_drops_colours() -> None:
    run = run_in_pty(
        ["replay", str(ANTHROPIC / "parallel_tools.sse"), "--no-delay"], env={"NO_COLOR": "1"}
    )
    assert not SGR.search(run.output) and b"\x1b[J" in run.output
    assert "✓ final: strictly parsed (150 chars)" in "\n".join(run.screen())


def test_thinking_is_dimmed_or_hidden() -> None:
    path = str(ANTHROPIC / "thinking_signature.sse")
    shown = run_in_pty(["replay", path, "--no-delay"])
    assert b"\x1b[2mThe user wants " in shown.output  # dim, piece by piece
    hidden = run_in_pty(["replay", path, "--no-delay", "--hide-thinking"])
    assert b"The user wants the median" not in hidden.output
    assert "The **median**" in "\n".join(hidden.screen())


def test_ctrl_c_exits_cleanly_with_what_was_received() -> None:
    run = run_in_pty(
        ["replay", str(WRITE_FILE), "--speed", "0.2"],
        interrupt_when=lambda out: out.count(b"\x1b[J") > 5,
    )
    text = "".join(run.screen())  # the summary may wrap
    assert run.returncode == 130
    assert "⚠ unfinished: the stream ended inside this input" in text
    assert "interrupted" in text and "events" in text
    assert b"Traceback" not in run.output


def test_parse_shows_the_value_growing_then_the_final_value() -> None:
    document = {"path": "a.py", "items": list(range(40)), "content": "x" * 300}
    text = json.dumps(document).encode()
    run = run_in_pty(["parse", "--chunk", "16"], stdin=text, rows=60)
    assert run.returncode == 0
    frames = run.frames()
    growing = [f for f in frames if any("bytes read" in line for line in f)]
    assert len(growing) > 10
    final = "\n".join(run.screen())
    assert '"content": "' + "x" * 50 in final.replace("\n", "")
    assert "bytes read" not in final  # the live region gave way to the final value


# --------------------------------------------------------------------------- in a pipe


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fixture_replays_in_plain_lines(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = cli.main(["replay", str(path), "--no-delay"])
    out = capsys.readouterr().out
    _, error = accumulate(path)
    assert status == (1 if error else 0)
    assert "\x1b" not in out
    assert ("stream error" in out) == (error is not None)
    assert re.search(r"\d+ events, [\d,]+ bytes", out)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_json_output_is_the_accumulators_result(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = cli.main(["replay", str(path), "--json"])
    captured = capsys.readouterr()
    acc, error = accumulate(path)
    assert json.loads(captured.out) == result_of(acc)
    assert status == (1 if error else 0)
    assert (error is None) == ("stream error" not in captured.err)


def test_plain_replay_tells_each_tool_once(capsys: pytest.CaptureFixture[str]) -> None:
    cli.main(["replay", str(ANTHROPIC / "parallel_tools.sse"), "--no-delay"])
    out = capsys.readouterr().out
    assert out.count("[tool get_weather") == 2 and out.count("╰─ ✓ final") == 3
    assert out.index("[tool get_forecast") > out.index("Tōkyō")


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


def test_format_detection_and_forcing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert detect(ServerSentEvent("message_start", "{}", "", None)) == "anthropic"
    assert detect(ServerSentEvent("response.created", "{}", "", None)) == "responses"
    assert (
        detect(ServerSentEvent("message", '{"type": "content_block_delta"}', "", None))
        == "anthropic"
    )
    assert (
        detect(ServerSentEvent("message", '{"type": "response.completed"}', "", None))
        == "responses"
    )
    assert (
        detect(ServerSentEvent("message", '{"object": "chat.completion.chunk"}', "", None))
        == "chat"
    )
    assert detect(ServerSentEvent("message", "[DONE]", "", None)) is None
    assert detect(ServerSentEvent("message", "[1]", "", None)) is None
    assert detect(ServerSentEvent("message", '{"type": "ping"}', "", None)) is None
    unknown = tmp_path / "unknown.sse"
    unknown.write_text('data: {"hello": 1}\n\n')
    assert cli.main(["replay", str(unknown), "--no-delay"]) == 1
    assert "use --format" in capsys.readouterr().err
    # Forced, the same stream is read as chat chunks (with no choices in them).
    assert cli.main(["replay", str(unknown), "--json", "--format", "chat"]) == 0
    assert json.loads(capsys.readouterr().out)["object"] == "chat.completion"
    assert cli.main(["replay", str(unknown), "--format", "anthropic"]) == 0  # unknown: ignored
    capsys.readouterr()
    broken = tmp_path / "broken.sse"
    broken.write_text('event: message_start\ndata: {"type": "message_start"}\n\n')
    assert cli.main(["replay", str(broken), "--no-delay"]) == 1
    assert "stream error: malformed message_start event: KeyError" in capsys.readouterr().out
    garbage = tmp_path / "garbage.sse"
    garbage.write_text("event: message_start\ndata: {not json\n\n")
    assert cli.main(["replay", str(garbage), "--json"]) == 1
    assert "is not JSON" in capsys.readouterr().err
    assert cli.main(["replay", str(tmp_path / "missing.sse")]) == 1
    assert "No such file" in capsys.readouterr().err


def test_parse_error_with_line_column_and_caret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{\n  "a": [1, 2],\n  "b": {"c": 3 "d": 4}\n}\n')
    assert cli.main(["parse", str(path), "--chunk", "5"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "jsonsnap: invalid JSON: Expecting ',' delimiter at line 3 column 16 (char 32)"
    assert err[1] == '    3 |   "b": {"c": 3 "d": 4}'
    assert err[2] == "      |" + " " * 16 + "^"
    assert err[1].index('"d"') == err[2].index("^")


def test_parse_incomplete_and_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cut.json"
    path.write_text('{"a": "中文 text')
    assert cli.main(["parse", str(path)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (
        "jsonsnap: incomplete JSON: Unterminated string starting at line 1 column 7 (char 6); "
        "the input ends at line 1 column 15 (char 14)"
    )
    # The caret after the last character, counting the wide ones as two columns.
    assert err[2].index("^") - len("      | ") == width_of('{"a": "中文 text')
    path.write_text('[1, 2.5, "x", {"k": null}]')
    assert cli.main(["parse", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [1, 2.5, "x", {"k": None}]
    assert cli.main(["parse", str(tmp_path / "none.json")]) == 1


# --------------------------------------------------------------------------- pieces


def test_stream_text_cannot_drive_the_terminal() -> None:
    assert clean("a\x1b[2Jb\x07c\x9bd") == "a\u241b[2Jb\u2407c\ufffdd"
    assert clean("\tx\ty") == "    x   y"
    assert clean("line 1\nline 2") == "line 1\nline 2"


def test_fit_counts_wide_characters() -> None:
    assert width_of("中文ab") == 6 and width_of("e\u0301") == 1
    assert fit("中文中文", 5) == "中文…" and fit("abc", 3) == "abc" and fit("abcd", 3) == "ab…"


def test_body_lines() -> None:
    lines = body_lines({"path": "a.py", "content": "x = 1\r\ny = 2\n", "n": [1, 2]}, 40)
    assert lines == ['path: "a.py"', "content:", "  │ x = 1", "  │ y = 2", "  │ ", "n: [1, 2]"]
    wide = body_lines({"k": list(range(30))}, 20)
    assert wide[0] == "k: [" and len(wide) == 32
    assert body_lines([1, "a"]) == ["[", "  1,", '  "a"', "]"]


def test_caret_on_a_long_line() -> None:
    text = "[" + "1, " * 200 + "x]"
    with pytest.raises(JSONDecodeError) as info:
        loads(text)
    line, mark = caret(text, info.value, 60)
    assert line[mark.index("^")] == "x"


def test_terminal_without_a_tty_draws_nothing_live() -> None:
    class Out:
        def __init__(self) -> None:
            self.parts: list[str] = []

        def write(self, text: str) -> int:
            self.parts.append(text)
            return len(text)

        def flush(self) -> None:
            pass

    out = Out()
    term = Terminal(out, color=True)  # type: ignore[arg-type]
    term.live(["a", "b"])
    term.write("text")
    term.line("line")
    assert "".join(out.parts) == "text\nline\n" and term.style("x", "red") == "\x1b[31mx\x1b[0m"


@settings(max_examples=examples(200))
@given(
    snapshot=st.one_of(
        st.dictionaries(
            st.text(max_size=3),
            st.one_of(
                st.text(alphabet="ab\n\r\t", max_size=12),
                st.lists(st.integers(), max_size=30),
                st.none(),
            ),
            max_size=4,
        ),
        st.lists(st.integers(), max_size=5),
    ),
    last=st.integers(0, 12),
)
def test_tail_lines_are_the_last_lines_of_the_whole(snapshot: Any, last: int) -> None:
    """The panel cuts out only the lines it shows; they are those of the whole body."""
    whole = body_lines(snapshot, 30)
    tail, total = tail_lines(snapshot, 30, last)
    assert total == len(whole)
    assert tail == whole[len(whole) - min(last, len(whole)) :]

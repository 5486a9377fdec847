"""``jsonsnap replay --schema FILE``: tool calls checked against the request's schemas.

In a pipe (``main()`` in-process, output captured): each violation is a plain line in its
call's panel (the path in the arguments, the message, where), the panel's footer and the
summary say the call is invalid; every shape of ``--schema`` file gives the same; a Responses
stream is checked against the tools it repeats; a bad file is a usage error. In a real
pseudo-terminal: the violation shows in red in the live panel while the call still streams,
and the screen stays within its width.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import paths
from jsonsnap import __main__ as cli
from terminal import recording, run_in_pty, stray_controls

ROOT = paths.FIXTURES
ANTHROPIC = ROOT / "anthropic" / "schema_tool_enum.sse"
CHAT = ROOT / "openai" / "chat_schema_tool_enum.sse"
RESPONSES = ROOT / "openai" / "responses_schema_tool_enum.sse"
#: Each tool fixture, its tool and wrong field, and the message of the enum it breaks.
CASES = [
    (ANTHROPIC, "get_weather", "/unit", "expected one of 'celsius', 'fahrenheit'"),
    (CHAT, "create_ticket", "/priority", "expected one of 'low', 'medium', 'high'"),
    (RESPONSES, "book_table", "/seating", "expected one of 'indoor', 'outdoor', 'bar'"),
]
SGR = re.compile(r"\x1b\[[0-9;]*m")


def request_of(path: Path) -> Path:
    return path.parent / "schemas" / f"{path.stem}.request.json"


def checked_pos(path: Path) -> int:
    checked = json.loads((path.parent / "schemas" / f"{path.stem}.checked.json").read_text("utf-8"))
    (pos,) = [v["pos"] for tool in checked["tools"].values() for v in tool["violations"]]
    assert isinstance(pos, int)
    return pos


def replay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    """The exit status and the lines of a replay: 1 with the one line on standard error that
    says why when a call breaks its schema, 0 with nothing there otherwise."""
    status = cli.main(["replay", *args])
    out, err = capsys.readouterr()
    if status:
        assert status == 1 and err.count("\n") == 1
        assert re.fullmatch(r"jsonsnap: \d+ of \d+ tool calls? (is|are) not fit to run: .*\n", err)
        assert " breaks its schema: " in err
    else:
        assert err == ""
    return status, out.splitlines()


@pytest.mark.parametrize(
    ("path", "name", "pointer", "message"), CASES, ids=lambda v: getattr(v, "stem", "")
)
def test_a_violation_is_marked_in_its_panel_and_the_summary(
    path: Path, name: str, pointer: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, lines = replay(capsys, str(path), "--schema", str(request_of(path)))
    assert status == 1  # the stream is fine, but a call's arguments are not
    pos = checked_pos(path)
    panel = lines[lines.index(next(line for line in lines if line.startswith(f"╭─ {name} "))) :]
    marks = [line for line in panel if line.startswith("│ ✗")]
    assert len(marks) == 1
    assert re.fullmatch(
        rf"│ ✗ {re.escape(pointer)}: {re.escape(message)} \(line 1 column {pos + 1}, char {pos}\)",
        marks[0],
    )
    footer = next(line for line in panel if line.startswith("╰─"))
    assert re.fullmatch(r"╰─ ✗ invalid: 1 schema violation \(\d+ chars\)", footer)
    assert f"✗ invalid: {name} {pointer}: {message} · " in lines[-1]
    assert "\x1b" not in "\n".join(lines)


def test_every_shape_of_schema_file_gives_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = json.loads(request_of(ANTHROPIC).read_text("utf-8"))["tools"]
    weather = tools[0]
    shapes: dict[str, Any] = {
        "request": json.loads(request_of(ANTHROPIC).read_text("utf-8")),
        "list": tools,
        "one tool": weather,
        "one schema": weather["input_schema"],
        "mapping": {"get_weather": weather["input_schema"]},
        "chat shape": [
            {
                "type": "function",
                "function": {"name": "get_weather", "parameters": weather["input_schema"]},
            }
        ],
    }
    marks = {}
    for label, data in shapes.items():
        path = tmp_path / f"{label}.json"
        path.write_text(json.dumps(data), "utf-8")
        _, lines = replay(capsys, str(ANTHROPIC), "--schema", str(path))
        marks[label] = [line for line in lines if line.startswith("│ ✗")]
        # A schema for every call checks the other tool too: its input has no unit.
        if label != "one schema":
            assert sum(line.startswith("╰─ ✓ final") for line in lines) == 1, label
    assert len({tuple(found) for label, found in marks.items() if label != "one schema"}) == 1
    assert marks["one schema"][0] == marks["list"][0]
    assert "/ (root)" not in "".join(marks["one schema"])


def test_without_a_schema_only_what_the_stream_repeats_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, lines = replay(capsys, str(ANTHROPIC))  # a Messages stream does not repeat its tools
    assert status == 0 and not any("✗" in line for line in lines)
    assert sum(line.startswith("╰─ ✓ final") for line in lines) == 2
    status, lines = replay(capsys, str(RESPONSES))  # the response repeats the request's tools
    assert status == 1
    assert sum(line.startswith("│ ✗ /seating: ") for line in lines) == 1
    assert "✗ invalid: book_table /seating:" in lines[-1]
    # --schema wins over what the stream repeats.
    mine = tmp_path / "patio.json"
    mine.write_text(json.dumps({"book_table": {"type": "object"}}), "utf-8")
    status, lines = replay(capsys, str(RESPONSES), "--schema", str(mine))
    assert status == 0 and not any("✗" in line for line in lines)


def test_what_a_violation_shows_is_cleaned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evil = "k\x1b]0;pwned\x07\u202e"
    body = recording(json.dumps({evil: 1}, ensure_ascii=False), name="t\x1b[2Jool")
    path = tmp_path / "evil.sse"
    path.write_bytes(body)
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"additionalProperties": {"type": "string"}}), "utf-8")
    status = cli.main(["replay", str(path), "--schema", str(schema)])
    out, err = capsys.readouterr()
    assert status == 1 and stray_controls(out.encode()) == stray_controls(err.encode()) == []
    assert err.startswith(
        "jsonsnap: 1 of 1 tool call is not fit to run: tool 't\\x1b[2Jool' (1) input breaks"
    )
    marks = [line for line in out.splitlines() if line.startswith("│ ✗ ")]
    assert len(marks) == 1 and marks[0].startswith("│ ✗ /k␛]0;pwned␇")
    assert "✗ invalid: t␛[2Jool /k␛]0;pwned␇" in out.splitlines()[-1]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "No such file or directory: "),
        ("{", " is not JSON: Expecting property name"),
        ('{"type": "nope"}', "unknown type 'nope'"),
        ("[42]", "item 0 is 42"),
        ('[{"type": "web_search"}]', " defines no tool with an input schema"),
        ('{"a": 42}', "tools= (tool 'a') takes a JSON Schema"),
    ],
)
def test_a_bad_schema_file_is_a_usage_error(
    tmp_path: Path, content: str | None, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "schema.json"
    if content is not None:
        path.write_text(content, "utf-8")
    with pytest.raises(SystemExit) as info:
        cli.main(["replay", str(ANTHROPIC), "--schema", str(path)])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.startswith("usage: jsonsnap replay ")
    assert "jsonsnap replay: error: argument --schema: " in err and message in err


# --------------------------------------------------------------------------- in a terminal


def test_the_live_panel_shows_the_violation_in_red_while_the_call_streams() -> None:
    # 0.04 s between events: a frame at every event.
    args = ["replay", str(ANTHROPIC), "--schema", str(request_of(ANTHROPIC)), "--speed", "0.3"]
    run = run_in_pty(args, columns=72, rows=20)
    assert run.returncode == 1
    frames = run.frames()
    live = [f for f in frames if any("… streaming" in line and "✗ invalid" in line for line in f)]
    assert live, "no frame showed the call streaming with its violation"
    first = live[0]
    assert any(line.startswith("│ ✗ /unit: expected one of 'celsius'") for line in first)
    assert not any(line.startswith("╰─ ✗ invalid: 1 schema violation (") for line in first)
    # The offending value was still growing: the first such frame shows it cut.
    unit = next(line for line in first if line.startswith("│ unit: "))
    assert unit != '│ unit: "kelvin"'
    assert all(len(line) <= 72 for frame in frames for line in frame)
    output = run.output.decode("utf-8")
    assert "\x1b[31m✗ /unit: expected one of" in output  # red
    assert stray_controls(run.output) == []
    transcript = run.transcript()
    at = transcript.index("│ ✗ /unit: expected one of 'celsius', 'fahrenheit' (line 1 column 39,")
    assert transcript[at + 1] == "│   char 38)"  # wrapped, as the footer is
    assert "╰─ ✗ invalid: 1 schema violation (71 chars)" in transcript
    end = transcript.index("╰─ ✓ final: strictly parsed (27 chars)")
    summary = "".join(transcript[end + 1 :])  # as the terminal wrapped it
    assert "✗ invalid: get_weather /unit: expected one of 'celsius'," in summary


def test_no_color_keeps_the_marks_as_plain_text() -> None:
    args = ["replay", str(CHAT), "--schema", str(request_of(CHAT)), "--no-delay"]
    run = run_in_pty(args, env={"NO_COLOR": "1"})
    assert run.returncode == 1 and not SGR.search(run.output.decode("utf-8"))
    screen = "\n".join(run.screen())
    assert "│ ✗ /priority: expected one of 'low', 'medium', 'high'" in screen
    assert "✗ invalid: create_ticket /priority:" in screen

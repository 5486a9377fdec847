"""The command line against hostile input: a stream that tries to drive the terminal, data too
deep for recursion, closed standard streams, bad option values. Whatever happens, a usage
error or a one-line message and an exit status; never a traceback, and nothing from a stream
reaches a terminal uncleaned."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from jsonsnap import __main__ as cli
from jsonsnap.anthropic import MessageAccumulator
from terminal import Screen, run_closed, run_in_pty, sse, stray_controls

# A clipboard write, a window title, a screen clear (7-bit and C1), an OSC in C1, a right-to-left
# override, an isolate, the marks, DEL, and a lone surrogate.
EVIL = (
    "\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b[2J\x9b2J\x9d0;t\x9c"
    "\u202egnp.exe\u2066\u200f\u061c\x7f\ud800"
)
EVIL_KEY = "k\x1b[31m\x9b1m\u202e"


def _event(kind: str, **fields: object) -> bytes:
    return sse(kind, {"type": kind, **fields})


def hostile_recording() -> bytes:
    """A Messages stream with escapes in every field it has: ids, names, model, text,
    thinking, tool input keys and values (short, multi-line, long, nested), usage keys, the
    stop reason, and an error event's type and message."""
    message: dict[str, object] = {"id": EVIL, "type": "message", "role": "assistant"}
    message |= {"model": EVIL, "content": [], "stop_reason": None}
    message["usage"] = {"input_tokens": 3, EVIL: 4}
    arguments = {
        EVIL_KEY: EVIL,
        "content": f"line 1 {EVIL}\n{EVIL}\n\t{EVIL}",
        "long": "x" * 300 + EVIL,
        "nested": {EVIL_KEY: [EVIL, {EVIL_KEY: 1}] * 12},
    }
    raw = json.dumps(arguments, ensure_ascii=False)  # C1 and bidi raw, C0 escaped
    tool = {"type": "tool_use", "id": EVIL, "name": EVIL, "input": {}}
    bad = {"type": "tool_use", "id": "toolu_2", "name": EVIL, "input": {}}
    events = [
        _event("message_start", message=message),
        _event("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""}),
        _event("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": EVIL}),
        _event("content_block_stop", index=0),
        _event("content_block_start", index=1, content_block={"type": "text", "text": ""}),
        _event("content_block_delta", index=1, delta={"type": "text_delta", "text": EVIL}),
        _event("content_block_stop", index=1),
        _event("content_block_start", index=2, content_block=tool),
        *(
            _event(
                "content_block_delta",
                index=2,
                delta={"type": "input_json_delta", "partial_json": raw[i : i + 20]},
            )
            for i in range(0, len(raw), 20)
        ),
        _event("content_block_stop", index=2),
        _event("content_block_start", index=3, content_block=bad),
        _event(
            "content_block_delta",
            index=3,
            delta={"type": "input_json_delta", "partial_json": '{"a": 1 ' + EVIL},
        ),
        _event("content_block_stop", index=3),
        _event("message_delta", delta={"stop_reason": EVIL}, usage={EVIL: 5, "output_tokens": 9}),
        _event("error", error={"type": EVIL, "message": EVIL}),
    ]
    return b"".join(events)


def chat_recording() -> bytes:
    """A Chat Completions stream with escapes in its ids, model, text, tool call (id, name,
    arguments), finish reason and usage keys, then an error chunk."""
    arguments = json.dumps({EVIL_KEY: EVIL, "text": "a\n" + EVIL})

    def chunk(delta: dict[str, object], **more: object) -> bytes:
        choice = {"index": 0, "delta": delta, **more}
        return sse("message", {"id": EVIL, "object": "chat.completion.chunk", "choices": [choice]})

    call = {"index": 0, "id": EVIL, "type": "function", "function": {"name": EVIL}}
    return b"".join(
        [
            chunk({"role": "assistant", "content": EVIL}),
            chunk({"tool_calls": [call | {"function": {"name": EVIL, "arguments": arguments}}]}),
            chunk({}, finish_reason=EVIL),
            sse("message", {"object": "chat.completion.chunk", "choices": [], "usage": {EVIL: 3}}),
            sse("message", {"error": {"message": EVIL, "type": EVIL}}),
        ]
    )


def responses_recording() -> bytes:
    """A Responses stream with escapes in the response's id and status, a function call's
    name, call id and arguments, and the usage keys."""
    arguments = json.dumps({EVIL_KEY: EVIL, "text": "a\n" + EVIL})
    item = {"type": "function_call", "id": "fc_1", "call_id": EVIL, "name": EVIL, "arguments": ""}
    done = item | {"arguments": arguments}
    response = {"id": EVIL, "object": "response", "status": "in_progress", "output": []}
    final = response | {"status": EVIL, "usage": {EVIL: 2}, "output": [done]}
    return b"".join(
        [
            _event("response.created", response=response),
            _event("response.output_item.added", output_index=0, item=item),
            _event("response.function_call_arguments.delta", output_index=0, delta=arguments),
            _event("response.output_item.done", output_index=0, item=done),
            _event("response.completed", response=final),
        ]
    )


RECORDINGS = {
    "anthropic": hostile_recording,
    "chat": chat_recording,
    "responses": responses_recording,
}


@pytest.fixture(scope="module")
def evil_sse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "evil.sse"
    path.write_bytes(hostile_recording())
    return path


def unsafe(text: str) -> list[str]:
    """The characters of ``text`` that must not reach a terminal."""
    return re.findall(
        r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]",
        text,
    )


# --------------------------------------------------------------------------- escapes


def test_no_escape_from_the_stream_reaches_a_terminal(evil_sse: Path) -> None:
    run = run_in_pty(["replay", str(evil_sse), "--speed", "10"], columns=80, rows=16)
    assert run.returncode == 1
    assert stray_controls(run.output) == []
    transcript = "".join(run.transcript())  # long lines wrap
    assert "╭─ ␛]52;c;ZXZpbA==␇␛]0;pwned␇␛[2J\ufffd2J\ufffd0;t\ufffd\ufffdgnp.exe" in transcript
    assert "stop reason: ␛]52;c;" in transcript and "usage: input_tokens 3, ␛]52" in transcript
    assert "jsonsnap: stream error: ␛]52;c;ZXZpbA==␇" in transcript
    assert "✗ invalid JSON: Expecting ',' delimiter" in transcript
    assert b"Traceback" not in run.output


def test_json_on_a_terminal_stays_json_without_escapes(evil_sse: Path) -> None:
    run = run_in_pty(["replay", str(evil_sse), "--json"], columns=80, rows=16)
    assert run.returncode == 1
    assert stray_controls(run.output) == []
    output = run.output.replace(b"\r\n", b"\n").decode("utf-8")
    text, _, error = output.rstrip("\n").rpartition("\n")  # the error after the output
    expected = MessageAccumulator()
    with pytest.raises(Exception, match="pwned"):
        expected.read([evil_sse.read_bytes()])
    assert json.loads(text) == expected.message  # every character kept, as an escape
    assert error.startswith("jsonsnap: stream error: ␛]52;c;ZXZpbA==␇")


@pytest.mark.parametrize("protocol", list(RECORDINGS))
def test_every_protocols_fields_are_cleaned_in_a_pipe_and_on_a_terminal(
    protocol: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "evil.sse"
    path.write_bytes(RECORDINGS[protocol]())
    status = 0 if protocol == "responses" else 1
    assert cli.main(["replay", str(path)]) == status
    out, err = capsys.readouterr()
    assert unsafe(out) == [] and unsafe(err) == []
    assert "␛]52;c;ZXZpbA==␇" in out and ("reason: ␛]52" in out or "status: ␛]52" in out)
    assert cli.main(["replay", str(path), "--json"]) == status
    out, err = capsys.readouterr()
    assert unsafe(out) == [] and unsafe(err) == []
    assert "\\u001b]52;c;ZXZpbA==\\u0007" in out and "\\u009b2J" in out and "\\ud800" in out
    screen = Screen(tty=True)
    monkeypatch.setattr(sys, "stdout", screen)
    monkeypatch.setattr("jsonsnap._cli.terminal.FPS", 10**9)  # a frame at every event
    assert cli.main(["replay", str(path), "--no-delay"]) == status
    text = "".join(screen.parts)
    assert "\x1b[J" in text  # drawn live
    assert unsafe(re.sub(r"\r?\x1b\[(?:[0-9;]*[mAJ]|\?7[lh])", "", text)) == []  # but our own


def test_parse_cleans_what_it_shows(tmp_path: Path) -> None:
    document = (
        '{"k\\u001b]0;t\\u0007": "\\u009b2J \\u202e", "raw": "\u009b[31m\u202e\u2066x",'
        ' "lone": "\\ud800", "long": "' + "y" * 400 + '\\u001b[2J", "bad": "\x1b]0;t\x07"}'
    ).encode()
    run = run_in_pty(["parse", "--chunk", "64", "--delay", "0.02"], stdin=document, rows=12)
    assert run.returncode == 1
    assert stray_controls(run.output) == []
    transcript = "\n".join(run.transcript())
    assert '"k\\u001b]0;t\\u0007": "\\u009b2J \\u202e",' in transcript  # the value, escaped
    assert "jsonsnap: invalid JSON: Invalid control character at" in transcript
    assert '"bad": "␛]0;t␇"}' in transcript  # the caret's line, cleaned


# --------------------------------------------------------------------------- data


@pytest.mark.parametrize("options", [[], ["--format", "anthropic"]])
def test_data_too_deep_for_recursion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str]
) -> None:
    path = tmp_path / "deep.sse"
    deep = "[" * 20_000 + "]" * 20_000  # json.loads gives up at about 1,000
    path.write_text(
        f"data: {'[' * 20_000}\n\n"
        f'event: message_start\ndata: {{"type": "message_start", "message": {deep}}}\n\n'
    )
    assert cli.main(["replay", str(path), *options]) == 1
    err = capsys.readouterr().err
    assert err.startswith("jsonsnap: ") and err.count("\n") == 1


# --------------------------------------------------------------------------- options


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["replay", "x.sse", "--speed", "0"], "argument --speed: must be more than 0, not 0"),
        (["replay", "x.sse", "--speed", "-2"], "argument --speed: must be more than 0, not -2"),
        (["replay", "x.sse", "--speed", "nan"], "argument --speed: not a finite number: 'nan'"),
        (["replay", "x.sse", "--speed", "inf"], "argument --speed: not a finite number: 'inf'"),
        (["replay", "x.sse", "--speed", "fast"], "argument --speed: not a number: 'fast'"),
        (["replay", "x.sse", "--verbose"], "unrecognized arguments: --verbose"),
        (["replay"], "replay needs a FILE (- for standard input) or --example"),
        (["replay", "x.sse", "--example"], "replay needs a FILE"),
        (["demo", "--format", "xml"], "argument --format: invalid choice: 'xml'"),
        (["parse", "--delay", "-1"], "argument --delay: must be 0 or more, not -1"),
        (["parse", "--delay", "nan"], "argument --delay: not a finite number: 'nan'"),
        (["parse", "--chunk", "0"], "argument --chunk: must be 1 or more, not 0"),
        (["parse", "--chunk", "-5"], "argument --chunk: must be 1 or more, not -5"),
        (["parse", "--chunk", "1.5"], "argument --chunk: not a whole number: '1.5'"),
        (["parse", "a.json", "b.json"], "unrecognized arguments: b.json"),
    ],
)
def test_bad_options_are_usage_errors_of_their_subcommand(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(args)
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert err.startswith(f"usage: jsonsnap {args[0]} ")
    assert f"jsonsnap {args[0]}: error: {message}" in err


# --------------------------------------------------------------------------- standard streams


@pytest.mark.parametrize(
    ("args", "closed", "message"),
    [
        (["replay", "-"], [0], "jsonsnap: standard input is closed\n"),
        (["parse"], [0], "jsonsnap: standard input is closed\n"),
        (["parse"], [1], "jsonsnap: standard output is closed\n"),
        (["demo"], [1], "jsonsnap: standard output is closed\n"),
    ],
)
def test_closed_standard_streams(args: list[str], closed: list[int], message: str) -> None:
    done = run_closed(args, closed, stdin=None if 0 in closed else b"[1]")
    assert done.returncode == 1
    assert done.stderr.decode() == message


def test_a_reader_that_goes_away(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps([{"n": i} for i in range(20_000)]))  # more than a pipe holds
    process = subprocess.Popen(
        [sys.executable, "-m", "jsonsnap", "parse", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(11) == b'[\n  {\n    "'
    process.stdout.close()
    assert process.wait(timeout=60) == 0
    assert process.stderr.read() == b""

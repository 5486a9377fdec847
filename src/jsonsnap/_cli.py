"""The ``replay`` and ``parse`` commands: a stream played as a typewriter, JSON watched as it grows.

``replay`` reads a recorded (or live, from standard input) event stream of the Anthropic
Messages API, OpenAI Chat Completions or the OpenAI Responses API, tells which from its first
event, and feeds it to the matching accumulator. Each :class:`Update` drives the view: text is
typed out as it arrives (reasoning dimmed, or hidden); each tool call is a panel in the live
region (its name, then its arguments drawn from the snapshot, a multi-line string shown as its
lines and the panel's tail kept on screen), redrawn at every delta and committed once the call
is final, incomplete or invalid; a summary closes the replay. Without a terminal, the same
story is told in plain lines: the text, then each panel once, when it ends.

``parse`` feeds JSON text to a :class:`jsonsnap.Parser` in the pieces it arrives in, shows the
snapshot growing, then the strict value, or the error with a caret under the offending character.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from typing import Any, BinaryIO

from ._errors import JSONDecodeError
from ._parser import Parser
from ._streams import StreamError, ToolInput, Update, _Accumulator
from ._terminal import Terminal, clean, fit, width_of
from .anthropic import MessageAccumulator
from .openai import ChatCompletionAccumulator, ResponseAccumulator
from .sse import ServerSentEvent, iter_events

FORMATS = ("anthropic", "chat", "responses")

# Seconds between two events of a recording at --speed 1: a file's few hundred events take a
# few seconds, readable but not slow.
_EVENT_DELAY = 0.012


def _read(source: BinaryIO, size: int) -> Iterator[bytes]:
    """The bytes of ``source`` in the pieces they arrive in (at most ``size`` at a time)."""
    try:
        fd = source.fileno()
    except (AttributeError, OSError, ValueError):
        fd = -1
    while True:
        chunk = os.read(fd, size) if fd >= 0 else source.read(size)
        if not chunk:
            return
        yield chunk


def _open(path: str) -> BinaryIO:
    if path == "-":
        return sys.stdin.buffer
    return open(path, "rb")


def detect(event: ServerSentEvent) -> str | None:
    """Which protocol an event belongs to, or ``None`` when this one cannot tell."""
    if event.event.startswith(("message_", "content_block_")):
        return "anthropic"
    if event.event.startswith("response."):
        return "responses"
    try:
        data = json.loads(event.data)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    kind = data.get("type")
    if isinstance(kind, str):
        if kind.startswith(("message_", "content_block_")):
            return "anthropic"
        if kind.startswith("response."):
            return "responses"
    if "choices" in data or str(data.get("object", "")).startswith("chat.completion"):
        return "chat"
    return None


def _accumulator(kind: str) -> _Accumulator:
    if kind == "anthropic":
        return MessageAccumulator()
    if kind == "chat":
        return ChatCompletionAccumulator()
    return ResponseAccumulator()


def result_of(accumulator: _Accumulator) -> Any:
    """What the accumulator built: the message, completion or response."""
    if isinstance(accumulator, MessageAccumulator):
        return accumulator.message
    if isinstance(accumulator, ChatCompletionAccumulator):
        return accumulator.completion
    return accumulator.response  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- panels


def _value_lines(key: str, value: Any, columns: int, last: int | None) -> tuple[list[str], int]:
    """A member shown as lines (its last ``last`` of them, when given), and how many in all."""
    if isinstance(value, str):
        if "\n" not in value:
            return [f"{key}: {json.dumps(value, ensure_ascii=False)}"], 1
        # A file's lines; a CR before the line end (CRLF text) is part of the line end. Only
        # the lines wanted are cut out, so a panel redrawn at every delta stays linear.
        count = value.count("\n") + 1
        if last is None or last > count:
            head, lines = [f"{key}:"], value.split("\n")
        else:
            head, lines = [], value.rsplit("\n", last)[-last:] if last else []
        return head + ["  │ " + line.removesuffix("\r") for line in lines], count + 1
    compact = json.dumps(value, ensure_ascii=False)
    if width_of(compact) + len(key) + 2 <= columns:
        return [f"{key}: {compact}"], 1
    pretty = json.dumps(value, ensure_ascii=False, indent=2).split("\n")
    return [f"{key}: {pretty[0]}"] + ["  " + line for line in pretty[1:]], len(pretty)


def tail_lines(snapshot: Any, columns: int, last: int | None) -> tuple[list[str], int]:
    """A tool input shown as lines (one per member, a multi-line string as its lines): the
    last ``last`` of them (all for ``None``), and how many there are in all."""
    if not isinstance(snapshot, dict):
        lines = json.dumps(snapshot, ensure_ascii=False, indent=2).split("\n")
        total = len(lines)
        if last is not None:
            lines = lines[max(0, total - last) :]
        return [clean(line) for line in lines], total
    shown: list[str] = []
    total = 0
    for key, value in reversed(snapshot.items()):
        wanted = None if last is None else max(0, last - len(shown))
        lines, count = _value_lines(str(key), value, columns, wanted)
        shown[:0] = lines if wanted is None else lines[max(0, len(lines) - wanted) :]
        total += count
    return [clean(line) for line in shown], total


def body_lines(snapshot: Any, columns: int = 80) -> list[str]:
    """A tool input shown as lines: one per member, a multi-line string as its lines."""
    return tail_lines(snapshot, columns, None)[0]


class _ReplayView:
    """Turns updates into text and panels on a :class:`Terminal`."""

    def __init__(self, term: Terminal, *, hide_thinking: bool) -> None:
        self.term = term
        self.hide_thinking = hide_thinking
        self.panels: dict[int, ToolInput] = {}  # id(tool) -> tool, in the order they started
        self.closed: set[int] = set()
        self.thinking: bool | None = None  # what the last typed text was

    # -- text

    def text(self, text: str, thinking: bool) -> None:
        if thinking and self.hide_thinking:
            return
        term = self.term
        if thinking != self.thinking:
            if self.thinking is not None or thinking:
                term.line(term.style("thinking…", "dim", "bold") if thinking else "")
                if not thinking:
                    term.write("")
            self.thinking = thinking
        shown = clean(text)
        term.write(term.style(shown, "dim") if thinking else shown)

    # -- panels

    def _status(self, tool: ToolInput, ended: bool) -> str:
        term = self.term
        size = f"{len(tool.raw):,} chars"
        status = tool.status
        if status == "complete":
            return term.style("✓ final: strictly parsed", "green") + term.style(f" ({size})", "dim")
        if status == "invalid":
            err = tool.error
            assert err is not None
            return term.style(
                f"✗ invalid JSON: {err.msg} at line {err.lineno} column {err.colno}"
                f" (char {err.pos}); the snapshot is the text before it",
                "red",
            )
        if status == "incomplete":
            return term.style(
                f"⚠ incomplete: the input stopped before its end ({size}; best effort shown)",
                "yellow",
            )
        if ended:
            return term.style(
                f"⚠ unfinished: the stream ended inside this input ({size}; best effort shown)",
                "yellow",
            )
        return term.style(f"… streaming, {size}", "dim")

    def _panel(self, tool: ToolInput, ended: bool, height: int | None) -> list[str]:
        """The panel of a tool call: its name, its arguments (the last ``height`` lines of
        them, when given), its status."""
        term = self.term
        name = term.style(f"╭─ {clean(tool.name) or 'tool'}", "bold", "cyan")
        head = name + term.style(f" {tool.id}" if tool.id else "", "dim")
        body, total = tail_lines(tool.snapshot, term.size.columns - 4, height)
        if height is not None and total > height:
            hidden = term.style(f"↑ {total - height + 1:,} more lines above", "dim")
            body = [hidden, *body[1:]]
        return [head, *("│ " + line for line in body), "╰─ " + self._status(tool, ended)]

    def tool(self, tool: ToolInput) -> None:
        key = id(tool)
        if key in self.closed:
            return
        if key not in self.panels:
            self.panels[key] = tool
            if not self.term.tty:
                who = f" ({tool.id})" if tool.id else ""
                self.term.line(f"[tool {tool.name}{who} started]")
        self.refresh()

    def refresh(self, ended: bool = False) -> None:
        """Commit the panels that are done, redraw the ones still streaming."""
        term = self.term
        done = [t for t in self.panels.values() if t.status != "streaming" or ended]
        if done:
            term.clear()
            for tool in done:
                if term.tty:  # as it was on the screen: its tail, cut to the width
                    columns = term.size.columns - 1
                    lines = [
                        fit(line, columns) for line in self._panel(tool, ended, self._height(1))
                    ]
                else:  # in a log: whole
                    lines = self._panel(tool, ended, None)
                term.write("\n".join(lines) + "\n")
                del self.panels[id(tool)]
                self.closed.add(id(tool))
        if term.tty and self.panels:
            height = self._height(len(self.panels))
            lines = []
            for tool in self.panels.values():
                lines += self._panel(tool, False, height)
            term.live(lines)

    def _height(self, panels: int) -> int:
        """Body lines each of ``panels`` panels may take on the screen."""
        rows = self.term.size.lines
        return max(3, (rows - 2) // panels - 2)

    def update(self, update: Update) -> None:
        if update.text and update.delta != "input":
            self.text(update.text, update.thinking)
        if update.tool is not None:
            self.tool(update.tool)
        elif self.panels:
            self.refresh()


def _summary(term: Terminal, accumulator: _Accumulator | None, counts: str) -> None:
    """The closing line: how the stream ended, its usage, and ``counts``."""
    parts: list[str] = []
    result = result_of(accumulator) if accumulator is not None else None
    if isinstance(result, dict):
        if isinstance(accumulator, MessageAccumulator):
            parts.append(f"stop reason: {result.get('stop_reason')}")
        elif isinstance(accumulator, ChatCompletionAccumulator):
            reasons = ", ".join(str(c.get("finish_reason")) for c in result["choices"])
            parts.append(f"finish reason: {reasons or None}")
        else:
            parts.append(f"status: {result.get('status')}")
        usage = result.get("usage")
        if isinstance(usage, dict):
            numbers = ", ".join(f"{k} {v:,}" for k, v in usage.items() if type(v) is int and v)
            parts.append(f"usage: {numbers}")
    parts.append(counts)
    term.line(term.style(" · ".join(parts), "dim"))


def replay(args: argparse.Namespace, out: Any = None) -> int:
    term = Terminal(out or sys.stdout, color=False if args.no_color else None)
    live = args.file == "-"
    delay = 0.0 if args.no_delay or live or args.json else _EVENT_DELAY / max(args.speed, 1e-9)
    view = _ReplayView(term, hide_thinking=args.hide_thinking)
    accumulator: _Accumulator | None = None
    kind: str | None = args.format
    pending: list[ServerSentEvent] = []
    events = size = 0
    started = time.monotonic()
    status = 0
    show = not args.json

    def feed(event: ServerSentEvent) -> None:
        nonlocal accumulator
        if accumulator is None:
            accumulator = _accumulator(kind)  # type: ignore[arg-type]
        for update in accumulator._feed_event(event):
            if show:
                view.update(update)

    try:
        source = _open(args.file)
    except OSError as exc:
        print(f"jsonsnap: {exc.strerror}: {args.file}", file=sys.stderr)
        return 1

    def counted(chunks: Iterator[bytes]) -> Iterator[bytes]:
        nonlocal size
        for chunk in chunks:
            size += len(chunk)
            yield chunk

    try:
        for event in iter_events(counted(_read(source, 65536 if live else 4096))):
            events += 1
            if kind is None:
                kind = detect(event)
                pending.append(event)
                if kind is None:
                    continue
                for early in pending:
                    feed(early)
                pending.clear()
            else:
                feed(event)
            if delay:
                time.sleep(delay)
        if kind is None:
            print("jsonsnap: cannot tell the stream's format; use --format", file=sys.stderr)
            return 1
    except StreamError as exc:
        if show:
            view.refresh(ended=True)
            term.line(term.style(f"stream error: {exc}", "red", "bold"))
        else:
            print(f"jsonsnap: stream error: {exc}", file=sys.stderr)
        status = 1
    except KeyboardInterrupt:
        if show:
            view.refresh(ended=True)
            term.line(term.style("interrupted", "yellow"))
        status = 130
    finally:
        if source is not sys.stdin.buffer:
            source.close()
    if show:
        view.refresh(ended=True)
        seconds = time.monotonic() - started
        _summary(term, accumulator, f"{events:,} events, {size:,} bytes, {seconds:.2f} s")
    else:
        result = result_of(accumulator) if accumulator is not None else None
        term.out.write(json.dumps(result, ensure_ascii=False, indent=2) + "\n")
        term.out.flush()
    return status


# --------------------------------------------------------------------------- parse


def caret(text: str, err: JSONDecodeError, columns: int = 100) -> list[str]:
    """The line of ``text`` the error is on, and a caret under the offending character."""
    lines = text.split("\n")
    number = min(err.lineno, len(lines))
    line = lines[number - 1].rstrip("\r") if lines else ""
    column = err.colno - 1 if number == err.lineno else len(line)
    start = max(0, column - columns // 2)
    shown = clean(line[start : start + columns])
    lead = width_of(clean(line[start:column]))
    gutter = f"{number:>5} | "
    return [gutter + shown, " " * (len(gutter) - 2) + "| " + " " * lead + "^"]


def parse(args: argparse.Namespace, out: Any = None) -> int:
    term = Terminal(out or sys.stdout, color=False if args.no_color else None)
    parser = Parser()
    received: list[bytes] = []
    columns = term.size.columns

    def show_snapshot() -> None:
        value = parser.snapshot(None)
        if value is None and not parser.done:
            return
        lines = json.dumps(value, ensure_ascii=False, indent=2).split("\n")
        size = sum(map(len, received))
        term.live([clean(line) for line in lines] + [term.style(f"… {size:,} bytes read", "dim")])

    path = args.file or "-"
    try:
        source = _open(path)
    except OSError as exc:
        print(f"jsonsnap: {exc.strerror}: {path}", file=sys.stderr)
        return 1
    try:
        for chunk in _read(source, args.chunk):
            received.append(chunk)
            if parser.feed(chunk) and term.tty and not args.json:
                show_snapshot()
            if args.delay:
                time.sleep(args.delay)
        value = parser.close()
    except JSONDecodeError as err:
        term.clear()
        if source is not sys.stdin.buffer:  # the rest of the line, to show it whole
            received.append(source.read(4096))
        text = b"".join(received).decode("utf-8", "replace")
        where = f"line {err.lineno} column {err.colno} (char {err.pos})"
        if err.incomplete:
            print(
                f"jsonsnap: incomplete JSON: {err.msg}; the input ends at {where}", file=sys.stderr
            )
        else:
            print(f"jsonsnap: invalid JSON: {err.msg} at {where}", file=sys.stderr)
        for line in caret(text, err, max(20, columns - 10)):
            print(line, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        term.commit()
        term.line(term.style("interrupted", "yellow"))
        return 130
    finally:
        if source is not sys.stdin.buffer:
            source.close()
    term.clear()
    if args.json:
        term.write(json.dumps(value, ensure_ascii=False) + "\n")
    else:
        term.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")
    return 0


def add_commands(commands: Any) -> None:
    """The ``replay`` and ``parse`` subcommands of the ``jsonsnap`` command line."""
    r = commands.add_parser(
        "replay",
        help="play an event stream back as a typewriter with live tool-argument panels",
        description="Play an SSE recording (Anthropic Messages, OpenAI Chat Completions or "
        "Responses) back: text typed out, each tool call's arguments drawn live as they stream.",
    )
    r.add_argument("file", metavar="FILE", help="the recording, or - for standard input")
    r.add_argument("--format", choices=FORMATS, help="the protocol (default: from the events)")
    r.add_argument("--speed", type=float, default=1.0, help="playback speed (default 1)")
    r.add_argument("--no-delay", action="store_true", help="play as fast as possible")
    r.add_argument("--hide-thinking", action="store_true", help="do not show reasoning text")
    r.add_argument("--json", action="store_true", help="print only the final result as JSON")
    r.add_argument("--no-color", action="store_true", help="no colours (also: NO_COLOR=1)")
    r.set_defaults(handler=replay)
    p = commands.add_parser(
        "parse",
        help="watch JSON text grow into a value; the strict value, or the error with a caret",
        description="Read JSON text from FILE or standard input in the pieces it arrives in, "
        "show the value as it grows, then the strict final value or the error.",
    )
    p.add_argument("file", metavar="FILE", nargs="?", help="the JSON text (default: stdin)")
    p.add_argument("--json", action="store_true", help="print only the final value, compact")
    p.add_argument("--chunk", type=int, default=4096, help="bytes read at a time (default 4096)")
    p.add_argument("--delay", type=float, default=0.0, help="seconds to wait between reads")
    p.add_argument("--no-color", action="store_true", help="no colours (also: NO_COLOR=1)")
    p.set_defaults(handler=parse)

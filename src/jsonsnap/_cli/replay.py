"""``jsonsnap replay``: an event stream played as a typewriter, with live tool-argument panels.

The stream (a recording, standard input, or the example recording) is decoded event by event
(server-sent events, or Bedrock's binary event stream, told from its first bytes); its protocol
is told from the first events (``--format`` forces it), and each event goes to the accumulator
of that protocol. Each :class:`Update` drives the view: text is typed out as it
arrives (reasoning dimmed, or hidden); each tool call is a panel in the live region (its name,
then its arguments drawn from the snapshot, the tail that fits the screen), redrawn at most at
the terminal's frame rate, and committed whole once the call is final, incomplete or invalid;
a summary closes the replay. Without a terminal, the same story is told in plain lines: the
text, then each panel once, whole, when it ends; and no waiting between events unless
``--speed`` asks for it.

With tool schemas (``--schema FILE``, or the tools a Responses API stream repeats), each call's
arguments are checked as they stream: a violation is marked in its panel from the event that
found it (the path in the arguments and the message, in red), the panel stays live until the
call ends, and the summary says which call is invalid, and why.

The replay fails (exit status 1) on a stream error, and when a tool call is not fit to run
(its input invalid, cut off, unfinished, or breaking its schema: :func:`unfit`); the reason is
one line on standard error, written after everything else, so that it starts a line of its
own where both outputs share a pipe.

Everything that came from the stream is cleaned before it is shown; errors go to standard
error.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
import time
from typing import Any

from .. import JSONDecodeError
from .._streams.envelope import loads_envelope
from ..bedrock import EventStreamMessage, event_of
from ..streams import detect
from .inputs import (
    MAX_WAIT,
    Accumulator,
    CommandError,
    Source,
    StreamError,
    ToolInput,
    Update,
    accumulator,
    body_kind,
    echoed_tools,
    events,
    protocols,
)
from .render import body_lines, pinned_lines, tail_lines
from .terminal import FPS, Terminal, clean, fit, json_text, plural, wrap

# Seconds between two events of a recording at --speed 1: a file's few hundred events take a
# few seconds, readable but not slow.
EVENT_DELAY = 0.012
_BEST = "best effort shown"


def _said(value: Any, limit: int = 200) -> str:
    """A value from the stream (a name, an id, a reason), shown in a line of ours: cleaned, and
    cut (before it is cleaned: a frame must not cost what a huge name holds)."""
    text = value if isinstance(value, str) else json_text(value)
    return clean(text[:limit]) + ("…" if len(text) > limit else "")


class ReplayView:
    """Turns updates into text and panels on a :class:`Terminal`."""

    def __init__(self, term: Terminal, *, hide_thinking: bool) -> None:
        self.term = term
        self.hide_thinking = hide_thinking
        self.panels: dict[int, ToolInput] = {}  # id(tool) -> tool, in the order they started
        self.closed: set[int] = set()
        self.thinking: bool | None = None  # what the last typed text was
        self.dirty = False  # whether the live panels changed since they were drawn
        self.seen: list[ToolInput] = []  # every tool shown, in the order they started

    def update(self, update: Update) -> None:
        if update.text:  # answer or reasoning (a custom tool's input comes apart)
            self._text(update.text, update.thinking)
        tool = update.tool
        if tool is not None and id(tool) not in self.closed:
            if id(tool) not in self.panels:
                self.panels[id(tool)] = tool
                self.seen.append(tool)
            self.dirty = True
        if any(_settled(tool) for tool in self.panels.values()):
            self._commit(ended=False)
        self.tick()

    def first_violation(self) -> str | None:
        """The first tool call that breaks its schema, and how: for the summary."""
        for tool in self.seen:
            found = tool.violations
            if found:
                name, where = _said(tool.name) or "tool", _said(found[0].pointer or "/")
                return f"✗ invalid: {name} {where}: {_said(found[0].msg)}"
        return None

    def tick(self, force: bool = False) -> None:
        """Draw what changed, when a frame is due (or ``force``)."""
        term = self.term
        if not (force or (term.tty and term.due())):
            return
        if (self.dirty or term.resized) and self.panels and term.tty:
            term.live(self._live_lines())
        else:
            term.flush()
        self.dirty = False

    def end(self) -> None:
        """The stream is over: commit every panel, those still streaming as unfinished."""
        self._commit(ended=True)
        self.term.clear()

    # -- text

    def _text(self, text: str, thinking: bool) -> None:
        if thinking and self.hide_thinking:
            return
        term = self.term
        if thinking != self.thinking:
            if thinking:
                term.line(term.style("thinking…", "dim", "bold"))
            elif self.thinking:
                term.line()
            self.thinking = thinking
        shown = clean(text, newlines=True)
        term.write(term.style(shown, "dim") if thinking else shown)

    # -- panels

    def _commit(self, ended: bool) -> None:
        """Write the panels that are done (all of them if ``ended``) whole, above the live
        region, and redraw the ones still streaming."""
        term = self.term
        for key, tool in list(self.panels.items()):
            if ended or _settled(tool):
                del self.panels[key]
                self.closed.add(key)
                term.line("\n".join(self._whole(tool, ended)))
        if self.panels and term.tty:
            term.live(self._live_lines())
            self.dirty = False
        else:
            term.clear()

    def _header(self, tool: ToolInput) -> str:
        term = self.term
        name = term.style(f"╭─ {_said(tool.name) or 'tool'}", "bold", "cyan")
        return name + term.style(f" {_said(tool.id)}" if tool.id else "", "dim")

    def _status(self, tool: ToolInput, ended: bool) -> tuple[str, str]:
        """What the footer of a panel says, and its colour."""
        size = plural(len(tool.raw), "char")
        status = tool.status
        found = tool.violations
        if found and tool.error is None:  # JSON that breaks the schema
            what = f"✗ invalid: {plural(len(found), 'schema violation')}"
            if tool.ended:
                return f"{what} ({size})", "red"
            if ended:
                return f"{what}; unfinished: the stream ended inside this input ({size})", "red"
            return f"… streaming, {size} · {what}", "red"
        if status == "complete":
            return f"✓ final: strictly parsed ({size})", "green"
        if status == "invalid" and tool.error is None:  # glued values, or refused otherwise
            reason = "not fit to run"
            try:
                tool.final()
            except ValueError as exc:
                reason = str(exc)
            return f"✗ invalid: {clean(reason)} ({size})", "red"
        if status == "invalid":
            err: JSONDecodeError = tool.error  # type: ignore[assignment]
            return (
                f"✗ invalid JSON: {clean(err.msg)} at line {err.lineno} column {err.colno}"
                f" (char {err.pos}); the snapshot is the text before it",
                "red",
            )
        if status == "incomplete":
            return f"⚠ incomplete: the input stopped before its end ({size}; {_BEST})", "yellow"
        if ended:
            return f"⚠ unfinished: the stream ended inside this input ({size}; {_BEST})", "yellow"
        return f"… streaming, {size}", "dim"

    def _whole(self, tool: ToolInput, ended: bool) -> list[str]:
        """A finished panel, whole: its arguments, and its status and marks wrapped on a
        terminal, its header cut as the live one is (so that none of them wraps)."""
        term = self.term
        columns = term.size.columns
        body = body_lines(tool.snapshot, columns - 2)
        status, colour = self._status(tool, ended)
        wrapped = self._wrap(status, columns - 4)
        footer = ["╰─ " + term.style(wrapped[0], colour)]
        footer += ["   " + term.style(line, colour) for line in wrapped[1:]]
        marks = []
        for mark in self._violations(tool):
            rows = self._wrap(mark, columns - 5)
            marks += [
                ("│ " if i == 0 else "│   ") + term.style(row, "red") for i, row in enumerate(rows)
            ]
        header = fit(self._header(tool), columns - 1) if term.tty else self._header(tool)
        return [header, *(f"│ {line}".rstrip() for line in body), *marks, *footer]

    def _wrap(self, text: str, columns: int) -> list[str]:
        """``text`` in rows of at most ``columns`` columns on a terminal (at spaces where it
        can, counting wide characters as two); one row in a pipe."""
        if not self.term.tty:
            return [text]
        columns = max(1, columns)
        rows = [row for line in textwrap.wrap(text, columns) for row in wrap(line, columns)]
        return rows or [""]

    def _violations(self, tool: ToolInput, most: int = 3) -> list[str]:
        """A line for each of the first violations of the schema: where, what, which char."""
        found = tool.violations
        lines = [
            f"✗ {_said(v.pointer or '/')}: {_said(v.msg)} (line {v.lineno} column {v.colno},"
            f" char {v.pos})"
            for v in found[:most]
        ]
        if len(found) > most:
            lines.append(f"✗ … and {plural(len(found) - most, 'more violation')}")
        return lines

    def _live_lines(self) -> list[str]:
        """The panels still streaming, each its last lines that fit the screen, under its
        scalar arguments when the whole does not fit."""
        columns, rows = self.term.size
        height = max(3, (rows - 2) // len(self.panels) - 2)
        lines: list[str] = []
        for tool in self.panels.values():
            marks = [self.term.style(mark, "red") for mark in self._violations(tool, 2)]
            room = max(2, height - len(marks))
            body, hidden = tail_lines(tool.snapshot, columns - 3, room)
            if hidden != 0:  # pinned: up to half the room, the tail keeping two lines at least
                pins, keys = pinned_lines(tool.snapshot, columns - 3, min(room // 2, room - 3))
                body, hidden = tail_lines(tool.snapshot, columns - 3, room - 1 - len(pins), keys)
                above = "more" if hidden is None else plural(hidden, "more line")
                body[:0] = (
                    [*pins, self.term.style(f"↑ {above} above", "dim")] if hidden != 0 else pins
                )
            status, colour = self._status(tool, False)
            lines += [self._header(tool), *("│ " + line for line in body + marks)]
            lines.append("╰─ " + self.term.style(status, colour))
        return lines


def _settled(tool: ToolInput) -> bool:
    """Whether a panel is done: its call ended, or its JSON broke (a violation of the schema
    leaves it live: the arguments go on)."""
    return tool.ended or tool.error is not None


# --------------------------------------------------------------------------- the summary


def unfit(tools: list[ToolInput]) -> str | None:
    """Why a whole stream still fails: some of its tool calls are not fit to run (their input
    invalid JSON, cut off, unfinished, or breaking its schema), the first one said as
    ``final()`` says it; ``None`` when every call is."""
    bad = [tool for tool in tools if tool.status != "complete"]
    if not bad:
        return None
    try:
        bad[0].final()
        why = "not fit to run"  # pragma: no cover - final() raises for every status but one
    except ValueError as exc:
        why = _said(str(exc), 300)
    count = f"{len(bad)} of {plural(len(tools), 'tool call')}"
    return f"{count} {'is' if len(bad) == 1 else 'are'} not fit to run: {why}"


def ending(result: dict[str, Any]) -> str | None:
    """How the stream says it ended: a stop reason, finish reasons or a status."""
    for key in ("stop_reason", "stopReason"):
        if key in result:
            reason = result[key]
            return "no stop reason" if reason is None else f"stop reason: {_said(reason)}"
    choices, key = result.get("choices"), "finish_reason"
    if not isinstance(choices, list):  # Gemini's
        choices, key = result.get("candidates"), "finishReason"
    if isinstance(choices, list) and choices:
        reasons = [c.get(key) if isinstance(c, dict) else None for c in choices]
        if all(reason is None for reason in reasons):
            return "no finish reason"
        shown = ", ".join("(none)" if r is None else _said(r) for r in reasons)
        return f"finish reason{'s' if len(reasons) > 1 else ''}: {shown}"
    if result.get("status") is not None:
        return f"status: {_said(result['status'])}"
    return None


def summary(result: Any, counts: str, invalid: str | None = None, finish: str | None = None) -> str:
    """The closing line: how the stream ended (from the result, or ``finish``: a finish reason
    the protocol keeps beside it), its usage, the first call that breaks its schema
    (``invalid``), and ``counts``."""
    parts: list[str] = []
    if isinstance(result, dict):
        said = ending(result)
        if said is None and finish is not None:
            said = f"finish reason: {_said(finish)}"
        if said:
            parts.append(said)
        usage = result.get("usage", result.get("usageMetadata"))
        if isinstance(usage, dict):
            numbers = [f"{_said(k)} {v:,}" for k, v in usage.items() if type(v) is int and v]
            if numbers:
                parts.append("usage: " + ", ".join(numbers))
    if invalid:
        parts.append(invalid)
    parts.append(counts)
    return " · ".join(parts)


# --------------------------------------------------------------------------- the replay


def _what_it_is(source: Source, events: int, objects: int, first: str | None) -> str:
    """Why a stream cannot be replayed: what the input is instead."""
    name = source.name
    if source.size == 0:
        return f"{name} is empty"
    if events == 0:  # (what the accumulators' read() says too, from the same first bytes)
        if body_kind(source.head, source.size) in ("object", "array"):
            return f"{name} is JSON, not an event stream: `jsonsnap parse` reads JSON"
        return f"{name} is not an event stream: it has no `data:` lines"
    there = f"{name} is an event stream of {plural(events, 'event')}"
    if objects == 0:
        return f"{there}, but none of them carries a JSON object"
    known = ", ".join(protocols())
    what = f" (the first is a {first!r})" if first else ""
    return f"{there} of no protocol jsonsnap knows ({known}){what}; --format reads it as one"


class Replay:
    """One replay: events in, the view and the accumulator driven, the outcome."""

    def __init__(self, args: argparse.Namespace, term: Terminal, source: Source) -> None:
        self.term = term
        self.source = source
        self.view = None if args.json else ReplayView(term, hide_thinking=args.hide_thinking)
        self.kind: str | None = args.format
        self.schemas = args.schema  # compiled by the option's type; None: none given
        self.repair: bool = args.repair
        self.compatible: bool = args.compatible
        self.accumulator: Accumulator | None = None
        #: Why the replay fails (a line for standard error, after the summary), if it does.
        self.failure: str | None = None
        self.pending: list[Any] = []  # read before the protocol was told
        self.events = self.objects = 0
        self.first: str | None = None  # the type of the first event of no known protocol
        paced = term.tty or args.speed is not None
        if args.no_delay or args.json or source.live or not paced:
            self.delay = 0.0
        else:
            self.delay = min(EVENT_DELAY / (args.speed or 1.0), MAX_WAIT)

    def run(self) -> int:
        """Play the stream; the exit status (:attr:`failure` says why it is 1)."""
        status = 0
        try:
            for event in events(self.source.chunks(65536, self.idle)):
                self.events += 1
                self._take(event)
                if self.delay:
                    if self.view is not None:
                        self.view.tick(force=self.delay >= 1 / FPS)
                    time.sleep(self.delay)
            if self.accumulator is not None:
                self._show(self.accumulator.close())
        except StreamError as exc:
            self.failure = f"stream error: {clean(str(exc))}"
            status = 1
        except CommandError as exc:  # the input could not be read to its end
            self.failure = str(exc)
            status = exc.status
        except KeyboardInterrupt:
            self._end()
            if self.view is not None:
                self.term.line(self.term.style("interrupted", "yellow"))
            return 130
        self._end()
        if self.accumulator is None and status == 0:
            raise CommandError(_what_it_is(self.source, self.events, self.objects, self.first))
        if status == 0:
            self.failure = unfit(self.accumulator.tool_calls()) if self.accumulator else None
            status = 0 if self.failure is None else 1
        return status

    def idle(self) -> None:
        """The input has nothing more for now: show everything that is pending."""
        if self.view is not None:
            self.view.tick(force=True)

    def _take(self, event: Any) -> None:
        if self.kind is None:
            self.kind = self._detect(event)
            self.pending.append(event)
            if self.kind is None:
                return
            events, self.pending = self.pending, []
            self.accumulator = self._new(events)
            for early in events:
                self._show(self.accumulator.feed(early))
            return
        if self.accumulator is None:
            self.accumulator = self._new([event])
        self._show(self.accumulator.feed(event))

    def _new(self, early: list[Any]) -> Accumulator:
        """The stream's accumulator, checked against ``--schema``, or else against the tools
        the stream repeats (its first events tell)."""
        kind: str = self.kind  # type: ignore[assignment]
        schemas = self.schemas if self.schemas is not None else echoed_tools(kind, early)
        return accumulator(kind, schemas, repair=self.repair, compatible=self.compatible)

    def _detect(self, event: Any) -> str | None:
        kind = detect(event)
        if kind is None and isinstance(event, EventStreamMessage):
            try:
                named = event_of(event)
            except StreamError:
                return None
            self.objects += 1
            if self.first is None:
                self.first = _said(next(iter(named)), 40)
        elif kind is None:  # what the event is, to say what the stream is if none tells
            try:  # as every envelope is read: no recursion error, however deep the data
                data = loads_envelope(event.data)
            except JSONDecodeError:
                return None
            if isinstance(data, dict):
                self.objects += 1
                if self.first is None and isinstance(data.get("type"), str):
                    self.first = _said(data["type"], 40)
        return kind

    def _show(self, updates: list[Update]) -> None:
        if self.view is not None:
            for update in updates:
                self.view.update(update)

    def _end(self) -> None:
        if self.view is not None:
            self.view.end()
        self.term.flush()

    @property
    def result(self) -> Any:
        return None if self.accumulator is None else self.accumulator.result


def replay(args: argparse.Namespace) -> int:
    """The ``replay`` command (and ``demo``: the example recording)."""
    if args.example == (args.file is not None):
        raise CommandError("replay needs a FILE (- for standard input) or --example", 2)
    source = Source.example() if args.example else Source.open(args.file)
    term = Terminal(sys.stdout, color=False if args.no_color else None)
    started = time.monotonic()
    try:
        run = Replay(args, term, source)
        status = run.run()
    finally:
        source.close()
    if args.json:
        term.write(json_text(run.result, 2) + "\n")
    else:
        took = time.monotonic() - started
        counts = f"{plural(run.events, 'event')}, {plural(source.size, 'byte')}, {took:.2f} s"
        invalid = None if run.view is None else run.view.first_violation()
        finish = getattr(run.accumulator, "finish_reason", None)  # a UI message stream's
        finish = finish if isinstance(finish, str) else None
        line = summary(run.result, counts, invalid, finish)
        term.line(term.style(line, "red" if invalid else "dim"))
    term.flush()
    if run.failure is not None:  # after the output, which always ends its last line
        print(f"jsonsnap: {run.failure}", file=sys.stderr, flush=True)
    return status

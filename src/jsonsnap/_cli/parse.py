"""``jsonsnap parse``: JSON text watched as it grows into a value.

The text (a file or standard input) is fed to a :class:`jsonsnap.Parser` in the pieces it
arrives in. On a terminal the snapshot is shown in the live region as indented JSON, the tail
that fits the screen, redrawn at most at the frame rate; then the strict value is printed
whole. If the text is invalid or stops too soon, the best-effort value (what was read before
the error) is printed all the same, then the error on standard error with its line, column and
a caret under the offending character. With ``--repair`` the text is read tolerantly, and the
repairs made are listed on standard error, each with its line and column.
"""

from __future__ import annotations

import argparse
import sys
import time

from .. import JSONDecodeError, Parser
from .._jsontext import NOTHING
from .inputs import MAX_WAIT, Source
from .render import pretty_tail
from .terminal import FPS, Terminal, clean, json_text, plural, width_of

#: The most bytes read at once, whatever ``--chunk`` says.
MAX_CHUNK = 1 << 20
#: The most repairs listed one by one (the rest are counted).
MAX_LISTED = 20


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


class ParseView:
    """The snapshot in the live region of a terminal, a frame at a time."""

    def __init__(self, term: Terminal, parser: Parser, *, live: bool) -> None:
        self.term = term
        self.parser = parser
        self.live = live and term.tty
        self.dirty = False
        self.size = 0  # bytes read

    def tick(self, force: bool = False) -> None:
        """Draw the snapshot if it changed (or the terminal was resized), when a frame is due
        (or ``force``)."""
        changed = self.dirty or self.term.resized
        if not (self.live and changed and (force or self.term.due())):
            return
        value = self.parser.snapshot(NOTHING)
        if value is NOTHING:
            return
        columns, rows = self.term.size
        lines, _ = pretty_tail(value, max(1, rows - 2), columns - 1)
        repairs = len(self.parser.repairs)
        made = f", {plural(repairs, 'repair')}" if repairs else ""
        footer = self.term.style(f"… {plural(self.size, 'byte')} read{made}", "dim")
        self.term.live([*lines, footer])
        self.dirty = False

    def idle(self) -> None:
        self.tick(force=True)


def _read(args: argparse.Namespace, source: Source, view: ParseView, text: bytearray) -> object:
    """Feed the input to the parser; its strict value (or ``JSONDecodeError``)."""
    parser = view.parser
    for chunk in source.chunks(min(args.chunk, MAX_CHUNK), view.idle):
        text += chunk
        view.size += len(chunk)
        if parser.feed(chunk):
            view.dirty = True
        view.tick()
        if args.delay:
            view.tick(force=args.delay >= 1 / FPS)
            time.sleep(min(args.delay, MAX_WAIT))
    return parser.close()


def _report(err: JSONDecodeError, source: Source, text: bytearray, columns: int) -> None:
    """The error on standard error, with the line it is on and a caret."""
    text += source.file.read(4096) if not source.live else b""  # the rest of the line
    where = f"line {err.lineno} column {err.colno} (char {err.pos})"
    if err.incomplete:
        message = f"incomplete JSON: {err.msg}; the input ends at {where}"
    else:
        message = f"invalid JSON: {err.msg} at {where}"
    lines = [f"jsonsnap: {message}"]
    lines += caret(text.decode("utf-8", "replace"), err, max(20, columns - 10))
    print("\n".join(lines), file=sys.stderr, flush=True)


def _list_repairs(parser: Parser) -> None:
    """The repairs made, on standard error (our own words and numbers only)."""
    repairs = parser.repairs
    if not repairs:
        return
    lines = [f"jsonsnap: {plural(len(repairs), 'repair')}:"]
    lines += [f"  {repair} [{repair.kind}]" for repair in repairs[:MAX_LISTED]]
    if len(repairs) > MAX_LISTED:
        lines.append(f"  … and {len(repairs) - MAX_LISTED} more")
    print("\n".join(lines), file=sys.stderr, flush=True)


def parse(args: argparse.Namespace) -> int:
    """The ``parse`` command."""
    source = Source.open(args.file or "-")
    term = Terminal(sys.stdout, color=False if args.no_color else None)
    parser = Parser(repair=args.repair)
    view = ParseView(term, parser, live=not args.json)
    text = bytearray()
    indent = None if args.json else 2
    try:
        value = _read(args, source, view, text)
    except (JSONDecodeError, KeyboardInterrupt) as exc:
        term.clear()
        snapshot = parser.snapshot(NOTHING)
        if snapshot is not NOTHING:  # what was read: incomplete input is what this is for
            term.write(json_text(snapshot, indent) + "\n")
        term.flush()
        if isinstance(exc, KeyboardInterrupt):
            term.line(term.style("interrupted", "yellow"))
            term.flush()
            return 130
        _list_repairs(parser)
        _report(exc, source, text, term.size.columns)
        return 1
    finally:
        source.close()
    term.clear()
    term.write(json_text(value, indent) + "\n")
    term.flush()
    _list_repairs(parser)
    return 0

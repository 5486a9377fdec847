"""A terminal for the command line: committed text above, a live region redrawn below.

Output has two parts. Committed text (what a stream typed, finished panels) is written once
and scrolls away like any output. The live region (the panels of the tool calls still
streaming, the value being parsed) sits under it and is redrawn in place. Once drawn, the
cursor waits at the start of its first line, so erasing it is a clear to the end of the screen
from there, whatever happened to its lines meanwhile: a terminal resized narrower cuts them or
rewraps them onto more rows (most do), and either way they still start where the cursor is.
Its lines are cut to the terminal's width (counting East Asian wide characters as two
columns) and drawn with automatic wrapping off, so none wraps even if the terminal shrank
while it was being drawn; it never grows taller than the screen, so drawing it scrolls at most
what is above it, never itself. A resize is noticed at the next frame
(:attr:`Terminal.resized`), which then draws the region anew for the new size.

A terminal costs about what a pipe costs: the live region is redrawn at most ``FPS`` times a
second (:meth:`Terminal.due` says when a frame is due, by a monotonic clock; the caller draws
the last state at the end), and while it is on the screen, committed text waits for the next
frame instead of erasing and redrawing it at every piece.

Without a terminal (a pipe, a log file) there is no live region and no escape sequence at all:
callers print plain lines at the moments that matter. Colour follows the ``NO_COLOR``
convention.

Nothing from a stream reaches the terminal without :func:`clean` (or :func:`json_text` for JSON
output), so a stream cannot move the cursor, change colours, set the window title, write the
clipboard or reorder what is shown.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import time
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any, TextIO

_CSI = "\x1b["
_STYLE = re.compile(r"(\x1b\[[0-9;]*m)")  # what Terminal.style adds, kept by split()
# Automatic wrapping off while the live region is drawn, and on again: a line drawn for a
# wider screen than the one it lands on (the terminal was resized meanwhile) is cut at the
# margin instead of taking two rows, so going back up by the count of lines is always exact.
_NO_WRAP, _WRAP = f"{_CSI}?7l", f"{_CSI}?7h"
_STYLES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}
#: Redraws of the live region per second, at most.
FPS = 30

# What a stream must not send to a terminal as it is:
# - the C0 controls (but tab and newline, handled apart) and DEL: ESC starts every escape
#   sequence, BEL, BS and CR move or beep;
# - the C1 controls U+0080-U+009F, which terminals may read as escapes (U+009B is CSI,
#   U+009D OSC);
# - the bidirectional formatting characters, which reorder what is shown around them (the
#   embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069, and the marks U+200E,
#   U+200F and U+061C);
# - lone surrogates, which cannot be encoded at all.
_BIDI_AND_C1 = "\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE = re.compile(f"[\x00-\x08\x0a-\x1f{_BIDI_AND_C1}]")
# In JSON text, json.dumps has escaped the C0 controls already, and the newlines are the
# layout's: what is left to escape is the rest.
_UNSAFE_IN_JSON = re.compile(f"[{_BIDI_AND_C1}]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match[0])
    if code < 0x20:
        return chr(0x2400 + code)  # the control pictures: ␛ for ESC, ␤ for a newline...
    return "\u2421" if code == 0x7F else "\ufffd"


def clean(text: str, *, newlines: bool = False) -> str:
    """``text`` as it may be shown: tabs as spaces, control characters as their symbols (␛,
    ␇...), C1 controls, bidirectional controls and lone surrogates as ``\ufffd``. Newlines are
    kept with ``newlines=True``, and shown as ␤ otherwise (a name or a reason is one line)."""
    if "\t" in text:
        text = text.expandtabs(4)
    if not newlines:
        return _UNSAFE.sub(_visible, text)
    return "\n".join(_UNSAFE.sub(_visible, line) for line in text.split("\n"))


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match[0]):04x}"


def json_text(value: Any, indent: int | None = None) -> str:
    """``value`` as JSON (``ensure_ascii=False``), with every character :func:`clean` would
    change inside a string escaped as ``\\uXXXX``: still valid JSON, for the same value."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return _UNSAFE_IN_JSON.sub(_escape, text)


def width_of(text: str) -> int:
    """Columns ``text`` takes: two for wide and full-width characters, none for combining."""
    if text.isascii():
        return len(text)
    columns = 0
    for char in text:
        if char.isascii():
            columns += 1
        elif unicodedata.combining(char):
            continue
        else:
            columns += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return columns


def fit(text: str, columns: int) -> str:
    """``text`` cut to at most ``columns`` columns, with ``…`` when something was cut. The
    styles of :meth:`Terminal.style` in it take no column and are never cut through; a line cut
    inside one ends with a reset."""
    if len(text) <= columns and text.isascii():
        return text
    styled = _CSI in text
    if width_of(_STYLE.sub("", text) if styled else text) <= columns:
        return text
    out: list[str] = []
    used = 0
    for i, part in enumerate(_STYLE.split(text) if styled else [text]):
        if i % 2:  # a style
            out.append(part)
            continue
        for char in part:
            w = width_of(char)
            if used + w > columns - 1:
                return "".join(out) + "…" + (f"{_CSI}0m" if styled else "")
            out.append(char)
            used += w
    return "".join(out)  # pragma: no cover - the width said it would not fit


def fit_tail(text: str, columns: int) -> str:
    """The end of ``text`` in at most ``columns`` columns, after ``…`` when something was cut."""
    if width_of(text) <= columns:
        return text
    return "…" + fit(text[::-1], columns)[-2::-1]


def wrap(text: str, columns: int) -> list[str]:
    """``text`` (one line) cut into rows of at most ``columns`` columns."""
    columns = max(1, columns)
    if text.isascii():
        return [text[i : i + columns] for i in range(0, len(text), columns)] or [""]
    rows: list[str] = []
    row: list[str] = []
    used = 0
    for char in text:
        w = width_of(char)
        if used + w > columns and row:
            rows.append("".join(row))
            row, used = [], 0
        row.append(char)
        used += w
    rows.append("".join(row))
    return rows


def plural(count: int, noun: str) -> str:
    """``"1 event"``, ``"2 events"``, ``"1,024 bytes"``."""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


class Terminal:
    """Committed text and one live region on ``out``; plain output when it is not a tty.

    ``size`` (columns, lines: read at each use, so a list changed in place stands in for a
    resize) and ``clock`` stand in for the terminal's and the monotonic clock, for tests."""

    def __init__(
        self,
        out: TextIO,
        *,
        color: bool | None = None,
        tty: bool | None = None,
        size: Sequence[int] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.out = out
        if tty is None:
            isatty = getattr(out, "isatty", None)
            tty = bool(isatty and isatty())
        #: Whether ``out`` is a terminal: the live region and cursor movement need one.
        self.tty = tty
        if color is None:
            color = self.tty and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
        self.color = color
        self._size = size
        self._clock = clock
        self._drawn = -math.inf  # when the live region was last drawn
        self._live: list[str] = []
        self._live_size: tuple[int, ...] | None = None  # the size it was drawn for
        self._queued: list[str] = []  # committed text waiting for the next frame
        self._at_line_start = True
        #: How many times the live region was drawn.
        self.frames = 0

    @property
    def size(self) -> os.terminal_size:
        """Columns and lines of the terminal (80x24 when it cannot tell)."""
        if self._size is not None:
            return os.terminal_size(self._size)
        try:
            size = os.get_terminal_size(self.out.fileno())
        except (AttributeError, OSError, ValueError):
            return shutil.get_terminal_size((80, 24))
        # A pty nobody gave a size says 0x0: draw for the usual size rather than for none.
        return size if size.columns and size.lines else os.terminal_size((80, 24))

    @property
    def resized(self) -> bool:
        """Whether the live region on the screen was drawn for another size than the
        terminal's now (the next frame should draw it anew)."""
        return bool(self._live) and self._live_size != tuple(self.size)

    def style(self, text: str, *names: str) -> str:
        """``text`` in the named styles (``"bold"``, ``"dim"``, colours), when colour is on."""
        if not self.color or not names or not text:
            return text
        codes = ";".join(_STYLES[name] for name in names)
        return f"{_CSI}{codes}m{text}{_CSI}0m"

    def due(self) -> bool:
        """Whether a frame is due: the live region was last drawn at least 1/FPS s ago."""
        return self._clock() - self._drawn >= 1 / FPS

    def write(self, text: str) -> None:
        """Commit ``text`` (already cleaned and styled) above the live region: at once when
        there is none, else at the next frame (or :meth:`flush`)."""
        if not text:
            return
        if self._live:
            self._queued.append(text)
        else:
            self.out.write(text)
        self._at_line_start = text.endswith("\n")

    def line(self, text: str = "") -> None:
        """Commit ``text`` as a line of its own."""
        self.write(("" if self._at_line_start else "\n") + text + "\n")

    def live(self, lines: list[str]) -> None:
        """Show ``lines`` (already cleaned and styled) as the live region, in place of the last
        ones, with the text committed meanwhile above them; cut to the screen. Nothing happens
        without a terminal."""
        if self.tty:
            self._redraw(lines)

    def flush(self) -> None:
        """Write what waits (text committed under a live region), and flush: a frame."""
        if self._queued:  # the same lines again: still laid out for the size they were
            self._redraw(self._live, again=True)
        self.out.flush()
        self._drawn = self._clock()

    def clear(self) -> None:
        """Erase the live region (and write the text waiting above it)."""
        if self._live:
            self._redraw([])
        self.flush()

    def _redraw(self, lines: list[str], again: bool = False) -> None:
        """Erase the live region, write the text waiting, and draw ``lines``, cut to the
        screen as it is now (none may wrap: the cursor goes back up by their count); ``again``
        when they are the lines on the screen, laid out for the size they were. The frame is
        one write, so a resize lands before it or after it, never inside it."""
        size = tuple(self.size)
        columns, rows = size
        lines = [fit(line, columns - 1) for line in lines[-max(1, rows - 1) :]]
        frame = [f"\r{_CSI}J"] if self._live else []  # the cursor waits at its first line
        frame += self._queued
        self._queued.clear()
        if lines:
            text = "\n".join(lines)
            if self.color:  # a style never runs past its line
                text = text.replace("\n", f"{_CSI}0m\n")
            if not self._at_line_start:  # the live region starts a line of its own
                text = "\n" + text
                self._at_line_start = True
            up = len(lines) - 1  # back to its first line, to wait there
            frame.append(
                f"{_NO_WRAP}{text}\r{_CSI}{up}A{_WRAP}" if up else f"{_NO_WRAP}{text}\r{_WRAP}"
            )
        self.out.write("".join(frame))
        self._live = lines
        if not again:
            self._live_size = size if lines else None
        self._drawn = self._clock()
        self.frames += 1
        self.out.flush()

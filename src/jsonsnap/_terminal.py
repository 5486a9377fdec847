"""A terminal for the command line: committed text above, a live region redrawn below.

Output has two parts. Committed text (what a stream typed, finished panels) is written once
and scrolls away like any output. The live region (the panels of the tool calls still
streaming) sits under it and is redrawn in place: erased by moving the cursor back to its
first line and clearing to the end of the screen, then drawn again. Its lines are cut to the
terminal's width (counting East Asian wide characters as two columns), so none wraps and the
cursor arithmetic stays exact; it never grows taller than the screen, so the part that scrolled
out of sight never needs erasing.

Without a terminal (a pipe, a log file) there is no live region and no escape sequence at all:
callers print plain lines at the moments that matter. Colour follows the ``NO_COLOR``
convention. Text from the stream is shown with its control characters made visible, so a
stream cannot move the cursor or change colours.
"""

from __future__ import annotations

import os
import re
import shutil
import unicodedata
from typing import TextIO

_CSI = "\x1b["
# Control characters a stream must not send to the terminal (tab and newline are handled).
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_STYLES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}


def _visible(match: re.Match[str]) -> str:
    code = ord(match[0])
    return chr(0x2400 + code) if code < 0x20 else "\ufffd"  # the control pictures, U+2400..


def clean(text: str) -> str:
    """``text`` with control characters (but newlines) shown as symbols, tabs as spaces."""
    return _CONTROL_RE.sub(_visible, text.expandtabs(4))


def width_of(text: str) -> int:
    """Columns ``text`` takes: two for wide and full-width characters, none for combining."""
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
    """``text`` cut to at most ``columns`` columns, with ``…`` when something was cut."""
    if len(text) <= columns and text.isascii():
        return text
    if width_of(text) <= columns:
        return text
    out: list[str] = []
    used = 0
    for char in text:
        w = width_of(char)
        if used + w > columns - 1:
            break
        out.append(char)
        used += w
    return "".join(out) + "…"


class Terminal:
    """Committed text and one live region on ``out``; plain output when it is not a tty."""

    def __init__(self, out: TextIO, *, color: bool | None = None) -> None:
        self.out = out
        isatty = getattr(out, "isatty", None)
        #: Whether ``out`` is a terminal: the live region and cursor movement need one.
        self.tty = bool(isatty and isatty())
        if color is None:
            color = self.tty and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
        self.color = color
        self._live: list[str] = []
        self._at_line_start = True

    @property
    def size(self) -> os.terminal_size:
        """Columns and lines of the terminal (80x24 when it cannot tell)."""
        try:
            return os.get_terminal_size(self.out.fileno())
        except (AttributeError, OSError, ValueError):
            return shutil.get_terminal_size((80, 24))

    def style(self, text: str, *names: str) -> str:
        """``text`` in the named styles (``"bold"``, ``"dim"``, colours), when colour is on."""
        if not self.color or not names or not text:
            return text
        codes = ";".join(_STYLES[name] for name in names)
        return f"{_CSI}{codes}m{text}{_CSI}0m"

    def write(self, text: str) -> None:
        """Commit ``text`` (already cleaned and styled) above the live region."""
        if not text:
            return
        live = self._live
        if live:
            self._erase()
        self.out.write(text)
        self._at_line_start = text.endswith("\n")
        if live:
            self._draw(live)
        self.out.flush()

    def line(self, text: str = "") -> None:
        """Commit ``text`` as a line of its own."""
        self.write(("" if self._at_line_start else "\n") + text + "\n")

    def live(self, lines: list[str]) -> None:
        """Show ``lines`` (already cleaned and styled) as the live region, in place of the last
        ones; cut to the screen. Nothing happens without a terminal."""
        if not self.tty:
            return
        columns, rows = self.size
        lines = [fit(line, columns - 1) for line in lines[-max(1, rows - 1) :]]
        if self._live:
            self._erase()
        elif not self._at_line_start:
            self.out.write("\n")
            self._at_line_start = True
        self._draw(lines)
        self._live = lines
        self.out.flush()

    def commit(self) -> None:
        """Leave the live region on the screen as committed text; the next one starts below."""
        if self._live:
            self.out.write("\n")
            self._live = []
            self._at_line_start = True
            self.out.flush()

    def clear(self) -> None:
        """Erase the live region."""
        if self._live:
            self._erase()
            self._live = []
            self.out.flush()

    def _draw(self, lines: list[str]) -> None:
        if not self._at_line_start:
            self.out.write("\n")
        text = "\n".join(lines)
        if self.color:  # a style never runs past its line
            text = text.replace("\n", f"{_CSI}0m\n")
        self.out.write(text)

    def _erase(self) -> None:
        up = len(self._live) - 1
        self.out.write("\r" + (f"{_CSI}{up}A" if up else "") + f"{_CSI}J")
        self._at_line_start = True

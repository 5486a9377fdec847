"""Run the command line in a real pseudo-terminal and read its screen, frame by frame.

The program runs with its standard output (and error) on the slave side of a pty of a given
size, so it sees a terminal exactly as it would under a user's shell. What it wrote is played
into ``pyte``, a terminal emulator, to get the screen as a list of lines: at the end, or at
every frame, a frame being the screen just before the live region is erased for a redraw; or
on a screen as tall as needed, to read everything it wrote, scrolled away or not.

Also: Anthropic recordings made up for a test (:func:`recording`), what in a program's output
could drive a terminal besides the command line's own sequences (:func:`stray_controls`), and
the command line run with standard input or output closed (:func:`run_closed`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pyte

ERASE = b"\x1b[J"
#: Run before the program: SIGINT back to its default disposition and unblocked, then exec the
#: rest of the command line. A child inherits an ignored or blocked SIGINT (``nohup``, ``trap ''
#: INT``, a CI runner that ignores it), and Python turns SIGINT into KeyboardInterrupt only if it
#: starts with the default disposition; so the program starts as under a user's shell, whatever
#: the test runner was given.
_DEFAULT_SIGINT = (
    "import os, signal, sys; "
    "signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


def resize_screen(screen: pyte.Screen, columns: int, rows: int, rewrap: bool) -> None:
    """Resize ``screen`` as a terminal does. Narrower, it either cuts its lines (xterm) or, with
    ``rewrap`` (most others: VTE, iTerm2, kitty, Windows Terminal...), wraps each onto as many
    rows as it now takes, the cursor staying on its character. Shorter, its top rows scroll
    away and the cursor moves up with its line (pyte alone would leave it on its row)."""
    if rewrap and columns < screen.columns:
        _rewrap(screen, columns)
    gone = max(0, screen.lines - rows)
    screen.resize(rows, columns)
    screen.cursor.y = max(0, screen.cursor.y - gone)


def _rewrap(screen: pyte.Screen, columns: int) -> None:
    """Wrap the rows of ``screen`` at ``columns`` (each row taken as a line of its own), the
    rows that no longer fit scrolled away at the top."""
    blank = screen.default_char
    y, x = screen.cursor.y, min(screen.cursor.x, screen.columns - 1)
    rows: list[list[Any]] = []
    cursor = (0, 0)
    for row in range(screen.lines):
        cells = [screen.buffer[row][col] for col in range(screen.columns)]
        while cells and cells[-1] == blank and not (row == y and len(cells) <= x):
            cells.pop()
        if row == y:
            cursor = (len(rows) + x // columns, x % columns)
        rows += [cells[i : i + columns] for i in range(0, len(cells), columns)] or [[]]
    while len(rows) > cursor[0] + 1 and not rows[-1]:  # blank rows under the cursor
        rows.pop()
    gone = max(0, len(rows) - screen.lines)
    screen.buffer.clear()
    for row, cells in enumerate(rows[gone:]):
        for col, cell in enumerate(cells):
            screen.buffer[row][col] = cell
    screen.cursor.y, screen.cursor.x = max(0, cursor[0] - gone), cursor[1]


@dataclass
class Run:
    output: bytes
    returncode: int
    columns: int
    rows: int
    #: The program's process group (its own: signals sent to it reach nothing else).
    group: int = 0
    #: Each resize of the terminal: how much of the output had been read then, and the new
    #: columns and rows.
    resizes: tuple[tuple[int, int, int], ...] = ()
    #: Whether a resize to fewer columns rewraps the lines on the screen (most terminals), or
    #: cuts them (xterm).
    rewrap: bool = True

    def _play(
        self, screen: pyte.Screen, cuts: Sequence[int] = (), tall: bool = False
    ) -> list[list[str]]:
        """Play the output into ``screen``, resized where the terminal was (only its width,
        if ``tall``), as :attr:`rewrap` says; the screen at each offset of ``cuts`` and at the
        end."""
        stream = pyte.ByteStream(screen)
        events = sorted(
            [(at, 1, (c, r)) for at, c, r in self.resizes] + [(at, 0, None) for at in cuts]
        )
        shots, done = [], 0
        for at, _, size in events:
            stream.feed(self.output[done:at])
            done = at
            if size is None:
                shots.append([line.rstrip() for line in screen.display])
            else:
                resize_screen(screen, size[0], screen.lines if tall else size[1], self.rewrap)
        stream.feed(self.output[done:])
        shots.append([line.rstrip() for line in screen.display])
        return shots

    def screen(self) -> list[str]:
        """The screen at the end."""
        return self._play(pyte.Screen(self.columns, self.rows))[-1]

    def transcript(self, rows: int = 2000) -> list[str]:
        """Everything on the screen and above it: the output played on a screen of ``rows``
        (the live region moves the cursor up only within itself, so a taller screen shows the
        same, with what scrolled away still there)."""
        lines = self._play(pyte.Screen(self.columns, rows), tall=True)[-1]
        while lines and not lines[-1]:
            lines.pop()
        return lines

    def frames(self) -> list[list[str]]:
        """The screen at each redraw of the live region (just before it is erased), then at
        the end."""
        cuts = [m.start() for m in re.finditer(re.escape(ERASE), self.output)]
        return self._play(pyte.Screen(self.columns, self.rows), cuts)


def run_in_pty(
    args: list[str],
    *,
    columns: int = 100,
    rows: int = 30,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    interrupt_when: Callable[[bytes], bool] | None = None,
    resize: Sequence[tuple[Callable[[bytes], bool], int, int]] = (),
    timeout: float = 60.0,
) -> Run:
    """Run ``python -m jsonsnap *args`` with its output on a pty of ``columns`` x ``rows``.
    ``stdin``: bytes for a pipe on standard input. ``interrupt_when``: send SIGINT once the
    output so far satisfies it. ``resize``: (when, columns, rows), in order: give the pty that
    size, and send SIGWINCH, once the output so far satisfies ``when``.

    The program runs in a session of its own, so that the signals go to its process group
    and nowhere else (never to the test runner)."""
    master, slave = pty.openpty()
    _set_size(slave, columns, rows)
    environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    environment.update({"TERM": "xterm-256color", "PYTHONUNBUFFERED": "1"}, **(env or {}))
    process = subprocess.Popen(
        [sys.executable, "-c", _DEFAULT_SIGINT, "-m", "jsonsnap", *args],
        stdin=subprocess.PIPE if stdin is not None else slave,
        stdout=slave,
        stderr=slave,
        env=environment,
        close_fds=True,
        start_new_session=True,
    )
    group = os.getpgid(process.pid)
    os.close(slave)
    if stdin is not None:
        assert process.stdin is not None
        process.stdin.write(stdin)
        process.stdin.close()
    output = bytearray()
    deadline = time.monotonic() + timeout
    interrupted = False
    resizes: list[tuple[int, int, int]] = []
    pending = list(resize)
    while time.monotonic() < deadline:
        data = _read(master, 0.5)
        if data is None:
            break
        if not data:
            continue
        output += data
        if interrupt_when is not None and not interrupted and interrupt_when(bytes(output)):
            _signal(group, signal.SIGINT)
            interrupted = True
        if pending and pending[0][0](bytes(output)):
            # As a terminal sees it: the program stopped, what it wrote until then on the
            # screen, then the new size, which its later output lands on.
            _, new_columns, new_rows = pending.pop(0)
            _signal(group, signal.SIGSTOP)
            output += _drain(master)
            _set_size(master, new_columns, new_rows)
            resizes.append((len(output), new_columns, new_rows))
            _signal(group, signal.SIGCONT)
            _signal(group, signal.SIGWINCH)
    os.close(master)
    if process.poll() is None and time.monotonic() >= deadline:
        _signal(group, signal.SIGKILL)
    returncode = process.wait(timeout=10)
    return Run(bytes(output), returncode, columns, rows, group, tuple(resizes))


def _read(master: int, wait: float) -> bytes | None:
    """What ``master`` gives within ``wait`` seconds (``b""``: nothing yet), or ``None`` once
    the program has exited and the pty is closed."""
    if not select.select([master], [], [], wait)[0]:
        return b""
    try:
        return os.read(master, 65536) or None
    except OSError:  # EIO: the program has exited and the pty is closed
        return None


def _drain(master: int) -> bytes:
    """What waits to be read on ``master`` (the program is stopped: nothing more comes)."""
    data = bytearray()
    while piece := _read(master, 0.05):
        data += piece
    return bytes(data)


def _set_size(fd: int, columns: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))


def _signal(group: int, number: int) -> None:
    """Send a signal to the program's process group (gone already: nothing to do)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, number)


# --------------------------------------------------------------------------- recordings


def sse(kind: str, data: dict[str, Any] | str) -> bytes:
    """One server-sent event: ``event: kind`` and ``data`` (JSON, unless already text)."""
    text = data if isinstance(data, str) else json.dumps(data)
    return f"event: {kind}\ndata: {text}\n\n".encode("utf-8", "surrogatepass")


def _event(kind: str, **fields: Any) -> bytes:
    return sse(kind, {"type": kind, **fields})


def recording(
    tool_input: str,
    *,
    text: str = "Here it is.",
    name: str = "write_file",
    tool_id: str = "toolu_1",
    stop_reason: str = "tool_use",
    piece: int = 24,
    extra: Sequence[bytes] = (),
) -> bytes:
    """An Anthropic Messages stream: a text block, then a tool call whose input (JSON text) is
    streamed in pieces of ``piece`` characters; ``extra`` events before the message's end."""
    message: dict[str, Any] = {"id": "msg_1", "type": "message", "role": "assistant"}
    message |= {"model": "m", "content": [], "stop_reason": None, "stop_sequence": None}
    tool = {"type": "tool_use", "id": tool_id, "name": name, "input": {}}
    out = [
        _event("message_start", message={**message, "usage": {"input_tokens": 12}}),
        _event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
        _event("content_block_delta", index=0, delta={"type": "text_delta", "text": text}),
        _event("content_block_stop", index=0),
        _event("content_block_start", index=1, content_block=tool),
    ]
    for start in range(0, len(tool_input), piece):
        delta = {"type": "input_json_delta", "partial_json": tool_input[start : start + piece]}
        out.append(_event("content_block_delta", index=1, delta=delta))
    out += [
        _event("content_block_stop", index=1),
        _event("message_delta", delta={"stop_reason": stop_reason}, usage={"output_tokens": 99}),
        *extra,
        _event("message_stop"),
    ]
    return b"".join(out)


# --------------------------------------------------------------------------- what gets out

#: The sequences the command line writes itself: colours, cursor up, erase down, automatic
#: wrapping off and on.
OWN_SEQUENCES = re.compile(rb"\x1b\[[0-9;]*[mAJ]|\x1b\[\?7[lh]")
#: What must never reach a terminal from a stream (UTF-8): ESC and the other C0 controls but
#: TAB, LF and CR; DEL; the C1 controls; the bidirectional controls; lone surrogates.
STRAY = re.compile(
    rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xaa-\xae]"
    rb"|\xe2\x81[\xa6-\xa9]|\xed[\xa0-\xbf]"
)


def stray_controls(output: bytes) -> list[bytes]:
    """What in ``output`` could drive a terminal, besides the command line's own sequences."""
    return STRAY.findall(OWN_SEQUENCES.sub(b"", output))


def run_closed(
    args: list[str], closed: Sequence[int], stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run ``python -m jsonsnap *args`` with the file descriptors ``closed`` closed (0 for
    standard input, 1 for output); the others are pipes."""
    closing = "; ".join(f"os.close({fd})" for fd in closed)
    start = f"import os, sys; {closing}; os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
    return subprocess.run(
        [sys.executable, "-c", start, "-m", "jsonsnap", *args],
        input=stdin,
        capture_output=True,
        check=False,
        timeout=60,
    )


class Screen:
    """Standard output in memory: what was written, in pieces, and the text; with ``tty``, it
    says it is a terminal (of the default size)."""

    def __init__(self, *, tty: bool = False) -> None:
        self.parts: list[str] = []
        self.tty = tty

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return self.tty

    @property
    def text(self) -> str:
        return "".join(self.parts)

"""Run the command line in a real pseudo-terminal and read its screen, frame by frame.

The program runs with its standard output (and error) on the slave side of a pty of a given
size, so it sees a terminal exactly as it would under a user's shell. What it wrote is played
into ``pyte``, a terminal emulator, to get the screen as a list of lines: at the end, or at
every frame, a frame being the screen just before the live region is erased for a redraw.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass

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


@dataclass
class Run:
    output: bytes
    returncode: int
    columns: int
    rows: int

    def screen(self, data: bytes | None = None) -> list[str]:
        """The screen after ``data`` (default: everything the program wrote)."""
        screen = pyte.Screen(self.columns, self.rows)
        stream = pyte.ByteStream(screen)
        stream.feed(self.output if data is None else data)
        return [line.rstrip() for line in screen.display]

    def frames(self) -> list[list[str]]:
        """The screen at each redraw of the live region (just before it is erased), then at
        the end."""
        parts = self.output.split(ERASE)
        screen = pyte.Screen(self.columns, self.rows)
        stream = pyte.ByteStream(screen)
        shots = []
        for i, part in enumerate(parts):
            stream.feed((ERASE if i else b"") + part)
            shots.append([line.rstrip() for line in screen.display])
        return shots


def run_in_pty(
    args: list[str],
    *,
    columns: int = 100,
    rows: int = 30,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    interrupt_when: Callable[[bytes], bool] | None = None,
    timeout: float = 60.0,
) -> Run:
    """Run ``python -m jsonsnap *args`` with its output on a pty of ``columns`` x ``rows``.
    ``stdin``: bytes for a pipe on standard input. ``interrupt_when``: send SIGINT once the
    output so far satisfies it."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    environment.update({"TERM": "xterm-256color", "PYTHONUNBUFFERED": "1"}, **(env or {}))
    process = subprocess.Popen(
        [sys.executable, "-c", _DEFAULT_SIGINT, "-m", "jsonsnap", *args],
        stdin=subprocess.PIPE if stdin is not None else slave,
        stdout=slave,
        stderr=slave,
        env=environment,
        close_fds=True,
    )
    os.close(slave)
    if stdin is not None:
        assert process.stdin is not None
        process.stdin.write(stdin)
        process.stdin.close()
    output = bytearray()
    deadline = time.monotonic() + timeout
    interrupted = False
    while time.monotonic() < deadline:
        if not select.select([master], [], [], 0.5)[0]:
            continue
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the program has exited and the pty is closed
            break
        if not data:
            break
        output += data
        if interrupt_when is not None and not interrupted and interrupt_when(bytes(output)):
            process.send_signal(signal.SIGINT)
            interrupted = True
    os.close(master)
    if process.poll() is None and time.monotonic() >= deadline:
        process.kill()
    returncode = process.wait(timeout=10)
    return Run(bytes(output), returncode, columns, rows)

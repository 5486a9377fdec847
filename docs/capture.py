"""Make docs/replay.svg: the replay command's real output, captured in a pseudo-terminal.

    .venv/bin/python docs/capture.py    # after `python3 dev.py test` has installed pyte

Runs ``python -m jsonsnap replay fixtures/anthropic/text_then_write_file.sse --speed 4`` on a
pty of 100x28 (at a speed that gives the live region a few dozen frames: it is redrawn at most
30 times a second), plays what it wrote into the ``pyte`` terminal emulator, takes the screen
at a few moments (the text typed, the file's panel growing, the final state), and writes them
as an animated SVG that loops through them. Dim text (which the emulator does not model) is
drawn grey.
"""

from __future__ import annotations

import fcntl
import html
import os
import pty
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pyte

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "anthropic" / "text_then_write_file.sse"
COLUMNS, ROWS = 100, 28
CELL_W, CELL_H = 8.4, 17.0
COLOURS = {
    "default": "#d0d0d0",
    "brightblack": "#808080",  # dim text, see above
    "red": "#ff6b6b",
    "green": "#6bd66b",
    "yellow": "#e6c84f",
    "cyan": "#5fd7d7",
    "white": "#ffffff",
}


def record() -> bytes:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | {"TERM": "xterm-256color"}
    command = [sys.executable, "-m", "jsonsnap", "replay", str(FIXTURE), "--speed", "4"]
    process = subprocess.Popen(command, stdout=slave, stderr=slave, env=env, cwd=ROOT)
    os.close(slave)
    output = bytearray()
    while select.select([master], [], [], 30)[0]:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        output += data
    os.close(master)
    process.wait()
    # Dim (SGR 2) as bright black, which the emulator keeps as a colour.
    return bytes(output).replace(b"\x1b[2;1m", b"\x1b[90;1m").replace(b"\x1b[2m", b"\x1b[90m")


def screens(output: bytes, moments: list[float]) -> list[pyte.Screen]:
    """The screen just before the redraws at the given fractions of the replay, and at the end."""
    parts = output.split(b"\x1b[J")
    shots = []
    for moment in moments:
        screen = pyte.Screen(COLUMNS, ROWS)
        end = max(1, min(len(parts), round(len(parts) * moment)))
        pyte.ByteStream(screen).feed(b"\x1b[J".join(parts[:end]))
        shots.append(screen)
    return shots


def frame_svg(screen: pyte.Screen) -> str:
    rows = []
    for y in range(ROWS):
        line = screen.buffer[y]
        spans = []
        x = 0
        while x < COLUMNS:
            char = line[x]
            style = (char.fg, char.bold)
            text = []
            start = x
            while x < COLUMNS and (line[x].fg, line[x].bold) == style:
                text.append(line[x].data)
                x += 1
            content = "".join(text).rstrip() if x == COLUMNS else "".join(text)
            if not content.strip():
                continue
            fill = COLOURS.get(style[0], COLOURS["default"])
            weight = ' font-weight="bold"' if style[1] else ""
            spans.append(
                f'<tspan x="{12 + start * CELL_W:.1f}" fill="{fill}"{weight}>'
                f"{html.escape(content)}</tspan>"
            )
        if spans:
            rows.append(f'<text y="{24 + y * CELL_H:.1f}">{"".join(spans)}</text>')
    return "\n".join(rows)


def main() -> None:
    output = record()
    moments = [0.0, 0.1, 0.3, 0.55, 0.8, 1.0]
    durations = [1.6, 1.2, 1.2, 1.2, 1.2, 4.0]
    total = sum(durations)
    width, height = 24 + COLUMNS * CELL_W, 16 + ROWS * CELL_H
    frames = []
    start = 0.0
    for screen, duration in zip(screens(output, moments), durations, strict=True):
        begin, end = start / total, (start + duration) / total
        if begin == 0:
            values, times = "1;0", f"0;{end:.4f}"
        elif end >= 1:
            values, times = "0;1", f"0;{begin:.4f}"
        else:
            values, times = "0;1;0", f"0;{begin:.4f};{end:.4f}"
        frames.append(
            f'<g opacity="{1 if begin == 0 else 0}">'
            f'<animate attributeName="opacity" values="{values}" keyTimes="{times}" '
            f'dur="{total}s" calcMode="discrete" repeatCount="indefinite"/>\n'
            f"{frame_svg(screen)}</g>"
        )
        start += duration
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="DejaVu Sans Mono, Menlo, '
        f'Consolas, monospace" font-size="14" xml:space="preserve">\n'
        f'<rect width="100%" height="100%" rx="6" fill="#1e1e1e"/>\n'
    )
    svg += "\n".join(frames) + "\n</svg>\n"
    target = ROOT / "docs" / "replay.svg"
    target.write_text(svg, encoding="utf-8")
    print(f"wrote {target.relative_to(ROOT)}: {len(frames)} frames, {len(svg):,} bytes")


if __name__ == "__main__":
    main()

"""The command line's pieces: cleaning, fitting, values as lines (whole and their tails), the
terminal's frames; and what a terminal costs, counted rather than timed: the characters the
views clean and lay out while a long value streams, at two sizes, must grow linearly."""

from __future__ import annotations

import json
import os
import random
import threading
from collections.abc import Callable
from typing import Any

import pyte
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from effort import examples
from jsonsnap import Parser
from jsonsnap._cli.inputs import Source, accumulator
from jsonsnap._cli.parse import ParseView
from jsonsnap._cli.render import body_lines, pretty_tail, tail_lines
from jsonsnap._cli.replay import ReplayView
from jsonsnap._cli.terminal import Terminal, clean, fit, fit_tail, json_text, width_of, wrap
from jsonsnap.sse import iter_events
from terminal import Screen, recording, resize_screen

UNSAFE = "\x00\x07\x08\x0b\x1b\x7f\x85\x9b\x9d\u061c\u200e\u200f\u202a\u202e\u2066\u2069\ud800"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


# --------------------------------------------------------------------------- cleaning


def test_stream_text_cannot_drive_the_terminal() -> None:
    assert clean("a\x1b[2Jb\x07c\x9bd\x7f") == "a\u241b[2Jb\u2407c\ufffdd\u2421"
    assert clean("\u202eexe.txt\u2066x\u2069\u200f\u061c\ud800") == "\ufffdexe.txt\ufffdx" + (
        "\ufffd" * 4
    )
    assert clean("\tx\ty") == "    x   y"
    assert clean("line 1\nline 2") == "line 1\u240aline 2"
    assert clean("line 1\r\nline 2", newlines=True) == "line 1\u240d\nline 2"


@settings(max_examples=examples(100))
@given(st.recursive(st.text(alphabet=st.sampled_from(UNSAFE + "a\n\t")), st.lists, max_leaves=5))
def test_json_text_escapes_what_clean_would_change(value: Any) -> None:
    text = json_text(value, 2)
    assert json.loads(text) == value
    assert not set(text) & set(UNSAFE)


def test_fit_wrap_and_widths() -> None:
    assert width_of("中文ab") == 6 and width_of("e\u0301") == 1
    assert fit("中文中文", 5) == "中文…" and fit("abc", 3) == "abc" and fit("abcd", 3) == "ab…"
    assert fit_tail("abcdef", 4) == "…def" and fit_tail("中文中文", 5) == "…中文"
    assert wrap("abcdefg", 3) == ["abc", "def", "g"] and wrap("", 3) == [""]
    assert wrap("中文中文x", 5) == ["中文", "中文x"]


def test_fit_never_cuts_through_a_style() -> None:
    term = Terminal(Screen(), color=True)  # type: ignore[arg-type]
    line = term.style("╭─ name", "bold", "cyan") + term.style(" toolu_1234", "dim")
    assert fit(line, 30) == line  # the styles take no column
    assert fit(line, 10) == "\x1b[1;36m╭─ name\x1b[0m\x1b[2m t…\x1b[0m"
    assert fit(line, 4) == "\x1b[1;36m╭─ …\x1b[0m"


# --------------------------------------------------------------------------- lines


def test_body_lines() -> None:
    lines = body_lines({"path": "a.py", "content": "x = 1\r\ny = 2\n", "n": [1, 2]}, 40)
    assert lines == ['path: "a.py"', "content:", "  │ x = 1", "  │ y = 2", "  │", "n: [1, 2]"]
    wide = body_lines({"k": list(range(30))}, 20)
    assert wide[0] == "k: [" and len(wide) == 32
    assert body_lines([1, "a"]) == ["[", "  1,", '  "a"', "]"]
    long = body_lines({"k": "x" * 50}, 40)
    assert long == ["k:", "  │ " + "x" * 50]  # too long for its key's line: under it, whole


def test_a_long_line_shows_its_end_wrapped() -> None:
    text = "a" * 95 + "b" * 30
    lines, hidden = tail_lines({"k": text}, 44, 2)
    assert lines == ["  │ " + "a" * 15 + "b" * 25, "  │ " + "b" * 5] and hidden == 1
    lines, _ = tail_lines({"k": text + "c"}, 44, 2)  # the rows hold still as it grows
    assert lines == ["  │ " + "a" * 15 + "b" * 25, "  │ " + "b" * 5 + "c"]


@settings(max_examples=examples(100))
@given(
    snapshot=st.one_of(
        st.dictionaries(
            st.text(max_size=3),
            st.one_of(
                st.text(alphabet="ab\n\r\t\x1b", max_size=12),
                st.lists(st.integers(), max_size=30),
                st.dictionaries(st.text(max_size=2), st.none(), max_size=3),
                st.none(),
            ),
            max_size=4,
        ),
        st.lists(st.recursive(st.integers() | st.text(max_size=3), st.lists), max_size=5),
    ),
    last=st.integers(1, 12),
)
def test_tail_lines_are_the_last_lines_of_the_whole(snapshot: Any, last: int) -> None:
    """The panel cuts out only the lines it shows; they are those of the whole body, and it
    says how many are above them, when it counts them."""
    whole = body_lines(snapshot, 30)
    tail, hidden = tail_lines(snapshot, 30, last)
    assert tail == whole[len(whole) - len(tail) :]
    assert len(tail) == min(last, len(whole))
    assert hidden in (None, len(whole) - len(tail))
    assert hidden == 0 or len(tail) == last


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=20,
)


@settings(max_examples=examples(200))
@given(value=json_values, last=st.integers(1, 40))
def test_pretty_tail_is_the_end_of_indented_json(value: Any, last: int) -> None:
    whole = [clean(line) for line in json_text(value, 2).split("\n")]
    tail, more = pretty_tail(value, last, 200)
    assert tail == whole[-last:] and more == (len(whole) > last)


def test_pretty_tail_costs_what_it_shows() -> None:
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    tail, more = pretty_tail(deep, 5, 80)
    assert more and tail == [" " * 8 + "]"] + [" " * (6 - 2 * i) + "]" for i in range(4)]
    long = {"a": "x" * 1_000_000, "b": "y" * 1_000_000}
    tail, _ = pretty_tail(long, 3, 40)
    assert tail[0].startswith('  "a": "xxxx') and len(tail[0]) < 60  # cut at its start
    assert tail[1] == '  "b": "…' + "y" * 30 + '"'  # the last one: its end


SCALAR = st.one_of(
    st.integers(-(10**6), 10**6), st.booleans(), st.none(), st.text("xyz ", max_size=10)
)
LONG = st.one_of(
    st.lists(st.text("pq", max_size=30), min_size=1, max_size=60).map("\n".join),
    st.lists(st.integers(0, 99), max_size=80),
    st.text("w ", min_size=100, max_size=400),
)


@settings(max_examples=examples(60), deadline=None)
@given(
    scalars=st.dictionaries(st.text("abcdef", min_size=1, max_size=8), SCALAR, max_size=8),
    long=LONG,
    columns=st.integers(20, 120),
    rows=st.integers(5, 40),
)
def test_the_scalar_arguments_are_pinned_above_the_tail(
    scalars: dict[str, Any], long: Any, columns: int, rows: int
) -> None:
    """Whenever a live panel cannot show a whole tool input, its scalar arguments are the
    first lines under its header (as many as half the panel holds), above ``↑ ... above``
    and the tail of the long one."""
    tool_input = json.dumps({**scalars, "content": long})
    out, clock = Screen(), Clock()
    term = Terminal(out, color=False, tty=True, size=(columns, rows), clock=clock)  # type: ignore[arg-type]
    frames: list[list[str]] = []
    term.live = frames.append  # type: ignore[method-assign,assignment]
    view = ReplayView(term, hide_thinking=False)
    acc = accumulator("anthropic")
    for event in iter_events([recording(tool_input, piece=7)]):
        for update in acc.feed(event):
            view.update(update)
        clock.now += 1
    room = max(3, rows - 4)
    pins = [f"│ {key}: {json.dumps(value)}" for key, value in scalars.items()]
    pins = pins[: max(0, min(room // 2, room - 3))]
    scrolled = [frame for frame in frames if any(line.startswith("│ ↑ ") for line in frame)]
    for frame in scrolled:
        assert frame[1 : 1 + len(pins)] == pins
        assert frame[1 + len(pins)].startswith("│ ↑ ")
        assert len(frame) == room + 2


@settings(max_examples=examples(60), deadline=None)
@given(
    name=st.text("wé語_", min_size=1, max_size=30),
    tool_id=st.text("tu語_0", min_size=1, max_size=30),
    tool_input=st.sampled_from(['{"a": 1}', '{"a": 1', '{"a": [1, 2}', '{"a": 1}{"b": 2}']),
    columns=st.integers(6, 60),
)
def test_the_final_panel_wraps_nowhere_but_in_its_body(
    name: str, tool_id: str, tool_input: str, columns: int
) -> None:
    """At any width, the final panel's header is its live header, cut to the screen, and its
    footer is wrapped into rows that fit (wide characters counted as two columns)."""
    out, clock = Screen(tty=True), Clock()
    term = Terminal(out, color=False, tty=True, size=(columns, 12), clock=clock)  # type: ignore[arg-type]
    committed: list[str] = []
    term.line = committed.append  # type: ignore[method-assign,assignment]
    live: list[list[str]] = []
    term.live = live.append  # type: ignore[method-assign,assignment]
    view = ReplayView(term, hide_thinking=False)
    acc = accumulator("anthropic")
    body = recording(tool_input, name=name, tool_id=tool_id, text="")
    for event in iter_events([body]):
        for update in acc.feed(event):
            view.update(update)
        clock.now += 1  # a frame at every event
    view.end()
    (panel,) = [text.split("\n") for text in committed if text.startswith("╭─")]
    assert panel[0] == fit(f"╭─ {name} {tool_id}", columns - 1)
    assert live and all(fit(frame[0], columns - 1) == panel[0] for frame in live)  # as shown
    footer = [row for row in panel if row.startswith(("╰─ ", "   "))]
    assert footer and all(width_of(row) <= columns - 1 for row in footer)


# --------------------------------------------------------------------------- the terminal


def test_terminal_without_a_tty_draws_nothing_live() -> None:
    out = Screen()
    term = Terminal(out, color=True, tty=False)  # type: ignore[arg-type]
    term.live(["a", "b"])
    term.write("text")
    term.line("line")
    assert out.text == "text\nline\n" and term.style("x", "red") == "\x1b[31mx\x1b[0m"


def test_frames_are_drawn_when_due_with_the_text_committed_meanwhile() -> None:
    out, clock = Screen(), Clock()
    term = Terminal(out, color=False, tty=True, size=(20, 5), clock=clock)  # type: ignore[arg-type]
    assert term.due()
    term.live(["one", "x" * 30])
    # Drawn without automatic wrapping, the cursor then back at its first line, to wait there.
    assert out.text == "\x1b[?7lone\n" + "x" * 18 + "…\r\x1b[1A\x1b[?7h" and not term.due()
    term.write("typed ")
    term.write("text\n")
    assert out.text.endswith("\x1b[?7h")  # the text waits for the next frame
    clock.now += 1 / 30
    assert term.due()
    term.live(["two"])
    assert out.text.endswith("\r\x1b[Jtyped text\n\x1b[?7ltwo\r\x1b[?7h")
    term.clear()
    assert out.text.endswith("two\r\x1b[?7h\r\x1b[J") and term.frames == 3


def test_a_region_written_again_after_a_resize_is_still_to_be_laid_out() -> None:
    size = [20, 5]
    term = Terminal(Screen(), color=False, tty=True, size=size)  # type: ignore[arg-type]
    term.live(["one"])
    assert not term.resized
    size[:] = [10, 5]
    assert term.resized
    term.write("text\n")
    term.flush()  # the text goes above the same lines, laid out for 20 columns
    assert term.resized
    term.live(["two"])
    assert not term.resized
    term.clear()
    assert not term.resized


class PyteOut:
    """Standard output on a terminal emulator (pyte) that can be resized, as a terminal is:
    between two writes, or in the middle of one (``resize(..., during=True)``)."""

    def __init__(self, columns: int, rows: int, rewrap: bool) -> None:
        self.size = [columns, rows]
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.rewrap = rewrap
        self.pending: tuple[int, int] | None = None
        self.resized_during = False

    def resize(self, columns: int, rows: int, during: bool) -> None:
        # In the middle of a write, only a terminal that cuts its lines: one that rewraps the
        # lines of a region half drawn moves them in a way no program can know.
        if during and not self.rewrap:
            self.pending = (columns, rows)
        else:
            self._resize(columns, rows)

    def _resize(self, columns: int, rows: int) -> None:
        self.size[:] = [columns, rows]
        resize_screen(self.screen, columns, rows, self.rewrap)

    def write(self, text: str) -> int:
        data = text.replace("\n", "\r\n").encode()  # as a pty's ONLCR makes it
        if self.pending is not None and len(data) > 1:
            self.stream.feed(data[: len(data) // 2])
            self._resize(*self.pending)
            self.pending, self.resized_during = None, True
            data = data[len(data) // 2 :]
        self.stream.feed(data)
        return len(text)

    def flush(self) -> None:
        pass

    def rows(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]


STEP = st.one_of(
    st.tuples(st.just("text"), st.text("ab \n", max_size=150)),
    st.tuples(st.just("live"), st.lists(st.integers(0, 140), max_size=40)),
    st.tuples(st.just("resize"), st.integers(8, 120), st.integers(2, 40), st.booleans()),
)


@settings(max_examples=examples(100), deadline=None)
@given(
    columns=st.integers(8, 120),
    rows=st.integers(2, 40),
    steps=st.lists(STEP, max_size=12),
    rewrap=st.booleans(),
)
def test_the_live_region_leaves_nothing_stale_whatever_the_resizes(
    columns: int, rows: int, steps: list[Any], rewrap: bool
) -> None:
    """Text committed, live regions drawn and the terminal resized in any order (narrower,
    wider, shorter, taller; rewrapping its lines or cutting them, even in the middle of a
    write): each region drawn at a size that held still shows its lines from the row the
    cursor is on, and no line of an earlier region is left anywhere on the screen."""
    out = PyteOut(columns, rows, rewrap)
    term = Terminal(out, color=False, tty=True, size=out.size)  # type: ignore[arg-type]
    for step in steps:
        if step[0] == "text":
            term.write(step[1])
            term.flush()
        elif step[0] == "resize":
            out.resize(*step[1:])
        else:
            out.resized_during = False
            lines = [f"L{i}" + "x" * width for i, width in enumerate(step[1])]
            term.live(lines)
            if out.resized_during:
                continue
            width, height = out.size
            shown = [fit(line, width - 1) for line in lines[-max(1, height - 1) :]]
            screen, top = out.rows(), out.screen.cursor.y
            assert screen[top : top + len(shown)] == shown
            assert not [row for row in screen[:top] + screen[top + len(shown) :] if "L" in row]
    term.clear()
    assert not [row for row in out.rows() if "L" in row]


def test_a_resize_is_drawn_while_the_input_waits() -> None:
    """Standard input with nothing for now: the view is told again and again while it waits,
    and a terminal resized meanwhile gets the panel drawn anew for its new size, though
    nothing changed in it."""
    size = [100, 30]
    term = Terminal(Screen(), color=False, tty=True, size=size)  # type: ignore[arg-type]
    view = ReplayView(term, hide_thinking=False)
    acc = accumulator("anthropic")
    body = recording(json.dumps({"path": "a.txt", "content": "x" * 5000}))
    for event in list(iter_events([body]))[:-3]:  # the call still streaming
        for update in acc.feed(event):
            view.update(update)
    view.tick(force=True)
    frames = term.frames
    read, write = os.pipe()
    idled: list[int] = []
    sent = threading.Lock()

    def send() -> None:  # the input comes: after the fourth idle(), or in 5 s at the latest
        if sent.acquire(blocking=False):
            os.write(write, b"more")
            os.close(write)

    def idle() -> None:
        idled.append(term.frames)
        if len(idled) == 2:
            size[:] = [40, 12]  # the terminal is resized while the input waits
        view.tick(force=True)
        if len(idled) == 4:
            send()

    source = Source(os.fdopen(read, "rb"), "standard input", owned=True)
    late = threading.Timer(5, send)
    late.start()
    try:
        assert b"".join(source.chunks(16, idle)) == b"more"
    finally:
        late.cancel()
        source.close()
    assert len(idled) >= 4
    assert idled[:2] == [frames, frames]  # nothing changed: nothing drawn
    assert term.frames == frames + 1 and not term.resized  # drawn once, for the new size


# --------------------------------------------------------------------------- the cost


def counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the characters the views clean and dump as JSON (what they lay out)."""
    count = [0]

    def wrap_(func: Callable[..., str]) -> Callable[..., str]:
        def counted(value: Any, *args: Any, **kwargs: Any) -> str:
            text = func(value, *args, **kwargs)
            count[0] += len(text)
            return text

        return counted

    for module in ("jsonsnap._cli.render", "jsonsnap._cli.replay", "jsonsnap._cli.parse"):
        monkeypatch.setattr(f"{module}.clean", wrap_(clean))
        monkeypatch.setattr(f"{module}.json_text", wrap_(json_text))
    return count


def replay_cost(body: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int, int]:
    """Characters laid out, characters written and frames drawn, replaying ``body`` on a
    terminal of 100x30 with a clock that moves 1 ms per event."""
    count = counting(monkeypatch)
    out, clock = Screen(), Clock()
    term = Terminal(out, tty=True, size=(100, 30), clock=clock)  # type: ignore[arg-type]
    view = ReplayView(term, hide_thinking=False)
    acc = accumulator("anthropic")
    for event in iter_events([body]):
        for update in acc.feed(event):
            view.update(update)
        clock.now += 0.001
    view.end()
    return count[0], len(out.text), term.frames


def single_line(size: int) -> bytes:
    return recording(json.dumps({"path": "a.txt", "content": "word " * (size // 5)}))


def records(size: int) -> bytes:
    rows = [{"id": i, "name": f"r{i}", "ok": True} for i in range(size // 36)]
    return recording(json.dumps({"records": rows}))


def lines(size: int) -> bytes:
    rng = random.Random(size)
    text = "\n".join("x" * rng.randint(0, 60) for _ in range(size // 31))
    return recording(json.dumps({"path": "a.txt", "content": text}))


def members(size: int) -> bytes:
    tool_input: dict[str, Any] = {f"k{i}": i for i in range(size // 20)}
    tool_input["content"] = "line\n" * (size // 10)
    return recording(json.dumps(tool_input))


@pytest.mark.parametrize(
    ("make", "size"),
    [(single_line, 25_000), (records, 10_000), (lines, 25_000), (members, 10_000)],
    ids=["single-line string", "list of records", "file of lines", "many members"],
)
def test_replay_on_a_terminal_is_linear(
    make: Callable[[int], bytes], size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four times the argument: about four times the work and the output, not sixteen (which
    a redraw of the whole value at every delta, or at every frame, would cost)."""
    small, big = replay_cost(make(size), monkeypatch), replay_cost(make(4 * size), monkeypatch)
    assert big[0] < 5 * small[0], "characters laid out"
    assert big[1] < 5 * small[1], "characters written"
    events = len(make(4 * size).split(b"\n\n"))
    assert big[2] < events / 30 + 5, "frames: at most 30 a second"


def test_parse_on_a_terminal_is_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    def cost(size: int) -> tuple[int, int]:
        count = counting(monkeypatch)
        out, clock = Screen(), Clock()
        term = Terminal(out, tty=True, size=(100, 30), clock=clock)  # type: ignore[arg-type]
        view = ParseView(term, Parser(), live=True)
        text = json.dumps({"a": [1, 2], "text": "word " * (size // 5)})
        for start in range(0, len(text), 64):
            view.dirty |= view.parser.feed(text[start : start + 64])
            view.tick()
            clock.now += 0.001
        return count[0], len(out.text)

    small, big = cost(250_000), cost(1_000_000)
    assert big[0] < 5 * small[0] and big[1] < 5 * small[1]
    assert big[1] < 1_000_000 / 64 / 30 * 30 * 100 * 2  # frames x a screen, at most

"""Values as lines for the command line: whole, for a log, or only the tail a screen shows.

A tool call's arguments (a panel's body) are shown one member per line, a long or multi-line
string as its lines of text under its key, a container as compact JSON when it fits and as
indented JSON otherwise; ``parse`` shows its value as indented JSON.

The whole forms (:func:`body_lines`, :func:`json_text` by the caller) are for what is written
once: a log, a panel committed at its end. The tail forms are for a live region redrawn many
times a second, so they cost what the screen shows, not what the value holds: members and
elements are visited from the end and only until the screen is full, indented JSON is laid
out backwards (:func:`pretty_tail`, with no recursion, whatever the depth), a long line is cut
out of its string before anything else touches it, and the last line of a text (the one
growing) is wrapped, to show its end. When the tail cannot show a whole tool input, its
scalar members (a ``path``, a ``mode``...) are pinned above it (:func:`pinned_lines`), so that a
long argument streaming does not scroll the short ones out of sight.

Every line returned is cleaned (:func:`jsonsnap._cli.terminal.clean`) and has no trailing spaces.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from itertools import islice
from typing import Any

from .terminal import clean, fit_tail, json_text, width_of, wrap

#: Under a key, each line of a text starts with this.
GUTTER = "  │ "
#: How many of the first members of a tool input are looked at for scalars to pin.
PIN_SCAN = 64
#: How many members above a tail have their lines counted (``↑ N more lines above``); with
#: more, it says ``↑ more above``: a frame costs what it shows, not what the value holds.
COUNTED = 256


def _key(key: Any, limit: int) -> str:
    return clean(str(key)[:limit])


def _short_string(value: str, columns: int) -> bool:
    """Whether ``value`` is shown on its key's line (else as lines of text under it)."""
    return len(value) <= columns and "\n" not in value


def _small(value: Any, budget: int) -> bool:
    """Whether ``value`` may fit in ``budget`` columns as compact JSON, judged from at most
    ``budget`` of its parts (each part of a value takes a column at least)."""
    stack = [value]
    while stack:
        item = stack.pop()
        budget -= 1
        if isinstance(item, dict):
            if len(item) > budget:
                return False
            stack += item.keys()
            stack += item.values()
        elif isinstance(item, list):
            if len(item) > budget:
                return False
            stack += item
        elif isinstance(item, str):
            budget -= len(item)
        if budget < 0:
            return False
    return True


# --------------------------------------------------------------------------- whole


def body_lines(snapshot: Any, columns: int = 80) -> list[str]:
    """A tool input shown whole: one line per member, a long or multi-line string as its
    lines (under its key), a container too wide for one line as indented JSON."""
    if not isinstance(snapshot, dict):
        return [clean(line) for line in json_text(snapshot, 2).split("\n")]
    lines: list[str] = []
    for key, value in snapshot.items():
        name = clean(str(key))
        if isinstance(value, str):
            if _short_string(value, columns):
                lines.append(f"{name}: {clean(json_text(value))}")
            else:
                lines.append(f"{name}:")
                lines += (
                    (GUTTER + clean(line.removesuffix("\r"))).rstrip() for line in value.split("\n")
                )
            continue
        compact = clean(json_text(value))
        if width_of(compact) + len(name) + 2 <= columns:
            lines.append(f"{name}: {compact}")
            continue
        pretty = clean(json_text(value, 2), newlines=True).split("\n")
        lines.append(f"{name}: {pretty[0]}")
        lines += ("  " + line for line in pretty[1:])
    return lines


# --------------------------------------------------------------------------- tails


def _members(value: dict[str, Any] | list[Any], depth: int) -> Iterator[tuple[Any, int, Any]]:
    """The members of a container from the last: (value, depth, key or None), each but the
    last (the first yielded) followed by a comma."""
    if isinstance(value, dict):
        for key in reversed(value):
            yield value[key], depth, key
    else:
        for item in reversed(value):
            yield item, depth, None


def _scalar(value: Any, room: int, tail: bool) -> str:
    """A scalar as JSON, for a line with ``room`` columns: a longer string is cut to its start,
    or (``tail``) to its end after ``…``."""
    if not isinstance(value, str) or len(value) <= room:
        return clean(json_text(value))
    if not tail:
        return clean(json_text(value[: room + 1]))  # the line is cut to the screen later
    end = clean(json_text(value[-room:]))[1:]
    return '"' + fit_tail(end, max(2, room - 1))


def pretty_tail(value: Any, last: int, columns: int) -> tuple[list[str], bool]:
    """The last ``last`` lines of ``json_text(value, 2)`` as a screen of ``columns`` shows them
    (a long string cut: the last one to its end, where it grows), and whether lines were left
    out above. Laid out from the end, so the cost is that of the lines returned."""
    out: list[str] = []  # from the last line up
    stack: list[str | Iterator[tuple[Any, int, Any]]] = [iter([(value, 0, None)])]
    first = True  # the next member met is the last of its container: no comma after it
    growing = True  # the next scalar met is the last of the value: a string grows at its end
    while stack and len(out) <= last:
        top = stack[-1]
        if isinstance(top, str):
            out.append(stack.pop())  # type: ignore[arg-type]
            continue
        member = next(top, None)
        if member is None:
            stack.pop()
            first = False
            continue
        item, depth, key = member
        comma = "" if first else ","
        first = False
        pad = "  " * min(depth, columns)
        head = pad if key is None else f"{pad}{clean(json_text(str(key)[:columns]))}: "
        if isinstance(item, (dict, list)) and item:
            opener, closer = ("{", "}") if isinstance(item, dict) else ("[", "]")
            out.append(pad + closer + comma)
            stack.append(head + opener)
            stack.append(_members(item, depth + 1))
            first = True
        else:
            room = max(8, columns - width_of(head) - len(comma))
            out.append(head + _scalar(item, room, growing) + comma)
            growing = False
    more = len(out) > last
    return out[last - 1 :: -1] if more else out[::-1], more


def _text_tail(text: str, columns: int, last: int) -> tuple[list[str], int]:
    """The last ``last`` rows of ``text`` shown as lines under a key: each line cut to the
    screen, but the last one (where the text grows), wrapped to show its end. Also how many
    lines were left out above (0: the whole text is shown)."""
    end = len(text)
    start = text.rfind("\n", 0, end) + 1
    # Only the end of a long line is cut out, at a multiple of the width from its start, so
    # that the rows hold still as it grows.
    skip = max(0, end - start - last * columns)
    line = text[start + skip - skip % columns : end]
    rows = wrap(clean(line.removesuffix("\r")), columns)[-last:]
    while len(rows) < last and start > 0:
        end = start - 1
        start = text.rfind("\n", 0, end) + 1
        line = text[start : min(end, start + 2 * columns)].removesuffix("\r")
        rows.insert(0, clean(line))
    hidden = 0 if start == 0 else text.count("\n", 0, start)
    return [(GUTTER + row).rstrip() for row in rows], hidden


def _member_tail(key: Any, value: Any, columns: int, last: int) -> tuple[list[str], int | None]:
    """The last ``last`` lines of a member, and how many of its lines were left out above
    (``None``: some, not counted)."""
    name = _key(key, columns)
    if isinstance(value, str):
        if _short_string(value, columns):
            return [f"{name}: {clean(json_text(value))}"], 0
        rows, hidden = _text_tail(value, columns - len(GUTTER), last)
        if hidden == 0 and len(rows) < last:
            return [f"{name}:", *rows], 0
        return rows, hidden + 1  # the key's line, above the text
    if _small(value, columns):
        compact = clean(json_text(value))
        if width_of(compact) + len(name) + 2 <= columns:
            return [f"{name}: {compact}"], 0
    lines, more = pretty_tail(value, last, columns - 2)
    lines = ["  " + line for line in lines]
    if not more:
        lines[0] = f"{name}: {lines[0][2:]}"
    return lines, None if more else 0


def tail_lines(
    snapshot: Any, columns: int, last: int, skip: Collection[Any] = ()
) -> tuple[list[str], int | None]:
    """The last ``last`` lines of :func:`body_lines` as a screen of ``columns`` shows them (the
    last line of a text wrapped), without the members named in ``skip``, and how many lines
    were left out above them: 0 when none, ``None`` when some, not counted. Costs what the
    lines shown cost."""
    if not isinstance(snapshot, dict):
        lines, more = pretty_tail(snapshot, last, columns)
        return lines, None if more else 0
    shown: list[str] = []
    members = ((k, v) for k, v in reversed(snapshot.items()) if k not in skip)
    hidden: int | None = 0
    for key, value in members:
        lines, hidden = _member_tail(key, value, columns, last - len(shown))
        shown[:0] = lines
        if len(shown) >= last or hidden != 0:
            break
    else:
        return shown, 0
    for counted, (key, value) in enumerate(members):  # the members above
        if hidden is None:
            break
        count = _line_count(key, value, columns) if counted < COUNTED else None
        hidden = None if count is None else hidden + count
    return shown, hidden


def pinned_lines(snapshot: Any, columns: int, most: int) -> tuple[list[str], list[Any]]:
    """The scalar members of a tool input (numbers, booleans, nulls, strings of one short
    line), as :func:`body_lines` shows them, to keep in sight above the tail of a long one:
    at most ``most``, from among its first :data:`PIN_SCAN` members (what a frame costs does
    not grow with the members). Also their keys (for ``tail_lines(skip=)``)."""
    if not isinstance(snapshot, dict) or most <= 0:
        return [], []
    lines: list[str] = []
    keys: list[Any] = []
    for key, value in islice(snapshot.items(), PIN_SCAN):
        if isinstance(value, (dict, list)) or (
            isinstance(value, str) and not _short_string(value, columns)
        ):
            continue
        lines.append(f"{_key(key, columns)}: {clean(json_text(value))}")
        keys.append(key)
        if len(keys) == most:
            break
    return lines, keys


def _line_count(key: Any, value: Any, columns: int) -> int | None:
    """How many lines :func:`body_lines` gives a member, when that is cheap to tell."""
    if not isinstance(value, (str, dict, list)):
        return 1
    if isinstance(value, str):
        return 1 if _short_string(value, columns) else value.count("\n") + 2
    if _small(value, 2 * columns):
        return len(body_lines({key: value}, columns))
    return None

"""Vertex AI's partial arguments of one function call, translated into JSON text.

With ``streamFunctionCallArguments``, a call's arguments come as ``partialArgs`` entries
``{jsonPath, stringValue | numberValue | boolValue | nullValue, willContinue}``.
:class:`ArgText` turns each entry into the JSON text it adds to the arguments
(``{"location": "Bos``, then ``ton"``, ...), which the call's tool input parses as any streamed
JSON. Every entry is checked against the structure written so far, and refused through the
caller's ``fail`` (which makes the exception to raise) when it cannot continue it.

Invariants: the text is written in the order the paths come; a path names the next member of
its container (a key not yet written, or the next index); a string with ``willContinue`` stays
open until an entry of the same path ends it; a number is followed by a space, so that it
shows at once. Every change is logged until :meth:`ArgText.commit`, so that
:meth:`ArgText.rollback` undoes what a refused chunk did. An entry costs time in proportion
to its path's length and its value's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._jsontext import describe
from ._path import Segment, parse_json_path, show
from ._text import number, string

#: The value fields of a partial argument.
_VALUES = ("stringValue", "numberValue", "boolValue", "nullValue")

#: Makes the exception that refuses an entry, from what is wrong with it.
Fail = Callable[[str], Exception]


class _Frame:
    """A container open in the JSON text of streamed arguments."""

    __slots__ = ("array", "count", "key", "keys")

    def __init__(self, key: Segment | None, array: bool) -> None:
        self.key = key  # how its parent reaches it
        self.array = array
        self.count = 0  # members or elements written
        self.keys: set[str] = set()


class ArgText:
    """Vertex's partial arguments of one call, turned into the JSON text of the arguments.

    The text is written in the order of the paths: ``frames`` are the containers open, from
    the arguments object down; a new path closes the containers it leaves and opens the ones it
    enters, and must name the next member of its container (a key not yet written, or the next
    index). Every change is logged until :meth:`commit`, so that :meth:`rollback` can undo what
    a refused chunk did."""

    __slots__ = ("_log", "ended", "frames", "open", "started")

    def __init__(self) -> None:
        self.frames = [_Frame(None, False)]
        self.open: tuple[Segment, ...] | None = None  # the string that is to go on
        self.started = False
        self.ended = False
        self._log: list[tuple[Any, ...]] = []

    def commit(self) -> None:
        self._log.clear()

    def rollback(self) -> None:
        log = self._log
        while log:
            op, *args = log.pop()
            if op == "push":
                self.frames.pop()
            elif op == "pop":
                self.frames.append(args[0])
            elif op == "member":
                frame, key = args
                frame.count -= 1
                if key is not None:
                    frame.keys.discard(key)
            else:  # an attribute's old value
                setattr(self, op, args[0])

    def _set(self, name: str, value: Any) -> None:
        self._log.append((name, getattr(self, name)))
        setattr(self, name, value)

    def entry(self, entry: Mapping[str, Any], fail: Fail) -> str:
        """The JSON text of one ``partialArgs`` entry."""
        raw = entry.get("jsonPath")
        if not isinstance(raw, str):
            raise fail(f"a partial argument whose jsonPath is {describe(raw)}, not a string")
        try:
            path = parse_json_path(raw)
        except ValueError as exc:
            raise fail(f"a bad jsonPath {_quoted(raw)}: {exc}") from None
        named = _quoted(raw)
        given = [key for key in _VALUES if key in entry and entry[key] is not None]
        if "nullValue" in entry and entry["nullValue"] is None and not given:
            given = ["nullValue"]  # JSON's null is protobuf's NULL_VALUE too
        cont = entry.get("willContinue")
        if cont is not None and not isinstance(cont, bool):
            raise fail(f"willContinue of {named} is {describe(cont)}, not a boolean")
        if len(given) > 1:
            raise fail(f"the partial argument {named} has {' and '.join(given)}: one value only")
        kind = given[0] if given else None
        piece: str | None = None
        literal = ""
        if kind == "stringValue":
            piece = entry[kind]
            if not isinstance(piece, str):
                raise fail(f"the stringValue of {named} is {describe(piece)}, not a string")
        elif kind == "numberValue":
            try:
                literal = number(entry[kind]) + " "  # the space ends the number: shown at once
            except ValueError as exc:
                raise fail(f"the numberValue of {named} is {exc}") from None
        elif kind == "boolValue":
            value = entry[kind]
            if not isinstance(value, bool):
                raise fail(f"the boolValue of {named} is {describe(value)}, not a boolean")
            literal = "true" if value else "false"
        elif kind == "nullValue":
            value = entry[kind]
            if value not in (None, "NULL_VALUE", 0):
                raise fail(f"the nullValue of {named} is {describe(value)}, not NULL_VALUE")
            literal = "null"
        return self._write(path, named, kind, piece, literal, bool(cont), fail)

    def _write(
        self,
        path: tuple[Segment, ...],
        named: str,
        kind: str | None,
        piece: str | None,
        literal: str,
        cont: bool,
        fail: Fail,
    ) -> str:
        if self.open is not None:
            return self._go_on(self.open, path, named, kind, piece, cont, fail)
        if kind is None:
            raise fail(f"the partial argument {named} has no value")
        out = []
        if not self.started:
            self._set("started", True)
            out.append("{")
        self._enter(path, named, kind, out, fail)
        if piece is not None:
            out.append(f'"{string(piece)}')
            if cont:
                self._set("open", path)
            else:
                out.append('"')
        elif cont:
            raise fail(f"willContinue on {_kind(kind)} at {named}: only a string goes on")
        else:
            out.append(literal)
        return "".join(out)

    def _go_on(
        self,
        open_: tuple[Segment, ...],
        path: tuple[Segment, ...],
        named: str,
        kind: str | None,
        piece: str | None,
        cont: bool,
        fail: Fail,
    ) -> str:
        """The text of an entry while a string is to go on: more of it, or its end."""
        if path != open_:
            raise fail(
                f"a partial argument for {named} while the string at {show(open_)} "
                "was to go on (willContinue)"
            )
        if kind is None and not cont:
            self._set("open", None)  # an entry without a value that ends the string
            return '"'
        if piece is None:
            raise fail(f"{_kind(kind)} for {named}, which is a string")
        if not cont:
            self._set("open", None)
            return f'{string(piece)}"'
        return string(piece)

    def _enter(
        self, path: tuple[Segment, ...], named: str, kind: str, out: list[str], fail: Fail
    ) -> None:
        """Write to ``out`` the text that goes from where the arguments are to the place of
        ``path``'s value: the containers it leaves closed, the ones it enters opened, each
        with its key."""
        frames = self.frames
        depth = 0  # how many of the path's segments are containers open now
        while (
            depth < len(frames) - 1 and depth < len(path) and frames[depth + 1].key == path[depth]
        ):
            depth += 1
        if depth == len(path):
            what = "an array" if frames[depth].array else "an object"
            raise fail(f"{_kind(kind)} for {named}, which is {what} so far")
        self._check_member(frames[depth], path, depth, named, fail)
        while len(frames) - 1 > depth:
            frame = frames.pop()
            self._log.append(("pop", frame))
            out.append("]" if frame.array else "}")
        frame = frames[depth]
        for at in range(depth, len(path)):
            if at > depth:
                self._check_member(frame, path, at, named, fail)
            segment = path[at]
            separator = ", " if frame.count else ""
            frame.count += 1
            if isinstance(segment, str):
                frame.keys.add(segment)
                out.append(f'{separator}"{string(segment)}": ')
            else:
                out.append(separator)
            self._log.append(("member", frame, segment if isinstance(segment, str) else None))
            if at == len(path) - 1:
                break
            child = _Frame(segment, isinstance(path[at + 1], int))
            out.append("[" if child.array else "{")
            frames.append(child)
            self._log.append(("push",))
            frame = child

    @staticmethod
    def _check_member(
        frame: _Frame,
        path: tuple[Segment, ...],
        at: int,
        named: str,
        fail: Fail,
    ) -> None:
        """Whether ``path[at]`` is the next member of ``frame`` (the container at
        ``path[:at]``)."""
        segment = path[at]
        if isinstance(segment, int):
            if not frame.array:
                raise fail(f"{named} indexes {show(path, at)}, which is an object")
            if segment < frame.count:
                raise fail(f"{named} goes back to {show(path, at + 1)}, which is finished")
            if segment > frame.count:
                raise fail(
                    f"{named} skips to {show(path, at + 1)}: the next element is [{frame.count}]"
                )
        else:
            if frame.array:
                raise fail(f"{named} names a member of {show(path, at)}, which is an array")
            if segment in frame.keys:
                raise fail(f"{named} goes back to {show(path, at + 1)}, which is finished")

    def finish(self, fail: Fail) -> str:
        """The text that ends the arguments."""
        if self.open is not None:
            raise fail(
                f"the call ended while the string at {show(self.open)} was to go on (willContinue)"
            )
        self._set("ended", True)
        if not self.started:
            return "{}"
        return "".join("]" if frame.array else "}" for frame in reversed(self.frames))


def _quoted(path: str) -> str:
    return repr(path) if len(path) <= 120 else repr(path[:120]) + "..."


def _kind(kind: str | None) -> str:
    return {
        "stringValue": "a string",
        "numberValue": "a number",
        "boolValue": "a boolean",
        "nullValue": "a null",
    }.get(kind or "", "an entry")

"""What the ``replay`` and ``parse`` commands share: options, input, and the accumulators.

- The accumulators are reached through the public registry of protocols
  (:data:`jsonsnap.streams.PROTOCOLS`), and only through what every accumulator offers
  (:class:`jsonsnap.streams.Accumulator`): the command line knows no protocol by name, so
  adding one to the registry adds it here.
- Input comes from a file, standard input or the example recording (:class:`Source`), read in
  the pieces it arrives in; before a read that would wait, and every :data:`IDLE_EVERY` s of
  the wait, the caller is told (``idle``), to draw what is pending (or what a resize
  changed). :func:`events` decodes it: AWS event stream messages (Bedrock's binary framing)
  when its first bytes are a prelude that checks out, server-sent events otherwise.
- Option values are checked by argparse with the types below, so that a bad one is a usage
  error of its subcommand; every wait is capped (:data:`MAX_WAIT`). ``--schema FILE`` is read
  and compiled once, there (:func:`schema_file`).
- The tool schemas of a replay come from ``--schema``, or else from the stream itself when its
  result repeats the request's tools (a Responses API response does: :func:`echoed_tools`).
- :class:`CommandError` is a failure to report in one line, with an exit status.
"""

from __future__ import annotations

import argparse
import math
import os
import select
import sys
from collections.abc import Callable, Iterable, Iterator
from importlib import resources
from itertools import chain
from pathlib import Path
from typing import IO, Any

from .. import JSONDecodeError, Schema, loads
from .._eventstream import PRELUDE
from .._streams.body import BODY_HEAD, body_kind
from ..bedrock import EventStreamDecoder, EventStreamMessage, starts_eventstream
from ..sse import ServerSentEvent, iter_events
from ..streams import PROTOCOLS, Accumulator, StreamError, ToolInput, Update, tool_schemas

__all__ = [
    "MAX_WAIT",
    "Accumulator",
    "CommandError",
    "Source",
    "StreamError",
    "ToolInput",
    "Update",
    "accumulator",
    "body_kind",
    "echoed_tools",
    "events",
    "protocols",
    "schema_file",
]

#: The longest wait between two events or two reads, in seconds, whatever the options say.
MAX_WAIT = 5.0
#: Where the example recording is, inside the package (package data) and in a checkout.
EXAMPLE = "text_then_write_file.sse"
_CHECKOUT_EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "anthropic" / EXAMPLE


class CommandError(Exception):
    """A command cannot go on: the message says why, in one line; ``status`` is the exit
    status (1)."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


# --------------------------------------------------------------------------- accumulators


def protocols() -> list[str]:
    """The names of the protocols the accumulators read (``--format`` choices)."""
    return list(PROTOCOLS)


def accumulator(
    kind: str,
    tools: dict[str, Schema] | None = None,
    *,
    repair: bool = False,
    compatible: bool = False,
) -> Accumulator:
    """A new accumulator for the protocol named ``kind``, its tool calls checked against
    ``tools`` (compiled schemas by tool name) when given, read tolerantly with ``repair``; a
    Chat Completions one with the profile for compatible servers from the start with
    ``compatible``."""
    options: dict[str, Any] = {"tools": tools, "repair": repair}
    if compatible and kind == "chat":
        options["compatible"] = True
    return PROTOCOLS[kind](**options)


def echoed_tools(kind: str, early: list[Any]) -> dict[str, Schema] | None:
    """The schemas of the request's tools, when the stream's first events make a result that
    repeats them (``result["tools"]``: a Responses API response does); ``None`` otherwise. A
    stream whose tools cannot be read is replayed unchecked."""
    probe = accumulator(kind)
    try:
        for event in early:
            probe.feed(event)
    except StreamError:
        return None
    result = probe.result
    tools = result.get("tools") if isinstance(result, dict) else None
    if not isinstance(tools, list) or not tools:
        return None
    try:
        return tool_schemas(tools) or None
    except (TypeError, ValueError):
        return None


def events(chunks: Iterable[bytes]) -> Iterator[ServerSentEvent | EventStreamMessage]:
    """The events of a body given in chunks: AWS event stream messages when it begins with a
    prelude that checks out (Bedrock's binary framing; a broken message is a
    :class:`StreamError`), server-sent events otherwise."""
    chunks = iter(chunks)
    head = b""
    for chunk in chunks:  # the prelude may come in pieces
        head += chunk
        if len(head) >= PRELUDE:
            break
    body = chain((head,), chunks)
    if not starts_eventstream(head):
        yield from iter_events(body)
        return
    decoder = EventStreamDecoder()
    for chunk in body:
        yield from decoder.feed(chunk)
    yield from decoder.close()


# --------------------------------------------------------------------------- options


def _finite(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return value


def positive_number(text: str) -> float:
    """An option's value that must be a finite number above 0."""
    value = _finite(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, not {text}")
    return value


def seconds(text: str) -> float:
    """An option's value that must be a finite number of seconds, 0 or more."""
    value = _finite(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def positive_int(text: str) -> int:
    """An option's value that must be a whole number above 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {text}")
    return value


#: Keywords that make a mapping a JSON Schema rather than ``{tool name: schema}``.
_SCHEMA_KEYWORDS = frozenset(
    {"type", "properties", "required", "items", "enum", "const", "anyOf", "oneOf", "allOf"}
    | {"$ref", "$defs", "$schema", "additionalProperties", "patternProperties", "not"}
)


def _as_tools(data: object) -> object:
    """What a ``--schema`` file holds, as ``tools=`` takes it: a list of tool definitions, a
    request body (its ``tools``), one tool definition, one JSON Schema (for every tool: ``"*"``)
    or a mapping ``{tool name: schema}``."""
    if isinstance(data, bool):
        return {"*": data}
    if not isinstance(data, dict):
        return data
    if isinstance(data.get("tools"), list):
        return data["tools"]
    function = data.get("function")
    if isinstance(data.get("name"), str) or (isinstance(function, dict) and "name" in function):
        return [data]
    if not data or _SCHEMA_KEYWORDS & data.keys():
        return {"*": data}
    return data


def schema_file(path: str) -> dict[str, Schema]:
    """``--schema FILE``: a JSON file with one JSON Schema for every tool call, a mapping
    ``{tool name: schema}``, a list of tool definitions in any provider's shape, or a request
    body with its ``tools``; compiled once. Anything wrong is a usage error."""
    try:
        with open(path, "rb") as file:
            data = loads(file.read())
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"{exc.strerror or exc}: {path}") from None
    except JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"{path} is not JSON: {exc}") from None
    try:
        schemas = tool_schemas(_as_tools(data))
    except (TypeError, ValueError) as exc:
        raise argparse.ArgumentTypeError(f"{path}: {exc}") from None
    if not schemas:
        raise argparse.ArgumentTypeError(f"{path} defines no tool with an input schema")
    return schemas


# --------------------------------------------------------------------------- input


#: While the input has nothing for us, how often ``idle()`` is called again, in seconds: a
#: terminal resized meanwhile gets its live region drawn anew without waiting for input.
IDLE_EVERY = 0.1


def _wait(fd: int, idle: Callable[[], None]) -> None:
    """Until ``fd`` has input: ``idle()`` before the wait, and again every
    :data:`IDLE_EVERY` seconds of it (once, where ``fd`` cannot be watched)."""
    try:
        if select.select([fd], [], [], 0)[0]:
            return
        idle()
        while not select.select([fd], [], [], IDLE_EVERY)[0]:
            idle()
    except (OSError, ValueError):
        idle()


class Source:
    """The input of a command, read in the pieces it arrives in."""

    #: How many of the first bytes are kept, to say what the input is (:func:`body_kind`).
    HEAD = BODY_HEAD

    def __init__(self, file: IO[bytes], name: str, *, owned: bool = True) -> None:
        self.file = file
        #: What the input is called in messages (``"standard input"`` for ``-``).
        self.name = name
        #: Whether it is read as it arrives (standard input), rather than from a file.
        self.live = not owned
        self._owned = owned
        #: How many bytes were read.
        self.size = 0
        #: The first bytes read.
        self.head = b""

    @classmethod
    def open(cls, path: str) -> Source:
        """The file at ``path``, or standard input for ``-``."""
        if path == "-":
            stdin = sys.stdin
            if stdin is None:
                raise CommandError("standard input is closed")
            return cls(stdin.buffer, "standard input", owned=False)
        try:
            return cls(open(path, "rb"), path)
        except OSError as exc:
            raise CommandError(f"{exc.strerror or exc}: {path}") from None

    @classmethod
    def example(cls) -> Source:
        """The example recording: the package's copy, or else the checkout's."""
        packaged = resources.files("jsonsnap") / "examples" / EXAMPLE
        if packaged.is_file():
            return cls(packaged.open("rb"), f"the example recording ({EXAMPLE})")
        if _CHECKOUT_EXAMPLE.is_file():
            return cls(_CHECKOUT_EXAMPLE.open("rb"), f"the example recording ({EXAMPLE})")
        raise CommandError(f"the example recording ({EXAMPLE}) is not installed")

    def chunks(self, size: int, idle: Callable[[], None] | None = None) -> Iterator[bytes]:
        """The bytes, at most ``size`` at a time; ``idle()`` before a read that would wait,
        and now and then while it waits."""
        try:
            fd = self.file.fileno()
        except (AttributeError, OSError, ValueError):
            fd = -1
        while True:
            if idle is not None and fd >= 0:
                _wait(fd, idle)
            try:
                chunk = os.read(fd, size) if fd >= 0 else self.file.read(size)
            except OSError as exc:
                raise CommandError(f"cannot read {self.name}: {exc.strerror or exc}") from None
            if not chunk:
                return
            if len(self.head) < self.HEAD:
                self.head += chunk[: self.HEAD - len(self.head)]
            self.size += len(chunk)
            yield chunk

    def close(self) -> None:
        if self._owned:
            self.file.close()

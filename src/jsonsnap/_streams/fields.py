"""Reading an event's fields: each check, on failure, says which field of which event.

An accumulator checks every field of an event before it changes anything (a rejected event
leaves the result as it was). :class:`EventFields` is the one object that does it: each method
takes the value and what it is (``"the block index"``), and returns the value as the type the
protocol promises or raises a :class:`StreamError` such as ``malformed content_block_delta
event: the delta is a list, not an object``. The accumulator holds one, and tells it the type
of the event being read (``kind``) as it dispatches.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .._errors import StreamError
from .._jsontext import describe

#: The largest index an event may name, plus one.
INDEX_LIMIT: Final = 2**63


class EventFields:
    """The checks of an event's fields (see the module docstring); ``kind`` is the type of
    the event being read, for the messages."""

    __slots__ = ("kind",)

    def __init__(self) -> None:
        self.kind = ""

    def malformed(self, what: str) -> StreamError:
        return StreamError(f"malformed {self.kind} event: {what}")

    def string(self, value: Any, what: str) -> str:
        if not isinstance(value, str):
            raise self.malformed(f"{what} is {describe(value)}, not a string")
        return value

    def opt_string(self, value: Any, what: str) -> str | None:
        return None if value is None else self.string(value, what)

    def mapping(self, value: Any, what: str) -> Mapping[str, Any]:
        # (A dict, the commonest, is seen at once: a check against the ABC costs far more.)
        if type(value) is not dict and not isinstance(value, Mapping):
            raise self.malformed(f"{what} is {describe(value)}, not an object")
        return value

    def array(self, value: Any, what: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.malformed(f"{what} is {describe(value)}, not a list")
        return value

    def key(self, value: Any, what: str) -> int:
        """An index that names a thing (a choice, a tool call) rather than a place in a list:
        a count, from 0 to 2**63 - 1 (so that messages and reprs can always print it)."""
        if type(value) is not int or not 0 <= value < INDEX_LIMIT:
            raise self.malformed(f"{what} is {describe(value)}, not an index")
        return value

    def next_place(self, value: Any, what: str, items: list[Any]) -> int:
        """The place of a new block or item: right after the last."""
        index = self.key(value, f"the {what} index")
        if index != len(items):
            raise StreamError(f"{self.kind} for {what} {index}, expected {len(items)}")
        return index

    def place(self, value: Any, what: str, items: list[Any], *, extend: bool) -> int:
        """A place in ``items``: an item there (or, with ``extend``, the next one). An index
        never extends a list by more than one."""
        index = self.key(value, what)
        if index < len(items) or (extend and index == len(items)):
            return index
        there = f"the next one is {len(items)}" if extend else f"there are {len(items)}"
        raise StreamError(f"{self.kind} for {what} {index}, which does not exist ({there})")

    def check_text(self, container: Mapping[str, Any], key: str) -> None:
        """Check the text a delta will grow (absent and ``None`` count as empty)."""
        old = container.get(key)
        if old is not None:
            self.string(old, f"the {key} so far")

    @staticmethod
    def append(container: dict[str, Any], key: str, text: str) -> None:
        """``container[key] += text``, in place when CPython can (the dict lets go of the
        string meanwhile); the caller checked the old value with :meth:`check_text`. (Typed: a
        compiled build then appends in place too.)"""
        s: str = container.get(key) or ""
        container[key] = None
        s += text
        container[key] = s

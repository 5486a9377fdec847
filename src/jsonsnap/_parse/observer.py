"""Where a value is, and who hears of it: the interfaces of the tree builder.

The watched builder (``watched``) reports every value that appears, grows or completes to an
:class:`Observer` (the change recorder in ``changes``), saying where the value is as
``(node, key)``: the :class:`Node` of the container that holds it (``None`` for the root value)
and its key or index there. A node knows its parent, so a path is made only when someone asks
for it, and reporting a value 10,000 levels deep costs what reporting one at the top does.

The tree reports in document order and while the parts are being built, so an observer can
keep its own stack of the open containers: a container's ``started`` comes before anything
inside it, and its ``completed`` after (and after the tree has left it).

A :class:`Checker` (the schema checker, ``jsonsnap._schema.checker``) is asked about each
builder call *before* the tree carries it out, so that a violation it raises leaves the value
as it was; it reads where the call is about through a :class:`Cursor` (the automaton,
read-only) and asks it to read a string exactly when each character's place matters.

This module owns those interfaces and the nodes and paths (and hands on the one "nothing"
marker, ``jsonsnap._jsontext.NOTHING``); it builds and reads no value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Protocol

from .._jsontext import NOTHING as _NOTHING

#: Bound here as a constant: the compiled build reads it as one (not from the module's dict).
NOTHING: Final[Any] = _NOTHING

__all__ = [
    "NOTHING",
    "Checker",
    "Cursor",
    "Key",
    "Node",
    "Observer",
    "depth_of",
    "node",
    "path_of",
]


Key = str | int | None


#: Where an open (or closed) array or object is: the :data:`Node` of the container that holds
#: it (``None`` for the root value), its key or index there, and its depth (0 for the root).
#: A plain tuple: once the garbage collector has seen one whose parent it has seen, it stops
#: looking at it, so a million nested containers add nothing to each collection.
Node = tuple[Any, Key, int]


def node(parent: Node | None, key: Key) -> Node:
    """The place of a container that ``key`` holds in the container of ``parent``."""
    return (parent, key, 0 if parent is None else parent[2] + 1)


def depth_of(parent: Node | None) -> int:
    """The depth (the length of the path) of a value in the container of ``parent``."""
    return 0 if parent is None else parent[2] + 1


def path_of(parent: Node | None, key: Key) -> tuple[str | int, ...]:
    """The path of the value at ``key`` in the container of ``parent`` (the root for ``None``),
    made by walking up: its cost is the path's length, paid only when a path is asked for."""
    if parent is None:
        return ()
    keys: list[Any] = [key]
    while parent[0] is not None:
        keys.append(parent[1])
        parent = parent[0]
    keys.reverse()
    return tuple(keys)


class Observer(Protocol):
    """What hears about the value as it is built (the change recorder)."""

    def started(self, node: Node | None, key: Key, kind: str) -> None:
        """An empty array, object or string (``kind``) appeared."""

    def appended(self, node: Node | None, key: Key, text: str) -> None:
        """The open string grew by ``text`` (reported when the tree is flushed)."""

    def completed(self, node: Node | None, key: Key, value: Any) -> None:
        """The value is final (after the object hooks)."""

    def string(self, node: Node | None, key: Key, value: str) -> None:
        """A string read whole appeared, grew by ``value`` and is final (one call for what
        ``started``, ``appended`` and ``completed`` say of a string read in pieces)."""

    def ended(self, node: Node | None, key: Key, rest: str, value: str) -> None:
        """The open string ends: it grew by ``rest`` (maybe empty) since the last report, and
        its final value is ``value``."""

    def restart(self) -> None:
        """The next top-level value of the stream begins (several values per stream)."""


class Cursor(Protocol):
    """Where the automaton is, for a checker: read-only, but for :meth:`read_exactly`.

    Set before the builder call they are about (see ``tokens``): ``at``, the absolute
    position of the character being read (a bracket, a literal's first character, the
    character after a number); ``quote``, the open string's opening quote; ``number_at``,
    where the number or literal being completed began; ``match``, the fast path's last match
    (an element or a member read whole, its groups ``key``, ``string``, ``number`` and
    ``literal`` placed from ``offset``; read a character at a time, ``chars``, one is placed
    instead by ``quote``, its key's opening quote, ``number_at``, its value's first character,
    and ``at``, the character after the value); ``buf``, the text being read, from ``offset``;
    ``lines`` and ``line_start``, the newlines before ``offset``; ``state``, the state.
    """

    @property
    def at(self) -> int: ...
    @property
    def quote(self) -> int: ...
    @property
    def number_at(self) -> int: ...
    @property
    def match(self) -> Any: ...
    @property
    def buf(self) -> str: ...
    @property
    def offset(self) -> int: ...
    @property
    def lines(self) -> int: ...
    @property
    def line_start(self) -> int: ...
    @property
    def state(self) -> int: ...

    def read_exactly(self, on: bool, vet: Callable[[str, int], bool] | None = None) -> None:
        """Read the open string (or key) one escape at a time, so that each character's place
        is known (``False``: with the fast paths again). With ``vet`` (the checker's
        :meth:`Checker.run`), the fast paths stay and each run of text they decode is vetted
        first; a run refused is read one escape at a time."""


class Checker(Protocol):
    """What checks each value before the tree links it (the schema checker).

    Each call comes before the tree carries out the builder call of the same name (but for
    :meth:`closed`, after it), with the tree as it was; what the checker finds it raises, or
    keeps, as it is told.
    """

    #: Whether the open string or key is read exactly: only then is the checker told
    #: :meth:`append` and :meth:`string_end` (a plain attribute, read once per call).
    exact: bool

    def open(self, container: Any) -> None:
        """An array or object begins (the tree links and pushes it next)."""

    def close(self, value: Any) -> bool:
        """The open ``value`` ends (the tree pops it next, and applies the hooks); whether
        the checker is to be told :meth:`closed` then."""

    def closed(self, value: Any) -> None:
        """The tree has left ``value`` (as it was before the hooks): it is complete in its
        container (called only when :meth:`close` asked for it)."""

    def begins(self) -> None:
        """A number or literal begins, and the fragment ends before it does."""

    def scalar(self, value: Any) -> None:
        """A whole scalar, read by the automaton (it began at ``number_at``)."""

    def element(self, value: Any) -> None:
        """A whole scalar array element, read by a fast path (placed by ``match``)."""

    def member(self, key: str, value: Any) -> None:
        """A member read whole by a fast path (placed by ``match``; the tree's key is set)."""

    def key(self, text: str) -> None:
        """The key of the member being read, read whole by a fast path."""

    def string_start(self) -> None:
        """A string value begins (at ``quote``)."""

    def key_start(self) -> None:
        """A key begins (at ``quote``)."""

    def append(self, text: str, width: int, length: int) -> None:
        """More of the open string or key, read exactly: ``text``, read from ``length``
        characters of input (``width`` 1: one each; 0: the characters of one escape)."""

    def run(self, text: str, length: int) -> bool:
        """A run of the open string read by a fast path (``vet``, see ``Cursor.read_exactly``):
        ``text``, decoded from ``length`` characters of input, escapes among them. Count it
        whole and say ``True`` when nothing in it fails, else change nothing and say
        ``False`` (the run is then read again one escape at a time, and told by
        :meth:`append`)."""

    def string_end(self) -> None:
        """The open string or key, read exactly, ends: its closing quote is read."""

"""Where a value is, and what hears of it: the observer interface of the tree builder.

The builder (``_tree``) reports every value that appears, grows or completes to an
:class:`Observer` (the change recorder in ``_changes``; a schema checker), saying where the
value is as ``(node, key)``: the :class:`Node` of the container that holds it (``None`` for the
root value) and its key or index there. A node knows its parent, so a path is made only when
someone asks for it, and reporting a value 10,000 levels deep costs what reporting one at the
top does. This module owns those nodes and paths, and the one "nothing yet" marker; it builds
and reads no value.

The tree reports in document order and while the parts are being built, so an observer can
keep its own stack of the open containers: a container's ``started`` comes before anything
inside it, and its ``completed`` after (and after the tree has left it).
"""

from __future__ import annotations

from typing import Any, Final, Protocol

__all__ = ["NOTHING", "Key", "Node", "Observer", "depth_of", "node", "path_of"]


class _Nothing:
    """The one "nothing yet" marker: a slot with no value to show."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<nothing yet>"


NOTHING: Final[Any] = _Nothing()

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
    """What hears about the value as it is built (the change recorder; a schema checker)."""

    def started(self, node: Node | None, key: Key, kind: str) -> None:
        """An empty array, object or string (``kind``) appeared."""

    def appended(self, node: Node | None, key: Key, text: str) -> None:
        """The open string grew by ``text`` (reported when the tree is flushed)."""

    def completed(self, node: Node | None, key: Key, value: Any) -> None:
        """The value is final (after the object hooks)."""

    def restart(self) -> None:
        """The next top-level value of the stream begins (several values per stream)."""

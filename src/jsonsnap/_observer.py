"""Where a value is, and what hears of it: the observer interface of the tree builder.

The builder (``_tree``) reports every value that appears, grows or completes to an
:class:`Observer` (the change recorder in ``_changes``; a schema checker), saying where the
value is as ``(node, key)``: the :class:`Node` of the container that holds it (``None`` for the
root value) and its key or index there. A node knows its parent, so a path is made only when
someone asks for it, and reporting a value 10,000 levels deep costs what reporting one at the
top does. This module owns those nodes and paths, and the one "nothing yet" marker; it builds
and reads no value.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

__all__ = ["NOTHING", "Key", "Node", "Observer", "path_of"]


class _Nothing:
    """The one "nothing yet" marker: a slot with no value to show."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<nothing yet>"


NOTHING: Final[Any] = _Nothing()

Key = str | int | None


class Node:
    """An open (or closed) container's place in the tree: its parent's node (``None`` for the
    root value) and its key or index there. Paths are made from nodes only when asked for, so
    reporting a value at depth 10,000 costs no more than at depth 1."""

    __slots__ = ("depth", "key", "memo", "parent", "path_cache")

    def __init__(self, parent: Node | None, key: Key) -> None:
        self.parent = parent
        self.key = key
        self.depth: int = 0 if parent is None else parent.depth + 1
        self.path_cache: tuple[str | int, ...] | None = None
        # Answers memoised per subscription, by the change recorder.
        self.memo: dict[int, bool] | None = None

    def path(self) -> tuple[str | int, ...]:
        """The path of this container from the root."""
        cached = self.path_cache
        if cached is None:
            keys: list[str | int] = []
            node: Node | None = self
            while node is not None and node.path_cache is None:
                if node.parent is not None:
                    keys.append(node.key)  # type: ignore[arg-type]
                node = node.parent
            keys.reverse()
            cached = self.path_cache = (*(node.path_cache if node else ()), *keys)  # type: ignore[misc]
        return cached


def path_of(node: Node | None, key: Key) -> tuple[str | int, ...]:
    """The path of the value at ``key`` in the container of ``node`` (the root for ``None``)."""
    if node is None:
        return ()
    return (*node.path(), key)  # type: ignore[arg-type]


class Observer(Protocol):
    """What hears about the value as it is built (the change recorder; a schema checker)."""

    def started(self, node: Node | None, key: Key, kind: str) -> None:
        """An empty array, object or string (``kind``) appeared."""

    def appended(self, node: Node | None, key: Key, text: str) -> None:
        """The open string grew by ``text`` (reported when the tree is flushed)."""

    def completed(self, node: Node | None, key: Key, value: Any) -> None:
        """The value is final (after the object hooks)."""

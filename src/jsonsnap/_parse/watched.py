"""The watched tree: the builder with object hooks, a depth limit and an observer.

:class:`WatchedTree` is a :class:`~jsonsnap._parse.tree.Tree` that also applies
``object_hook`` and ``object_pairs_hook``, keeps ``max_depth``, and reports every value that
appears, grows or completes to its observer (``observer.Observer``: the change recorder) with
where it is, as ``(node, key)``: the node of the container that holds it (``None`` for the
root) and its key or index there. A parser that needs none of these builds with the plain
tree and pays nothing for them.

:class:`CheckingTree` is the watched tree of a parser with a schema: before each builder
call it asks its checker (``observer.Checker``), which may raise, so that a violation leaves
the value as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .observer import Key, Node
from .tree import DepthError, Tree

if TYPE_CHECKING:
    # The recorder and the one checker (an ``observer.Checker``), named for their types only,
    # so that a compiled build calls them directly rather than by looking their methods up;
    # this layer never imports the schema's at run time.
    from .._schema.checker import SchemaChecker
    from .changes import Recorder

__all__ = ["CheckingTree", "WatchedTree"]


class WatchedTree(Tree):
    """A :class:`Tree` with object hooks, a depth limit and an observer.

    Each open container has a node (``nodes``, beside ``stack``) when observed, so
    that reports say where a value is without building its path.
    """

    __slots__ = (
        "mark",
        "max_depth",
        "nodes",
        "object_hook",
        "observer",
        "open_string",
        "pairs",
        "pairs_hook",
        "placed",
    )

    def __init__(
        self,
        partial_strings: bool = True,
        *,
        object_hook: Callable[[dict[str, Any]], Any] | None = None,
        pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
        max_depth: int | None = None,
    ) -> None:
        super().__init__(partial_strings)
        self.object_hook = object_hook
        self.pairs_hook = pairs_hook
        # One list of (key, value) pairs per open object, kept only for object_pairs_hook.
        self.pairs: list[list[tuple[Any, Any]]] | None = [] if pairs_hook else None
        self.max_depth = max_depth
        # The change recorder, an ``observer.Observer`` (named by its class: the compiled
        # build then calls its methods directly, as through no protocol).
        self.observer: Recorder | None = None
        self.placed = False  # whether nodes are kept (for an observer or a checker)
        self.nodes: list[Node] = []
        self.mark = 0  # how much of the open string has been reported
        self.open_string: tuple[Node | None, Key] = (None, None)  # where it is

    def _link(self, value: Any) -> None:
        if self.retracted is not None and self._same_as_retracted(value):
            self.version -= 1  # the value taken back, put back: no change
        Tree._link(self, value)

    def where(self) -> tuple[Node | None, Key]:
        """Where the value in the slot being read is, as ``(node, key)``."""
        stack = self.stack
        if not stack:
            return None, None
        top = stack[-1]
        return self.nodes[-1], len(top) - 1 if type(top) is list else self.keys[-1]

    def _pair(self, value: Any) -> None:
        """The value in the slot being read is final: a member's goes to the pairs for
        ``object_pairs_hook``."""
        stack = self.stack
        if stack and type(stack[-1]) is dict:
            self.pairs[-1].append((self.keys[-1], value))  # type: ignore[index]

    def _completed(self, value: Any) -> None:
        """The value in the slot being read is final: give the pair to ``object_pairs_hook``
        and tell the observer."""
        if self.pairs is not None:
            self._pair(value)
        observer = self.observer
        if observer is not None:
            where, key = self.where()
            observer.completed(where, key, value)

    def member(self, key: str, value: Any) -> None:
        self.keys[-1] = key
        self.scalar(value)

    def element(self, value: Any) -> None:
        self.scalar(value)

    def scalar(self, value: Any) -> None:
        self._link(value)
        if self.pairs is not None:
            self._pair(value)
        observer = self.observer
        if observer is not None:
            where, key = self.where()
            if type(value) is str and self.partial_strings:
                # Read whole: it has not been reported as it grew, as one read in pieces has.
                observer.string(where, key, value)
            else:
                observer.completed(where, key, value)

    def open(self, container: Any) -> None:
        if self.max_depth is not None and len(self.stack) >= self.max_depth:
            raise DepthError(f"Maximum nesting depth of {self.max_depth} exceeded")
        self._link(container)
        if self.pairs is not None:
            self.pairs.append([])
        if self.placed:
            where, key = self.where()
            observer = self.observer
            if observer is not None:
                observer.started(where, key, "array" if type(container) is list else "object")
            self.nodes.append((where, key, 0 if where is None else where[2] + 1))  # node()
        self.stack.append(container)
        self.keys.append(None)

    def close(self) -> None:
        """Pop the innermost container and apply the object hooks to it."""
        stack = self.stack
        value = stack.pop()
        self.keys.pop()
        if self.placed:
            self.nodes.pop()
        pairs = self.pairs
        if pairs is not None:
            members = pairs.pop()
            if type(value) is dict:
                value = self.pairs_hook(members)  # type: ignore[misc]
                self._relink(value)
        elif self.object_hook is not None and type(value) is dict:
            value = self.object_hook(value)
            self._relink(value)
        self._completed(value)

    def _relink(self, value: Any) -> None:
        """Replace the value just closed by what a hook made of it."""
        self.version += 1
        stack = self.stack
        if not stack:
            self.box[0] = value
        elif type(top := stack[-1]) is list:
            top[-1] = value
        else:
            top[self.keys[-1]] = value

    def string_start(self) -> None:
        super().string_start()
        observer = self.observer
        if observer is not None and self.slot is not None:
            self.mark = 0
            self.open_string = where, key = self.where()
            observer.started(where, key, "string")

    def string_end(self) -> bool:
        slot = self.slot
        if slot is None:
            s = self.pending[0]
            if Tree.string_end(self):
                return True
            self._completed(s)  # hidden by partial_strings=False: complete at once
            return False
        s = slot[self.slot_key]
        self.slot = None
        if self.pairs is not None:
            self._pair(s)
        observer = self.observer
        if observer is not None:
            where, key = self.open_string
            observer.ended(where, key, s[self.mark :], s)
        return False

    def restart(self) -> None:
        super().restart()
        if self.observer is not None:
            self.observer.restart()

    def flush(self) -> None:
        """Report the growth of the open string since it was last reported."""
        slot = self.slot
        observer = self.observer
        if slot is not None and observer is not None:
            s: str = slot[self.slot_key]
            mark = self.mark
            if len(s) > mark:
                where, key = self.open_string
                observer.appended(where, key, s[mark:] if mark else s)
                self.mark = len(s)


class CheckingTree(WatchedTree):
    """A :class:`WatchedTree` that asks its checker (``observer.Checker``, the schema
    checker) about each builder call before carrying it out."""

    __slots__ = ("checker",)

    def __init__(
        self,
        checker: SchemaChecker,
        partial_strings: bool = True,
        *,
        object_hook: Callable[[dict[str, Any]], Any] | None = None,
        pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
        max_depth: int | None = None,
    ) -> None:
        super().__init__(
            partial_strings, object_hook=object_hook, pairs_hook=pairs_hook, max_depth=max_depth
        )
        self.checker = checker
        self.placed = True  # (the checker says where a value is by its node)

    # (Each call below writes out the watched tree's own call when the tree has nothing to
    # do but link and keep the nodes: no observer, no object hooks, no depth limit, no value
    # taken back. A checked parse makes these calls once per value.)

    def open(self, container: Any) -> None:
        self.checker.open(container)
        if self.observer is not None or self.pairs is not None or self.max_depth is not None:
            WatchedTree.open(self, container)
            return
        if self.retracted is not None and self._same_as_retracted(container):
            self.version -= 1
        self.version += 1
        stack = self.stack
        nodes = self.nodes
        if not stack:
            self.box[0] = container
            nodes.append((None, None, 0))
        else:
            top = stack[-1]
            parent = nodes[-1]
            if type(top) is list:
                nodes.append((parent, len(top), parent[2] + 1))
                top.append(container)
            else:
                key = self.keys[-1]
                nodes.append((parent, key, parent[2] + 1))
                top[key] = container
        stack.append(container)
        self.keys.append(None)

    def close(self) -> None:
        value = self.stack[-1]
        checker = self.checker
        tell = checker.close(value)
        if self.observer is None and self.pairs is None and self.object_hook is None:
            self.stack.pop()
            self.keys.pop()
            self.nodes.pop()
        else:
            WatchedTree.close(self)
        if tell:
            checker.closed(value)

    def begins(self) -> None:
        self.checker.begins()

    def scalar(self, value: Any) -> None:
        self.checker.scalar(value)
        if self.observer is None and self.pairs is None and self.retracted is None:
            Tree._link(self, value)
        else:
            WatchedTree.scalar(self, value)

    def element(self, value: Any) -> None:
        self.checker.element(value)
        if self.observer is None and self.pairs is None and self.retracted is None:
            self.version += 1
            self.stack[-1].append(value)
        else:
            WatchedTree.scalar(self, value)

    def member(self, key: str, value: Any) -> None:
        self.keys[-1] = key  # (the checker reads the member's key where the tree keeps it)
        self.checker.member(key, value)
        if self.observer is None and self.pairs is None and self.retracted is None:
            self.version += 1
            self.stack[-1][key] = value
        else:
            WatchedTree.scalar(self, value)

    def key(self, text: str) -> None:
        self.checker.key(text)
        self.keys[-1] = text

    def string_start(self) -> None:
        self.checker.string_start()
        if self.observer is None:
            Tree.string_start(self)
        else:
            WatchedTree.string_start(self)

    def key_start(self) -> None:
        self.checker.key_start()
        Tree.key_start(self)

    def append(self, text: str) -> None:
        checker = self.checker
        if checker.exact:
            checker.append(text, 1, len(text))
        Tree.append(self, text)

    def escape(self, text: str, length: int) -> None:
        checker = self.checker
        if checker.exact:
            checker.append(text, 0, length)
        Tree.append(self, text)

    def string_end(self) -> bool:
        checker = self.checker
        if checker.exact:
            checker.string_end()
        if self.observer is None and self.pairs is None:
            return Tree.string_end(self)
        return WatchedTree.string_end(self)

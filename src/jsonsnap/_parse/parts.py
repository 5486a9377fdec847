"""The parts a parser is made of, made for its options: the tree and the automaton.

:class:`~jsonsnap.Parser` holds its parts and hands each query to the one that knows the
answer; this module makes them. :func:`make_tree` picks the builder: the plain
:class:`~jsonsnap._parse.tree.Tree` when nothing listens and no hook, depth limit or
provisional value needs the watched one; :func:`make_automaton` the reader: strict, or
tolerant with ``repair=``. :class:`Life` is the parser's lifecycle. Nothing here reads input
or changes a value.
"""

from __future__ import annotations

from enum import Enum
from typing import Final

from .automaton import Automaton
from .fast import FastPaths
from .options import Options
from .tolerant import Tolerant
from .tree import Tree
from .watched import WatchedTree

__all__ = ["CLOSED", "FAILED", "OPEN", "Life", "make_automaton", "make_tree"]


class Life(Enum):
    """The parser's lifecycle: open, then closed by close() or failed by an error."""

    OPEN = "open"
    FAILED = "failed"
    CLOSED = "closed"


OPEN: Final = Life.OPEN
FAILED: Final = Life.FAILED
CLOSED: Final = Life.CLOSED


def make_tree(options: Options, fast: FastPaths, watched: bool) -> Tree:
    """A plain tree, or a watched one for hooks, a depth limit, provisional values or an
    observer (or when the ``plain_tree`` fast path is off)."""
    if (
        watched
        or options.hooked
        or options.max_depth is not None
        or options.partial_numbers
        or options.partial_literals
        or not fast.plain_tree
    ):
        return WatchedTree(
            options.partial_strings,
            object_hook=options.object_hook,
            pairs_hook=options.pairs_hook,
            max_depth=options.max_depth,
        )
    return Tree(options.partial_strings)


def make_automaton(
    tree: Tree, fast: FastPaths, options: Options, repair: frozenset[str] | None
) -> Automaton:
    """The automaton that reads into ``tree``: strict, or tolerant with ``repair``."""
    if repair is None:
        return Automaton(tree, fast, options)
    return Tolerant(tree, fast, options, repair)

"""Violations: a failed check positioned, worded and reported (the checker's :class:`Report`,
which makes :class:`~jsonsnap.SchemaError`).

A check that fails hands its error to :meth:`Report.fail` with its *owner*: ``None`` when
the value must pass it, or the :class:`Branch` of an ``anyOf``/``oneOf`` alternative it
belongs to. A failure kills the branch; the :class:`Group` fails when its last branch dies
(with the last branch's own error when that branch had outlived the others, else with the
group's), and what reaches the top is reported: raised at once (``on_violation="raise"``), or
kept once per place (position and path) and keyword (``"collect"``): the first
:data:`MAX_VIOLATIONS` of them, fewer when their paths add up to :data:`MAX_PATH_STEPS` (each
holds its path, as a tuple, a pointer and in its message); the others are counted in
``dropped``, and cost no path, line or message. Failures found by one event at several
places are reported in the order of their places, as they would be found one character at a
time. Positions become lines and columns by a :class:`Locator`, counted on from the last
position located in the same buffer, so that many violations in one fragment cost its length
once.
"""

from __future__ import annotations

from typing import Any

from .._errors import SchemaError
from .._jsontext import describe
from .._parse.observer import Cursor, Key, depth_of, path_of
from .shape import Shape

__all__ = [
    "MAX_PATH_STEPS",
    "MAX_VIOLATIONS",
    "Branch",
    "Fault",
    "Group",
    "Locator",
    "Report",
    "Where",
    "alive",
    "bury",
    "settle",
]

#: How many violations ``on_violation="collect"`` keeps; the others are only counted.
MAX_VIOLATIONS = 1000
#: How many steps the paths of the violations kept may have in all (a violation 4,000 levels
#: deep holds three copies of its 4,000 steps).
MAX_PATH_STEPS = 100_000

#: The most characters of an alternative's message that the message of its group repeats.
MAX_INNER = 200
#: Where a value is: the node of its container (``None`` for the root) and its key or index.
Where = tuple[Any, Key]


class Branch:
    """One alternative of an ``anyOf``/``oneOf``: alive until one of its checks fails, or the
    branch it is in dies (then it is marked dead too, so that liveness is one test)."""

    __slots__ = ("children", "dead", "fault", "group")

    def __init__(self, group: Group) -> None:
        self.group = group
        self.dead = False
        self.fault: Fault | None = None
        # The groups of values still being read whose checks belong to this branch.
        self.children: set[Group] | None = None
        group.branches.append(self)
        group.left += 1


class Group:
    """An ``anyOf`` or ``oneOf`` on one value."""

    __slots__ = (
        "branches",
        "failed",
        "keyword",
        "left",
        "owner",
        "shape",
        "single_at",
        "start",
        "where",
    )

    def __init__(
        self, owner: Branch | None, keyword: str, shape: Shape, where: Where, start: int
    ) -> None:
        self.owner = owner
        if owner is not None:
            if owner.children is None:
                owner.children = set()
            owner.children.add(self)
        self.left = 0  # branches alive
        self.keyword = keyword
        self.shape = shape
        self.branches: list[Branch] = []
        self.failed = False
        self.single_at = -1  # where all branches but one had died
        self.where = where
        self.start = start


class Fault:
    """A failed check, before it is known to be reported: what a :class:`SchemaError` is made
    of, without the path and the line (which cost as much as the depth), made only for the
    violations that reach the top."""

    __slots__ = ("expected", "found", "keyword", "msg", "pos", "shape", "start", "where")

    def __init__(
        self,
        msg: str,
        keyword: str,
        expected: Any,
        found: Any,
        pos: int,
        where: Where,
        start: int,
        shape: Shape,
    ) -> None:
        self.msg = msg
        self.keyword = keyword
        self.expected = expected
        self.found = found
        self.pos = pos
        self.where = where
        self.start = start
        self.shape = shape


def alive(owner: Branch | None) -> bool:
    """Whether a check of this owner still counts (its branch and the ones above are alive)."""
    return owner is None or not owner.dead


def bury(branch: Branch) -> None:
    """``branch`` died: so do the branches inside it (each once, so the work is bounded by
    the branches ever made)."""
    todo = [branch]
    while todo:
        for group in todo.pop().children or ():
            for inner in group.branches:
                if not inner.dead:
                    inner.dead = True
                    group.left -= 1
                    todo.append(inner)


def settle(group: Group) -> None:
    """The value of ``group`` is complete: its branches can no longer die of it."""
    if group.owner is not None:
        children = group.owner.children
        if children is not None:
            children.discard(group)


class Locator:
    """Lines and columns of positions, from the automaton's ``buf``, ``offset`` and
    ``lines`` (a position before ``offset`` is in the token being read, which holds no
    newline), counted on from the last position located in the same buffer."""

    __slots__ = ("mark",)

    def __init__(self) -> None:
        # (buffer, its offset, index, newlines before it, the index after the last of them)
        self.mark: tuple[str, int, int, int, int] | None = None

    def locate(self, auto: Cursor, pos: int) -> tuple[int, int]:
        offset = auto.offset
        if pos >= offset:
            buf = auto.buf
            index = pos - offset
            mark = self.mark
            if mark is not None and mark[0] is buf and mark[1] == offset and mark[2] <= index:
                _, _, at, newlines, line = mark
            else:
                at = newlines = line = 0
            more = buf.count("\n", at, index)
            if more:
                newlines += more
                line = buf.rfind("\n", at, index) + 1
            self.mark = (buf, offset, index, newlines, line)
            if newlines:
                return auto.lines + newlines + 1, index - line + 1
        return auto.lines + 1, pos - auto.line_start + 1


class Report:
    """Making, positioning and reporting violations: the checker's fault collector."""

    __slots__ = ("cursor", "faults", "locator", "raise_", "shared", "steps", "violations")

    def __init__(self, raise_: bool) -> None:
        self.raise_ = raise_
        self.cursor: Cursor | None = None  # the automaton, once the parser has made it
        self.violations: list[SchemaError] = []
        # (collect) the violations found, kept or not: (position, keyword, node id, key)
        self.faults: set[tuple[int, str, int, Key]] = set()
        self.steps = 0  # of the paths of the violations kept (beyond MAX_PATH_STEPS: full)
        self.locator = Locator()
        self.shared: dict[tuple[int, str], list[Any]] = {}

    @property
    def dropped(self) -> int:
        """How many violations were found beyond those kept."""
        return len(self.faults) - len(self.violations)

    def _room(self, steps: int) -> bool:
        """Whether one more violation, whose path has ``steps`` steps, is kept (once one is
        not, none is)."""
        if len(self.violations) < MAX_VIOLATIONS and self.steps + steps <= MAX_PATH_STEPS:
            self.steps += steps
            return True
        self.steps = MAX_PATH_STEPS + 1  # full: the violations kept are the first ones
        return False

    def fail_all(self, failed: list[tuple[Branch | None, Fault]]) -> None:
        """Failures one event found (at places from the event's text): each in turn, in the
        order of their places (stable: at one place, in the order of the schema)."""
        failed.sort(key=_place)
        for owner, err in failed:
            self.fail(owner, err)

    def expected(self, shape: Shape, keyword: str, values: tuple[Any, ...]) -> list[Any]:
        """The list of what ``keyword`` of ``shape`` allows, made once: the ``expected`` of
        every violation of it (a violation holds no copy of a long enum)."""
        key = (id(shape), keyword)
        found = self.shared.get(key)
        if found is None:
            found = self.shared[key] = list(values)
        return found

    def fail(self, owner: Branch | None, err: Fault) -> None:
        """A check of ``owner`` failed with ``err``: kill the branch, fail its group when it
        was the last, report what reaches the top."""
        while owner is not None:
            if owner.dead:
                return
            owner.dead = True
            owner.fault = err
            bury(owner)
            group = owner.group
            group.left -= 1
            if group.failed:
                return
            if group.left == 1 and group.single_at < 0:
                group.single_at = err.pos
            if group.left:
                return
            group.failed = True
            if not (0 <= group.single_at < err.pos):  # they died together: the group's fault
                n = len(group.branches)
                inner = err.msg  # (cut: groups in groups would each repeat the whole of it)
                if len(inner) > MAX_INNER:
                    inner = inner[: MAX_INNER - 1] + "…"
                err = Fault(
                    f"matches none of the {n} alternatives of {group.keyword} ({inner})",
                    group.keyword,
                    n,
                    err.found,
                    err.pos,
                    group.where,
                    group.start,
                    group.shape,
                )
            owner = group.owner
        self._report(err)

    def _report(self, fault: Fault) -> None:
        """A violation reached the top: made a :class:`SchemaError` (its path, line and column
        are found now, while the automaton is still at it), raised or kept (or counted)."""
        keyword = fault.keyword
        if not self.raise_:
            node, at = fault.where  # (the node is alive: its path is the place's)
            key = (fault.pos, keyword, id(node), at)
            if key in self.faults:
                return
            self.faults.add(key)
            if not self._room(depth_of(fault.where[0])):
                return  # counted in dropped
        lineno, colno = self.locator.locate(self.cursor, fault.pos)  # type: ignore[arg-type]
        pointer = fault.shape.pointer
        if keyword != "false" and not pointer.endswith("/" + keyword):
            pointer = f"{pointer}/{keyword}"
        err = SchemaError(
            fault.msg,
            path=path_of(*fault.where),
            pos=fault.pos,
            lineno=lineno,
            colno=colno,
            start=fault.start,
            keyword=keyword,
            expected=fault.expected,
            found=fault.found,
            schema_path=pointer,
        )
        if self.raise_:
            raise err
        self.violations.append(err)

    def enum_error(self, shape: Shape, found: Any, pos: int, where: Where, start: int) -> Fault:
        enum = shape.enum or ()
        if shape.enum_kw == "const":
            msg = f"expected {describe(enum[0], as_json=True)}" if enum else "no value is allowed"
            return Fault(msg, "const", enum[0] if enum else None, found, pos, where, start, shape)
        shown = ", ".join(describe(v, as_json=True, limit=30) for v in enum[:8]) + (
            ", ..." if len(enum) > 8 else ""
        )
        expected = self.expected(shape, "enum", enum)
        return Fault(f"expected one of {shown}", "enum", expected, found, pos, where, start, shape)

    def number_error(
        self,
        fault: tuple[str, Any],
        value: Any,
        pos: int,
        where: Where,
        start: int,
        shape: Shape,
    ) -> Fault:
        keyword, limit = fault
        words = {
            "minimum": "at least",
            "maximum": "at most",
            "exclusiveMinimum": "more than",
            "exclusiveMaximum": "less than",
            "multipleOf": "a multiple of",
            "type": "",
        }[keyword]
        return Fault(
            f"expected {words} {limit}, found {describe(value, as_json=True)}",
            keyword,
            limit,
            value,
            pos,
            where,
            start,
            shape,
        )


def _place(failure: tuple[Branch | None, Fault]) -> int:
    return failure[1].pos

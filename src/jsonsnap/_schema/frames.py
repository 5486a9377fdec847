"""The checks on each value: the shapes a value must match, found when it begins, and the
keywords of containers and scalars each event decides (the part that reads the schema).

A value's *leaves* are pairs of a shape and an owner (see ``faults``), found by
:meth:`Checks.begin` from its container's leaves and the key or index (``properties``,
``patternProperties``, ``additionalProperties``, ``prefixItems``, ``items``), and expanded
through ``allOf`` and ``$ref`` (the same owner) and ``anyOf``/``oneOf`` (a group of branches).
An open array or object keeps them in a :class:`Frame`; so does an open string whose
characters are checked (``strings``). :meth:`Checks.one_shape` and :meth:`Checks.quick` are
the commonest case written out: one shape on the container, one simple shape for the value.
:class:`Checks` reads the checked tree (where a value goes) and hands what fails to the
checker's ``faults.Report``; it never changes the value.
"""

from __future__ import annotations

from typing import Any, Final

from .._jsontext import describe
from .._parse.watched import WatchedTree
from .equality import (
    ARRAY,
    BOOLEAN,
    INTEGER,
    KIND_NAMES,
    NULL,
    NUMBER,
    OBJECT,
    STRING,
    canonical,
    integral,
    json_equal,
    kind_of,
    type_names,
)
from .faults import Branch, Fault, Group, Report, Where, alive, settle
from .shape import Shape, number_fault
from .strings import STRINGS, Leaf, refused

__all__ = ["KIND", "NOT_SIMPLE", "NO_GROUPS", "NUMBERS", "Checks", "Frame"]

#: What ``Checks.one_shape`` says when the value's shapes are not the commonest case.
NOT_SIMPLE: Final[Any] = object()
KIND: Final = {type(None): NULL, bool: BOOLEAN, int: INTEGER, float: NUMBER, str: STRING}
NUMBERS: Final = INTEGER | NUMBER
#: The empty lists of key leaves and groups every frame without them shares (never changed).
_NONE: Final[list[Any]] = []
NO_GROUPS: Final[list[Group]] = []


class Frame:
    """The checks on an open array, object or string."""

    __slots__ = (
        "groups",
        "hashed",
        "keys",
        "kind",
        "leaves",
        "single",
        "start",
        "unique",
        "where",
    )

    def __init__(
        self, kind: int, leaves: list[Leaf], groups: list[Group], where: Where, start: int
    ) -> None:
        self.kind = kind
        self.leaves = leaves
        self.groups = groups
        self.where = where
        self.start = start
        # uniqueItems to check; the leaves that check keys as they are read (closed objects,
        # maxProperties).
        # (uniqueItems is for arrays only, and closed keys for objects only.)
        if len(leaves) == 1:
            shape = leaves[0].shape
            self.unique = shape.unique and kind == ARRAY
            self.keys: list[Leaf] = leaves if shape.keyed and kind == OBJECT else _NONE
            # Whether canonical keys are made of what is inside it (uniqueItems, or its enum).
            self.hashed = self.unique or shape.enum is not None
            # Its one shape, when the value must match it and nothing else (the commonest
            # case: ``Checks.one_shape``).
            self.single: Shape | None = (
                shape if leaves[0].owner is None and not self.unique else None
            )
        else:
            self.unique = kind == ARRAY and any(leaf.shape.unique for leaf in leaves)
            keyed = [leaf for leaf in leaves if leaf.shape.keyed] if kind == OBJECT else None
            self.keys = keyed or _NONE
            self.hashed = self.unique or any(leaf.shape.enum is not None for leaf in leaves)
            self.single = None


class Checks:
    """The checks on each value: its shapes found when it begins, and the keywords of
    containers and scalars decided as the value completes (see the module docstring)."""

    __slots__ = ("enums", "frames", "hashing", "ids", "known", "report", "root_shape", "tree")
    tree: WatchedTree  # the checked tree, read only (set by the checker's attach)

    def __init__(self, root: Shape, report: Report) -> None:
        self.root_shape = root
        self.report = report
        # One frame per open array or object (None: nothing is checked in it), beside the
        # tree's stack.
        self.frames: list[Frame | None] = []
        # The canonical keys of complete containers that an open array's uniqueItems or an
        # open container's enum may ask for again (by id, with the container), the numbers
        # of the containers' keys, the container enum values of each shape in that
        # numbering, and how many such containers are open (none: all three forgotten).
        self.known: dict[int, tuple[Any, Any]] = {}
        self.ids: dict[Any, int] = {}
        self.enums: dict[int, frozenset[Any]] = {}
        self.hashing = 0

    def here(self) -> Where:
        """Where the value about to be linked goes, as ``(node, key)``."""
        stack = self.tree.stack
        if not stack:
            return None, None
        top = stack[-1]
        nodes: list[Any] = self.tree.nodes  # (its own node: a compiled Node is boxed anew)
        return nodes[-1], len(top) if type(top) is list else self.tree.keys[-1]

    def expand(
        self,
        shape: Shape,
        owner: Branch | None,
        leaves: list[Leaf],
        groups: list[Group],
        where: Where,
        start: int,
    ) -> None:
        """The leaves (and groups) of ``shape`` on one value (its expansion, found once when
        the schema is compiled: see ``Shape.expansion``)."""
        if shape.simple:
            if shape.own:
                leaves.append(Leaf(shape, owner))
            return
        owners = [owner]
        for index, sub, keyword, branches in shape.expansion():
            if not keyword:
                leaves.append(Leaf(sub, owners[index]))
                continue
            group = Group(owners[index], keyword, sub, where, start)
            groups.append(group)
            owners.extend(Branch(group) for _ in range(branches))  # (each joins the group)

    def begin(self, kind: int, start: int) -> tuple[list[Leaf], list[Group], Where]:
        """A value of ``kind`` begins at ``start``: its leaves and groups, and where it is;
        the checks its first character decides are made."""
        leaves: list[Leaf] = []
        groups: list[Group] = []
        stack = self.tree.stack
        where = self.here()
        if not stack:
            self.expand(self.root_shape, None, leaves, groups, where, start)
        else:
            frame = self.frames[-1]
            if frame is None:
                return leaves, groups, where
            top = stack[-1]
            if type(top) is list:
                index = len(top)
                for leaf in frame.leaves:
                    owner = leaf.owner
                    if owner is not None and not alive(owner):
                        continue
                    shape = leaf.shape
                    if shape.max_items is not None and index >= shape.max_items:
                        self.report.fail(
                            owner,
                            Fault(
                                f"more than {shape.max_items} items",
                                "maxItems",
                                shape.max_items,
                                index + 1,
                                start,
                                frame.where,
                                frame.start,
                                shape,
                            ),
                        )
                    sub = shape.item_shape(index)
                    if sub is not None:
                        self.expand(sub, owner, leaves, groups, where, start)
            else:
                key: Any = self.tree.keys[-1]  # (a str: the member's key)
                for leaf in frame.leaves:
                    owner = leaf.owner
                    if owner is not None and not alive(owner):
                        continue
                    if leaf.shape.keyed and refused(leaf.shape, key):
                        continue  # refused with its key
                    for sub in leaf.shape.key_shapes(key):
                        self.expand(sub, owner, leaves, groups, where, start)
        self._first_character(leaves, kind, where, start)
        return leaves, groups, where

    def _first_character(self, leaves: list[Leaf], kind: int, where: Where, start: int) -> None:
        """The checks a value's first character decides: ``false`` schemas, the type, and
        an ``enum`` of other kinds."""
        for leaf in leaves:
            shape = leaf.shape
            if shape.never:
                self.never(leaf, where, start)
                continue
            types = shape.types
            if not types & kind and not (kind == NUMBER and types & INTEGER):
                self.report.fail(
                    leaf.owner,
                    Fault(
                        f"expected {type_names(types)}, found {KIND_NAMES[kind]}",
                        "type",
                        type_names(types),
                        KIND_NAMES[kind],
                        start,
                        where,
                        start,
                        shape,
                    ),
                )
                continue
            kinds = shape.enum_kinds
            if shape.enum is not None and not (
                kinds & kind or (kind == NUMBER and kinds & NUMBERS)
            ):
                self.report.fail(
                    leaf.owner, self.report.enum_error(shape, KIND_NAMES[kind], start, where, start)
                )

    def quick(self, value: Any) -> bool:
        """Whether the scalar ``value``, about to be linked, is surely valid: the commonest
        case, written out (see ``_one_shape``); ``False`` when it takes the general way."""
        sub = self.one_shape()
        if sub is None:
            return True  # nothing to check
        if sub is NOT_SIMPLE:
            return False
        shape: Shape = sub  # (typed: a compiled build reads its attributes directly)
        kind = KIND.get(type(value))
        if kind is None or not shape.scalar:
            return False
        types = shape.types
        if not types & kind or (kind == NUMBER and not types & NUMBER):
            return False
        if shape.plain:
            return True
        return kind & NUMBERS != 0 and number_fault(shape, value) is None

    def one_shape(self) -> Any:
        """The commonest case, for a value about to begin: its container has one shape, with
        one simple shape for this member or element. That shape; ``None`` when nothing is
        checked; ``NOT_SIMPLE`` when it is not so simple."""
        stack = self.tree.stack
        if not stack:
            return NOT_SIMPLE
        frame = self.frames[-1]
        if frame is None:
            return None  # nothing is checked in this container
        shape = frame.single
        if shape is None:
            return NOT_SIMPLE
        top = stack[-1]
        if type(top) is list:
            index = len(top)
            if shape.max_items is not None and index >= shape.max_items:
                return NOT_SIMPLE
            prefix = shape.prefix
            sub = prefix[index] if index < len(prefix) else shape.items
        elif shape.patterns:
            return NOT_SIMPLE
        else:
            key: Any = self.tree.keys[-1]  # (a str: the member's key)
            sub = shape.props.get(key)
            if sub is None:
                sub = shape.additional
                if sub is not None and shape.closed is not None:
                    return None  # refused with its key
        if sub is None:
            return None
        return sub if sub.simple else NOT_SIMPLE

    def any_scalar(self, value: Any, kind: int, start: int, end: int) -> None:
        leaves, groups, where = self.begin(NUMBER if kind & NUMBERS else kind, start)
        for leaf in leaves:
            owner = leaf.owner
            if owner is not None and not alive(owner):
                continue
            shape = leaf.shape
            if shape.never:
                continue
            err = None
            if kind & NUMBERS:
                types = shape.types
                if not types & NUMBER and not (kind == INTEGER or integral(value)):
                    err = Fault(
                        f"expected {type_names(types)}, found {describe(value, as_json=True)}",
                        "type",
                        type_names(types),
                        value,
                        end,
                        where,
                        start,
                        shape,
                    )
                else:
                    fault = number_fault(shape, value)
                    if fault is not None:
                        err = self.report.number_error(fault, value, end, where, start, shape)
            if err is None and shape.enum is not None and not self.in_enum(shape, value):
                err = self.report.enum_error(
                    shape, value, end if kind & NUMBERS else start, where, start
                )
            if err is not None:
                self.report.fail(owner, err)
        self.end_groups(groups, end)
        self.child_done(value, end)

    def end_groups(self, groups: list[Group], end: int) -> None:
        """The value of ``groups`` is complete: ``oneOf`` must have one branch left."""
        for group in reversed(groups):  # the inner ones first: they may kill outer branches
            settle(group)
            if group.keyword != "oneOf" or group.failed or not alive(group.owner):
                continue
            if group.left > 1:
                left = [b for b in group.branches if not b.dead]
                group.failed = True
                self.report.fail(
                    group.owner,
                    Fault(
                        f"matches {len(left)} of the alternatives of oneOf, not exactly one",
                        "oneOf",
                        1,
                        len(left),
                        end,
                        group.where,
                        group.start,
                        group.shape,
                    ),
                )

    def child_done(self, value: Any, end: int) -> None:
        """A value in the open container is complete (for ``uniqueItems``)."""
        frames = self.frames
        if not frames:
            return
        frame = frames[-1]
        if frame is None or not frame.unique:
            return
        key: Any = None
        for leaf in frame.leaves:
            if not leaf.shape.unique or not alive(leaf.owner):
                continue
            if key is None:
                key = self.canonical_key(value)
            uniq = leaf.uniq
            if uniq is None:
                uniq = leaf.uniq = set()
            if key in uniq:
                top = self.tree.stack[-1]
                self.report.fail(
                    leaf.owner,
                    Fault(
                        "items are not unique",
                        "uniqueItems",
                        True,
                        value,
                        end,
                        frame.where,
                        frame.start,
                        leaf.shape,
                    ),
                )
                del top  # (the array itself is the place)
            else:
                uniq.add(key)

    def canonical_key(self, value: Any) -> Any:
        """The canonical key of a complete value: a container's in the checker's numbering
        (``ids``), kept while a container that may ask for it again is open, so that nested
        ones are walked once."""
        if type(value) is not list and type(value) is not dict:
            return canonical(value)
        known = self.known
        hit = known.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        key = canonical(value, known, self.ids)
        if self.hashing:
            known[id(value)] = (value, key)
        return key

    def in_enum(self, shape: Shape, value: Any) -> bool:
        """Whether a complete value is one of ``shape``'s enum (a set lookup, or one by one
        when a value is not hashable)."""
        keys = shape.enum_keys
        if keys is not None:
            try:
                if type(value) is not list and type(value) is not dict:
                    return canonical(value) in keys
                found = self.enums.get(id(shape))
                if found is None:  # its containers, numbered as the checker numbers them
                    found = self.enums[id(shape)] = frozenset(
                        canonical(v, None, self.ids)
                        for v in shape.enum or ()
                        if kind_of(v) & (ARRAY | OBJECT)
                    )
                return self.canonical_key(value) in found
            except TypeError:  # a number of the user's parse_float that does not hash
                pass
        return any(json_equal(value, v) for v in shape.enum or ())

    def string_frame(self, start: int) -> Frame | None:
        """A string value begins at ``start``: its checks, kept when exact."""
        leaves, groups, where = self.begin(STRING, start)
        exact = [leaf for leaf in leaves if leaf.shape.exact]
        for leaf in exact:
            leaf.expect(leaf.shape.strings, STRINGS)
        frames = self.frames
        unique = bool(frames) and frames[-1] is not None and frames[-1].unique
        if not exact and not groups and not unique:  # (uniqueItems needs its closing quote)
            return None
        return Frame(STRING, leaves, groups, where, start)

    def end_container(self, frame: Frame, value: Any, end: int) -> None:
        is_list = type(value) is list
        for leaf in frame.leaves:
            owner = leaf.owner
            if owner is not None and not alive(owner):
                continue
            shape = leaf.shape
            if shape.enum is not None and not self.in_enum(shape, value):
                self.report.fail(
                    owner, self.report.enum_error(shape, value, end, frame.where, frame.start)
                )
            if is_list:
                if shape.min_items is not None and len(value) < shape.min_items:
                    self.report.fail(
                        owner,
                        Fault(
                            f"fewer than {shape.min_items} items",
                            "minItems",
                            shape.min_items,
                            len(value),
                            end,
                            frame.where,
                            frame.start,
                            shape,
                        ),
                    )
                continue
            missing = [k for k in shape.required if k not in value]
            if missing:
                names = ", ".join(repr(k) for k in missing)
                noun = "property" if len(missing) == 1 else "properties"
                self.report.fail(
                    owner,
                    Fault(
                        f"missing required {noun} {names}",
                        "required",
                        missing,
                        sorted(value),
                        end,
                        frame.where,
                        frame.start,
                        shape,
                    ),
                )
            if shape.min_props is not None and len(value) < shape.min_props:
                self.report.fail(
                    owner,
                    Fault(
                        f"fewer than {shape.min_props} properties",
                        "minProperties",
                        shape.min_props,
                        len(value),
                        end,
                        frame.where,
                        frame.start,
                        shape,
                    ),
                )
        self.end_groups(frame.groups, end)

    def never(self, leaf: Leaf, where: Where, start: int) -> None:
        pointer = leaf.shape.pointer
        keyword = pointer.rsplit("/", 1)[-1]
        if keyword == "additionalProperties":
            msg = f"no other properties are allowed (found {where[1]!r})"
        elif keyword == "items":
            msg = "no more items are allowed"
        else:
            keyword = "false"
            msg = "no value is allowed here"
        self.report.fail(
            leaf.owner, Fault(msg, keyword, False, where[1], start, where, start, leaf.shape)
        )

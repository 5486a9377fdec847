"""The compiled form of a schema: one :class:`Shape` per subschema, and the checks of a value
expanded once (:meth:`Shape.expansion`).

A shape holds what its subschema checks as plain attributes (``None``: not checked) and its
subschemas as shapes; :func:`derive` works out, once its keywords are read, what the checker
asks of it. :func:`expand` lays out the checks of a value given a shape without recursion:
``allOf``/``$ref`` met again for the same value are checked once, each ``anyOf``/``oneOf``
alternative is a branch, within :data:`MAX_EXPANSION` steps plus a few per subschema.
:func:`number_fault` checks the number keywords of a shape on the digits written.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Any, Final

from .._errors import SchemaDefinitionError
from .equality import ANY_TYPE, ARRAY, OBJECT, canonical, kind_of
from .regex import Pattern

__all__ = ["EXPANSION_PER_SHAPE", "MAX_EXPANSION", "Shape", "derive", "expand", "number_fault"]

#: The work (steps) the expansion of one value's checks may take beyond what its schema
#: explains (see :meth:`Shape.expansion`); a schema needing more is refused.
MAX_EXPANSION: Final = 10_000
#: The work per subschema of the document the expansion of one value may take too (a schema
#: without ``$ref`` never needs more than this).
EXPANSION_PER_SHAPE: Final = 8


class Shape:
    """One compiled subschema: what it checks, as attributes (``None``: not checked)."""

    __slots__ = (
        "additional",
        "all_of",
        "allowed",
        "allowed_ranges",
        "any_of",
        "closed",
        "enum",
        "enum_keys",
        "enum_kinds",
        "enum_kw",
        "exact",
        "inner",
        "items",
        "keyed",
        "max_items",
        "max_len",
        "max_props",
        "maximum",
        "min_items",
        "min_len",
        "min_props",
        "minimum",
        "multiple",
        "never",
        "one_of",
        "own",
        "pattern",
        "patterns",
        "place",
        "plain",
        "plan",
        "prefix",
        "props",
        "required",
        "scalar",
        "simple",
        "strings",
        "strings_ranges",
        "types",
        "unique",
        "up",
        "xmax",
        "xmin",
    )

    def __init__(self, place: str, up: Shape | None = None) -> None:
        # Where it is in the schema document: its JSON Pointer is ``up``'s and then ``place``
        # (kept apart, so that a deep schema's pointers cost one part each, not their depth).
        self.place = place
        self.up = up
        self.types = ANY_TYPE
        self.never = False  # the schema ``false``: nothing is valid
        self.enum: tuple[Any, ...] | None = None
        self.enum_kw = "enum"  # or "const"
        self.strings: tuple[str, ...] | None = None  # the strings of enum/const, sorted
        # The place in ``strings`` (and in ``allowed``) of those that begin with a prefix, for
        # the prefixes a string (key) has been seen to begin with (see ``Leaf.narrow``; made
        # when first needed: most shapes never need one).
        self.strings_ranges: dict[str, tuple[int, int]] | None = None
        self.allowed_ranges: dict[str, tuple[int, int]] | None = None
        # The canonical keys of enum/const (None: some value is not hashable) and their kinds.
        self.enum_keys: frozenset[Any] | None = None
        self.enum_kinds = 0
        self.min_len: int | None = None
        self.max_len: int | None = None
        self.pattern: Pattern | None = None
        self.minimum: Any = None
        self.maximum: Any = None
        self.xmin: Any = None
        self.xmax: Any = None
        self.multiple: Any = None
        self.prefix: tuple[Shape, ...] = ()
        self.items: Shape | None = None
        self.min_items: int | None = None
        self.max_items: int | None = None
        self.unique = False
        self.props: dict[str, Shape] = {}
        self.required: tuple[str, ...] = ()
        self.additional: Shape | None = None
        self.patterns: tuple[tuple[Pattern, Shape], ...] = ()
        self.min_props: int | None = None
        self.max_props: int | None = None
        self.all_of: tuple[Shape, ...] = ()
        self.any_of: tuple[Shape, ...] = ()
        self.one_of: tuple[Shape, ...] = ()
        # Derived when compiled (see derive): whether it checks anything itself, whether it
        # has subschemas for the same value, whether a string needs each character's place,
        # and the keys an object may have (None: any).
        self.own = False
        self.plain = True  # checks a type at most (and nothing else of a scalar)
        self.scalar = True  # checks a type and number keywords at most, of a scalar
        self.simple = True
        self.exact = False
        self.closed: frozenset[str] | None = None
        self.allowed: tuple[str, ...] = ()  # the properties of a closed object, sorted
        self.keyed = False  # checks keys as they are read (closed, or maxProperties)
        # Checks more of a container than its type: what is in it, or what its end decides
        # (an array or object of a shape without it needs no frame of checks).
        self.inner = False
        # The checks of a value this shape is given to, expanded (see expansion()).
        self.plan: tuple[tuple[int, Shape, str, int], ...] | None = None

    def __repr__(self) -> str:
        return f"<Shape {self.pointer or '#'}>"

    @property
    def pointer(self) -> str:
        """Where the shape is in the schema document, as a JSON Pointer (``""``: the root)."""
        if self.up is None:
            return self.place
        parts = []
        shape: Shape | None = self
        while shape is not None:
            parts.append(shape.place)
            shape = shape.up
        pointer = "".join(reversed(parts))
        self.place, self.up = pointer, None  # found once
        return pointer

    def expansion(self) -> tuple[tuple[int, Shape, str, int], ...]:
        """The checks of a value this shape is given to: its own and those of ``allOf`` and
        ``$ref``, each once, and ``anyOf``/``oneOf`` as groups of branches, as steps
        ``(owner, shape, keyword, branches)``. Owner 0 is the value's own owner; a group
        (``keyword`` ``"anyOf"``/``"oneOf"``, of ``shape``) of ``owner`` makes ``branches``
        new owners, numbered on; a step with keyword ``""`` is ``shape``'s checks, for
        ``owner``. Found once (see :func:`expand`)."""
        plan = self.plan
        if plan is None:
            if self.simple:
                plan = ((0, self, "", 0),) if self.own else ()
            else:  # (compiled with the schema: only a shape given to no value comes here)
                plan = expand(self, MAX_EXPANSION)
            self.plan = plan
        return plan

    def key_shapes(self, key: str) -> tuple[Shape, ...]:
        """The shapes a member's value must match (none: anything)."""
        found = self.props.get(key)
        if not self.patterns:
            if found is not None:
                return (found,)
            return (self.additional,) if self.additional is not None else ()
        shapes = [found] if found is not None else []
        shapes.extend(shape for pattern, shape in self.patterns if pattern.search(key))
        if not shapes and self.additional is not None:
            shapes.append(self.additional)
        return tuple(shapes)

    def item_shape(self, index: int) -> Shape | None:
        """The shape the element at ``index`` must match (``None``: anything)."""
        if index < len(self.prefix):
            return self.prefix[index]
        return self.items


def number_fault(shape: Shape, value: Any) -> tuple[str, Any] | None:
    """The first number keyword ``value`` breaks, with what was expected; ``None``."""
    try:
        if shape.minimum is not None and value < shape.minimum:
            return "minimum", shape.minimum
        if shape.maximum is not None and value > shape.maximum:
            return "maximum", shape.maximum
        if shape.xmin is not None and value <= shape.xmin:
            return "exclusiveMinimum", shape.xmin
        if shape.xmax is not None and value >= shape.xmax:
            return "exclusiveMaximum", shape.xmax
        if shape.multiple is not None and not _is_multiple(value, shape.multiple):
            return "multipleOf", shape.multiple
    except (TypeError, ArithmeticError):  # a NaN Decimal, a number of the user's: unordered
        return "type", "a comparable number"
    return None


def _is_multiple(value: Any, step: Any) -> bool:
    """Whether ``value`` is a multiple of ``step``, exactly, on the numbers as written in
    decimal (``0.3`` is a multiple of ``0.1``; ``1e29`` is not one of ``3``), at any size, in
    time that grows with the digits written, not with the exponent."""
    if isinstance(value, int) and isinstance(step, int):
        return value % step == 0
    a, b = _scaled(value), _scaled(step)
    if a is None or b is None:
        try:  # a number of the user's parse_float
            return Fraction(str(value)) % Fraction(str(step)) == 0
        except (ValueError, TypeError, ArithmeticError):
            return False
    (m, e), (n, f) = a, b  # value = m * 10**e, step = n * 10**f (n > 0)
    if m == 0:
        return True
    shift = e - f  # value / step = (m / n) * 10**shift
    if shift >= 0:
        return (m % n) * pow(10, shift, n) % n == 0
    if -shift > abs(m).bit_length():  # |m| < 10**-shift: a fraction of n, not a multiple
        return False
    scale: int = 10**-shift
    return m % (n * scale) == 0


def _scaled(number: Any) -> tuple[int, int] | None:
    """A finite number as ``(m, e)``: ``m * 10**e`` (a float as its shortest repr says);
    ``None`` for any other."""
    if isinstance(number, int):
        return number, 0
    if isinstance(number, float):
        if not math.isfinite(number):
            return None
        number = Decimal(repr(number))
    elif not isinstance(number, Decimal) or not number.is_finite():
        return None
    sign, digits, exponent = number.as_tuple()
    assert isinstance(exponent, int)  # (finite)
    m = int(Decimal((sign, digits, 0)))
    return m, exponent


def expand(shape: Shape, limit: int) -> tuple[tuple[int, Shape, str, int], ...]:
    """The steps of :meth:`Shape.expansion`, found without recursion, in the order a
    recursive walk takes (a shape's own checks, its ``allOf`` and ``$ref``, then its
    ``anyOf`` and its ``oneOf``), in at most ``limit`` steps of work.

    A shape met again for the same owner is its checks again: left out (so ``allOf`` that
    doubles through ``$ref`` costs each subschema once). A shape met inside a branch of its
    own group (a loop of ``$ref`` on one value, which reads nothing) is left out there."""
    hops: dict[int, Shape] = {}
    while not shape.own and not shape.any_of and not shape.one_of and len(shape.all_of) == 1:
        if id(shape) in hops:  # a loop of bare $ref: nothing to check
            return ()
        hops[id(shape)] = shape  # a bare $ref: its target's checks
        shape = shape.all_of[0]
        if shape.plan is not None:
            return shape.plan
    steps: list[tuple[int, Shape, str, int]] = []
    # The shapes expanded for each owner, as ``owner << 64 | id(shape)``: an int, which the
    # garbage collector does not track (a set of tuples of this size made its full
    # collections cost more than the walk).
    seen: set[int] = set()
    owners = 1
    grouping: set[int] = set()  # the shapes whose groups hold the branch being expanded
    todo: list[tuple[str, Shape, int]] = [("", shape, 0)]  # ("": expand; "/": a group ends)
    work = 0
    while todo:
        work += 1
        if work > limit:
            raise SchemaDefinitionError(
                f"the checks of one value at {shape.pointer or 'the root'} expand to more "
                f"than {limit} steps (allOf, anyOf, oneOf and $ref repeat each other's "
                "subschemas there)"
            )
        action, sub, owner = todo.pop()
        if action == "/":
            grouping.discard(id(sub))
        elif action:  # "anyOf" or "oneOf": the group, then each branch
            alternatives = sub.any_of if action == "anyOf" else sub.one_of
            first = owners
            owners += len(alternatives)
            steps.append((owner, sub, action, len(alternatives)))
            grouping.add(id(sub))
            todo.append(("/", sub, owner))
            todo.extend(("", alt, first + i) for i, alt in reversed(list(enumerate(alternatives))))
        elif (key := owner << 64 | id(sub)) not in seen and id(sub) not in grouping:
            seen.add(key)
            if sub.own:
                steps.append((owner, sub, "", 0))
            if sub.one_of:
                todo.append(("oneOf", sub, owner))
            if sub.any_of:
                todo.append(("anyOf", sub, owner))
            todo.extend(("", s, owner) for s in reversed(sub.all_of))
    plan = tuple(steps)
    for hop in hops.values():
        hop.plan = plan
    return plan


def derive(shape: Shape) -> Shape:
    """Derive what the checker asks of a shape (after its keywords are read; a shape reached
    again through a ``$ref`` cycle is derived before its subschemas are, which is fine: the
    derived fields describe the shape's own keywords only)."""
    shape.simple = not (shape.all_of or shape.any_of or shape.one_of)
    shape.exact = bool(
        shape.strings is not None
        or shape.min_len is not None
        or shape.max_len is not None
        or shape.pattern is not None
    )
    additional = shape.additional
    if additional is not None and additional.never:
        shape.allowed = tuple(sorted(shape.props))
        if not shape.patterns:
            shape.closed = frozenset(shape.props)
    if shape.enum is not None:
        shape.enum_kinds = 0
        for v in shape.enum:
            shape.enum_kinds |= kind_of(v)
        try:  # (containers are looked up by the checker, in its own numbering)
            shape.enum_keys = frozenset(
                canonical(v) for v in shape.enum if not kind_of(v) & (ARRAY | OBJECT)
            )
        except TypeError:  # a value that is not hashable: compared one by one
            shape.enum_keys = None
    shape.inner = _inner(shape)
    shape.own = (
        shape.never
        or shape.types != ANY_TYPE
        or shape.exact
        or any(
            x is not None
            for x in (shape.minimum, shape.maximum, shape.xmin, shape.xmax, shape.multiple)
        )
        or shape.inner
    )
    shape.keyed = (
        shape.closed is not None
        or shape.max_props is not None
        or (additional is not None and additional.never)  # (with patternProperties)
    )
    shape.scalar = shape.simple and not shape.never and shape.enum is None and not shape.exact
    shape.plain = shape.scalar and all(
        x is None for x in (shape.minimum, shape.maximum, shape.xmin, shape.xmax, shape.multiple)
    )
    return shape


def _inner(shape: Shape) -> bool:
    """Whether a container of ``shape`` has more checked than its type (see ``Shape.inner``)."""
    return (
        shape.enum is not None
        or bool(shape.prefix)
        or shape.items is not None
        or shape.min_items is not None
        or shape.max_items is not None
        or shape.unique
        or bool(shape.props)
        or bool(shape.required)
        or shape.additional is not None
        or bool(shape.patterns)
        or shape.min_props is not None
        or shape.max_props is not None
    )

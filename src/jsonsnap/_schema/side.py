"""What a parser with a schema says of its value: violations, field states, typed values.

:class:`Validating` is the schema side of :class:`~jsonsnap.Parser` (``Reading`` derives from
it): it makes the :class:`~jsonsnap._schema.checker.CheckedTree` from ``schema=``, ends the
check at ``close()`` and converts the final value to the schema's Python type; and it answers
the questions a UI asks while the value streams: which violations were found
(``violations``), the state of a field (``field_state``: pending, streaming, complete,
invalid or absent), which required fields are still missing (``missing``), a typed partial
view (``view``), and the finished elements of an array, converted (``take``). It reads the
value and the checker's frames; it never changes the value.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from enum import Enum
from typing import Any

from .._errors import JSONDecodeError, SchemaError
from .._parse.automaton import Automaton
from .._parse.observer import NOTHING
from .._parse.options import Options
from .._parse.tree import Tree, copy_value
from .checker import CheckedTree
from .faults import alive
from .schema import Schema
from .shape import Shape

__all__ = ["FieldState", "Validating"]


class FieldState(str, Enum):
    """The state of a field of a value checked against a schema."""

    PENDING = "pending"  # declared by the schema, not seen yet
    STREAMING = "streaming"  # being read
    COMPLETE = "complete"  # read, final, and no violation in it
    INVALID = "invalid"  # a violation was found in it
    ABSENT = "absent"  # not in the value, and not expected (any more)

    def __str__(self) -> str:
        return self.value


class Validating:
    """The schema side of a parser (see the module docstring)."""

    __slots__ = ("_live", "_marks", "_schema", "_taken", "_typed")

    _schema: Schema | None
    _typed: bool
    _taken: dict[tuple[str | int, ...], int]
    _marks: Any  # the violations' paths (_typed.Marks), made when first needed
    _live: dict[bool, Any]  # view() between calls (_typed.LiveView), for each ``defaults``
    # (declared by Reading)
    _auto: Automaton
    _tree: Tree
    _box: list[Any]
    _error: JSONDecodeError | SchemaError | None
    _options: Options

    def _failed(self, err: JSONDecodeError | SchemaError) -> None:  # pragma: no cover
        raise NotImplementedError

    @property
    def position(self) -> int:  # pragma: no cover - Reading's
        raise NotImplementedError

    def is_complete(self, path: Sequence[str | int] = ()) -> bool:  # pragma: no cover
        raise NotImplementedError

    def _set_schema(self, schema: Any, on_violation: str, typed: bool | None) -> CheckedTree | None:
        """Compile ``schema`` (if any) and make the tree that checks against it."""
        self._taken = {}
        self._marks = None
        self._live = {}
        if schema is None:
            if typed:
                raise ValueError("typed=True needs a schema= that is a Python type")
            self._schema = None
            self._typed = False
            return None
        compiled = schema if isinstance(schema, Schema) else Schema(schema)
        self._schema = compiled
        if typed and compiled.type is None:
            raise ValueError("typed=True needs a schema= that is a Python type, not a dict")
        self._typed = compiled.type is not None if typed is None else typed
        partial_strings = self._options[0]
        object_hook, pairs_hook, depth = self._options[7:10]
        return CheckedTree(
            compiled.root,
            on_violation == "raise",
            partial_strings=partial_strings,
            object_hook=object_hook,
            pairs_hook=pairs_hook,
            max_depth=depth,
        )

    # ------------------------------------------------------------------ the end

    def _close_checked(self) -> Any:
        """close() with a schema: the first violation collected fails the parser."""
        tree = self._tree
        assert isinstance(tree, CheckedTree)  # (a parser with a schema builds with one)
        violations = tree.violations
        if violations:
            self._failed(violations[0])
            raise copy.copy(violations[0])
        self._life_closed()
        return self._final()

    def _life_closed(self) -> None:  # pragma: no cover - Reading's
        raise NotImplementedError

    def _final(self) -> Any:
        """The final value, converted to the schema's type when the parser is typed."""
        value = self._box[0]
        if self._typed and self._schema is not None:
            try:
                return self._convert(value, self._schema.type, ())
            except SchemaError as err:
                self._failed(err)  # (close() raises it again, as any error)
                raise
        return value

    def _convert(self, value: Any, tp: Any, at: tuple[str | int, ...]) -> Any:
        """``value`` (the part at ``at``) as an instance of ``tp``; a value the type refuses
        (an Enum, a constructor, pydantic's validation: what JSON Schema does not say) is a
        :class:`SchemaError` where the part that does not convert is, its cause kept."""
        from .to_types import ConversionError, convert

        try:
            return convert(value, tp)
        except ConversionError as exc:
            cause = exc.__cause__
            pos = self.position
            auto = self._auto
            err = SchemaError(
                f"does not convert to {_name(tp)}: {exc}",
                path=(*at, *exc.path),
                pos=pos,
                lineno=auto.lines + 1,
                colno=pos - auto.line_start + 1,
                start=pos,
                keyword="",  # (no keyword of the JSON Schema: the type itself refused it)
                expected=_name(tp),
                found=type(cause).__name__,
            )
            # Set, not ``raise err from cause``: the compiled build drops that cause.
            err.__cause__ = cause
            raise err  # noqa: B904

    # ------------------------------------------------------------------ questions

    @property
    def schema(self) -> Schema | None:
        """The schema the value is checked against (``None``: not checked)."""
        return self._schema

    @property
    def violations(self) -> list[SchemaError]:
        """The violations found so far (``on_violation="collect"``; with ``"raise"`` the first
        one is raised, and is also here), in the order they were found."""
        tree = self._tree
        if not isinstance(tree, CheckedTree):
            return []
        found = list(tree.violations)
        error = self._error
        if isinstance(error, SchemaError) and error not in found:
            found.append(error)
        return found

    def _marked(self) -> Any:
        """The paths of the violations found so far (a ``_typed.Marks``, brought up to date)."""
        marks = self._marks
        if marks is None:
            from .views import Marks

            marks = self._marks = Marks()
        tree = self._tree
        error = self._error
        marks.update(
            tree.violations if isinstance(tree, CheckedTree) else [],
            error if isinstance(error, SchemaError) else None,
        )
        return marks

    @property
    def violations_dropped(self) -> int:
        """How many more violations were found than ``violations`` keeps (``"collect"``
        keeps the first 1,000, fewer when their paths add up to 100,000 steps: each holds
        its path, so that many more would cost memory without limit)."""
        tree = self._tree
        return tree.dropped if isinstance(tree, CheckedTree) else 0

    def _invalid(self, path: tuple[str | int, ...]) -> bool:
        """Whether a violation was found at or under ``path``."""
        return bool(self._marked().under(path))

    def field_state(self, path: Sequence[str | int] = ()) -> FieldState:
        """The state of the field at ``path``: ``PENDING`` (declared by the schema and not
        seen yet), ``STREAMING``, ``COMPLETE``, ``INVALID`` (a violation at or under it), or
        ``ABSENT`` (neither in the value nor to be expected: undeclared, or its object is
        complete without it)."""
        path = tuple(path)
        found, _, parent_found = _walk(self._box[0], path)
        if found:
            if self._invalid(path):
                return FieldState.INVALID
            return FieldState.COMPLETE if self.is_complete(path) else FieldState.STREAMING
        if parent_found and path and self.is_complete(path[:-1]):
            return FieldState.ABSENT
        if self._schema is not None and _declared(self._schema.root, path):
            return FieldState.PENDING
        return FieldState.ABSENT

    def missing(self, path: Sequence[str | int] = ()) -> list[str]:
        """The required properties of the object at ``path`` that have not been seen (those
        its schema requires; for an object still open, as the alternatives still possible
        require)."""
        path = tuple(path)
        found, value, _ = _walk(self._box[0], path)
        present = value if found and isinstance(value, dict) else {}
        required: dict[str, None] = {}
        tree = self._tree
        frame = _open_frame(tree, path) if isinstance(tree, CheckedTree) else None
        if frame is not None:
            for leaf in frame.leaves:
                if alive(leaf.owner):
                    required.update(dict.fromkeys(leaf.shape.required))
        elif self._schema is not None:
            for shape in _shapes_at(self._schema.root, path):
                required.update(dict.fromkeys(shape.required))
        return [k for k in required if k not in present]

    def view(self, *, defaults: bool = False, copy: bool = False) -> Any:
        """The value so far as the schema's Python type: every field its value so far or
        :data:`jsonsnap.NOT_YET` (never a value of the wrong type, nor one at or under a
        violation: the rest shows); a nested dataclass appears as soon as its object starts;
        with ``defaults=True`` an absent field shows its default.

        Live, as ``snapshot()`` is: a finished part is shown by the same object each time,
        and an open part's object may be brought up to date in place by the next call, so a
        view after every fragment costs what changed. ``copy=True`` builds an independent
        one (costing the whole value)."""
        if self._schema is None or self._schema.type is None:
            raise ValueError("view() needs a schema= that is a Python type")
        from .from_types import NOT_YET
        from .views import LiveView, view_marked

        root = self._box[0]
        if root is NOTHING:
            return NOT_YET
        marks = self._marked()
        tp = self._schema.type
        if copy:
            return view_marked(root, tp, marks, defaults)
        live = self._live.get(defaults)
        if live is None:
            live = self._live[defaults] = LiveView()
        return live.view(root, tp, self._tree.stack, marks, defaults)

    def take(self, path: Sequence[str | int] = ()) -> list[tuple[int, Any]]:
        """The elements of the array at ``path`` completed since the last call, as
        ``(index, value)``, each converted to its Python type (a typed parser) or the checked
        value; elements with a violation are left out (they are in ``violations``). An
        element its type refuses (an Enum, a constructor, pydantic) is a :class:`SchemaError`,
        raised once: by this call when it is the first element, else by the next one."""
        path = tuple(path)
        found, array, _ = _walk(self._box[0], path)
        if not found or not isinstance(array, list):
            return []
        done = len(array)
        if done and not self.is_complete(path) and not self.is_complete((*path, done - 1)):
            done -= 1
        start = self._taken.get(path, 0)
        self._taken[path] = done
        item_type: Any = None
        if self._typed and self._schema is not None:
            from .from_types import type_at

            item_type = type_at(self._schema.type, (*path, 0))
        out = []
        marks = self._marked()  # (converting an element finds no violation: once is enough)
        for i in range(start, done):
            if marks.under((*path, i)):
                continue
            item = array[i]
            if item_type is None:
                out.append((i, copy_value(item)))
                continue
            try:
                out.append((i, self._convert(item, item_type, (*path, i))))
            except SchemaError:
                # Each element once: the ones before it now, and it raised by the next call.
                self._taken[path] = i if out else i + 1
                if out:
                    return out
                raise
        return out


def _name(tp: Any) -> str:
    return str(getattr(tp, "__name__", None) or repr(tp).replace("typing.", ""))


def _walk(root: Any, path: tuple[str | int, ...]) -> tuple[bool, Any, bool]:
    """The value at ``path``: (found, value, whether its parent was found)."""
    value = root
    if value is NOTHING:
        return False, None, not path
    for i, step in enumerate(path):
        if isinstance(value, dict):
            if not isinstance(step, str) or step not in value:
                return False, None, i == len(path) - 1
            value = value[step]
        elif isinstance(value, list) and type(step) is int and 0 <= step < len(value):
            value = value[step]
        else:
            return False, None, i == len(path) - 1
    return True, value, True


def _open_frame(tree: CheckedTree, path: tuple[str | int, ...]) -> Any:
    """The checker's frame of the open container at ``path``, or ``None``."""
    depth = len(path)
    if depth < len(tree.stack) and tree.path_here(depth) == path:
        return tree.frames[depth]
    return None


def _flatten(shape: Shape, out: list[Shape], branches: bool) -> None:
    """``shape`` and what applies to the same value: ``allOf`` and ``$ref`` (and the
    alternatives of ``anyOf``/``oneOf`` too, with ``branches``)."""
    todo = [shape]
    seen: set[int] = set()
    while todo:
        s = todo.pop()
        if id(s) in seen:
            continue
        seen.add(id(s))
        out.append(s)
        todo.extend(s.all_of)
        if branches:
            todo.extend(s.any_of)
            todo.extend(s.one_of)


def _shapes_at(root: Shape, path: tuple[str | int, ...], branches: bool = False) -> list[Shape]:
    """The shapes that apply at ``path`` whatever the value (with ``branches``, any that may)."""
    shapes: list[Shape] = []
    _flatten(root, shapes, branches)
    for step in path:
        nxt: list[Shape] = []
        for shape in shapes:
            if isinstance(step, int):
                sub = shape.item_shape(step)
                if sub is not None:
                    _flatten(sub, nxt, branches)
            else:
                for sub in shape.key_shapes(step) if step in shape.props or branches else ():
                    _flatten(sub, nxt, branches)
        shapes = nxt
    return shapes


def _declared(root: Shape, path: tuple[str | int, ...]) -> bool:
    """Whether some alternative of the schema names the property at ``path``."""
    if not path:
        return True
    key = path[-1]
    for shape in _shapes_at(root, path[:-1], branches=True):
        if isinstance(key, str) and key in shape.props:
            return True
        if isinstance(key, int) and key < len(shape.prefix):
            return True
    return False

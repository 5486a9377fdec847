"""What a parser with a schema says of its value: violations, field states, typed values.

:class:`SchemaSide` is the part of a :class:`~jsonsnap.Parser` made when ``schema=`` is given
(the parser holds it, and loads this module only then): it compiles the schema and makes the
checking tree (``jsonsnap._parse.watched.CheckingTree``, with its ``checker.SchemaChecker``),
ends the check at ``close()`` and converts the final value to the schema's Python type; and
it answers the questions a UI asks while the value streams, which the parser hands it: which
violations were found (``violations``), the state of a field (``field_state``: pending,
streaming, complete, invalid or absent), which required fields are still missing
(``missing``), a typed partial view (``view``), and the finished elements of an array,
converted (``take``). ``field_state()`` and ``take()`` answer without a schema too (from the
value alone): the parser then makes a side that checks nothing. It
reads the value and the checker's frames; it never changes the value.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import TYPE_CHECKING, Any

from .._errors import JSONDecodeError, SchemaError
from .._parse.automaton import Automaton
from .._parse.fast import FastPaths
from .._parse.observer import NOTHING
from .._parse.options import Options
from .._parse.tree import copy_value, walk
from .._parse.watched import CheckingTree
from .checker import SchemaChecker
from .faults import alive
from .schema import Schema
from .shape import Shape

if TYPE_CHECKING:
    from .._parse.parser import Parser

__all__ = ["FieldState", "SchemaSide"]

#: The last fast paths given to ``SchemaSide.fast_paths`` and those a checked parser then
#: takes (compared by identity: a dataclass's hash costs more than the rest of the call).
_checked: tuple[FastPaths, FastPaths] | None = None


class FieldState(str, Enum):
    """The state of a field of a value checked against a schema."""

    PENDING = "pending"  # declared by the schema, not seen yet
    STREAMING = "streaming"  # being read
    COMPLETE = "complete"  # read, final, and no violation in it
    INVALID = "invalid"  # a violation was found in it
    ABSENT = "absent"  # not in the value, and not expected (any more)

    def __str__(self) -> str:
        return self.value


# Where users import it from, in tracebacks and reprs (set by setattr: a compiled build
# refuses the assignment of a class attribute).
setattr(FieldState, "__module__", "jsonsnap")  # noqa: B010


class SchemaSide:
    """The schema side of a parser (see the module docstring)."""

    __slots__ = ("auto", "checker", "live", "marks", "parser", "schema", "taken", "tree", "typed")

    def __init__(
        self,
        parser: Parser,
        schema: Any,
        on_violation: str,
        typed: bool | None,
        options: Options,
    ) -> None:
        """Compile ``schema`` (``None``: a side that checks nothing) and make the tree that
        checks against it."""
        self.parser = parser  # its position, error and is_complete(), asked for when needed
        self.taken: dict[tuple[str | int, ...], int] = {}
        self.marks: Any = None  # the violations' paths (views.Marks), made when first needed
        self.live: dict[bool, Any] = {}  # view() between calls (views.LiveView), per defaults
        self.auto: Automaton | None = None  # the parser's automaton (see reading)
        self.checker: SchemaChecker | None = None
        self.tree: CheckingTree | None = None
        self.schema: Schema | None = None
        self.typed = False
        if schema is None:
            if typed:
                raise ValueError("typed=True needs a schema= that is a Python type")
            return
        if options.multiple_values:
            raise ValueError("schema does not go with multiple_values (yet)")
        compiled = schema if isinstance(schema, Schema) else Schema(schema)
        self.schema = compiled
        if typed and compiled.type is None:
            raise ValueError("typed=True needs a schema= that is a Python type, not a dict")
        self.typed = compiled.type is not None if typed is None else typed
        checker = self.checker = SchemaChecker(compiled.root, on_violation == "raise")
        self.tree = CheckingTree(
            checker,
            options.partial_strings,
            object_hook=options.object_hook,
            pairs_hook=options.pairs_hook,
            max_depth=options.max_depth,
        )

    def fast_paths(self, fast: FastPaths) -> FastPaths:
        """The fast paths a checked parser takes: all but the C scanner (which builds a whole
        container at once, so that no part of it has a place in the input). Elements and
        members read whole say where they are: by regex, in the match; a character at a
        time (``chars``), in the automaton's places (see ``_parse.chars``)."""
        if self.checker is None or fast.scan_min is None:
            return fast
        global _checked
        pair = _checked  # (read once: another thread may set it)
        if pair is None or pair[0] is not fast:  # (made once, not once per parser)
            pair = _checked = fast, dataclasses.replace(fast, scan_min=None)
        return pair[1]

    def reading(self, auto: Automaton) -> None:
        """``auto`` reads into the checked tree (the parser made it, or made it again)."""
        self.auto = auto
        if self.checker is not None and self.tree is not None:
            self.checker.attach(self.tree, auto)

    # ------------------------------------------------------------------ the end

    def collected(self) -> list[SchemaError]:
        """The violations collected (the first one fails the parser at ``close()``)."""
        return self.checker.violations if self.checker is not None else []

    def final(self, value: Any) -> Any:
        """The final value, converted to the schema's type when the parser is typed."""
        if self.typed and self.schema is not None:
            return self._convert(value, self.schema.type, ())
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
            pos = self.parser.position
            auto = self.auto
            assert auto is not None
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

    def violations(self, error: JSONDecodeError | SchemaError | None) -> list[SchemaError]:
        """``Parser.violations``: those collected, and the one the parser failed with."""
        found = list(self.collected())
        if isinstance(error, SchemaError) and error not in found:
            found.append(error)
        return found

    def _marked(self) -> Any:
        """The paths of the violations found so far (a ``views.Marks``, brought up to
        date)."""
        marks = self.marks
        if marks is None:
            from .views import Marks

            marks = self.marks = Marks()
        error = self.parser.error
        marks.update(self.collected(), error if isinstance(error, SchemaError) else None)
        return marks

    @property
    def dropped(self) -> int:
        """``Parser.violations_dropped``."""
        return self.checker.dropped if self.checker is not None else 0

    def field_state(self, path: tuple[str | int, ...]) -> FieldState:
        """``Parser.field_state``."""
        value, parents = walk(self._root(), path)
        is_complete = self.parser.is_complete
        if value is not NOTHING:
            if self._marked().under(path):
                return FieldState.INVALID
            return FieldState.COMPLETE if is_complete(path) else FieldState.STREAMING
        if len(parents) == len(path) and path and is_complete(path[:-1]):
            return FieldState.ABSENT
        if self.schema is not None and _declared(self.schema.root, path):
            return FieldState.PENDING
        return FieldState.ABSENT

    def missing(self, path: tuple[str | int, ...]) -> list[str]:
        """``Parser.missing``."""
        value, _ = walk(self._root(), path)
        present = value if isinstance(value, dict) else {}
        required: dict[str, None] = {}
        frame = _open_frame(self.tree, self.checker, path) if self.checker is not None else None
        if frame is not None:
            for leaf in frame.leaves:
                if alive(leaf.owner):
                    required.update(dict.fromkeys(leaf.shape.required))
        elif self.schema is not None:
            for shape in _shapes_at(self.schema.root, path):
                required.update(dict.fromkeys(shape.required))
        return [k for k in required if k not in present]

    def view(self, defaults: bool, copy: bool) -> Any:
        """``Parser.view`` (the parser has checked that the schema is a Python type)."""
        from .from_types import NOT_YET
        from .views import LiveView, view_marked

        root = self._root()
        if root is NOTHING:
            return NOT_YET
        marks = self._marked()
        tp = self.schema.type  # type: ignore[union-attr]
        if copy:
            return view_marked(root, tp, marks, defaults)
        live = self.live.get(defaults)
        if live is None:
            live = self.live[defaults] = LiveView()
        return live.view(root, tp, self.tree.stack, marks, defaults)  # type: ignore[union-attr]

    def take(self, path: tuple[str | int, ...]) -> list[tuple[int, Any]]:
        """``Parser.take``."""
        array, _ = walk(self._root(), path)
        if not isinstance(array, list):
            return []
        is_complete = self.parser.is_complete
        done = len(array)
        if done and not is_complete(path) and not is_complete((*path, done - 1)):
            done -= 1
        start = self.taken.get(path, 0)
        self.taken[path] = done
        item_type: Any = None
        if self.typed and self.schema is not None:
            from .from_types import type_at

            item_type = type_at(self.schema.type, (*path, 0))
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
                self.taken[path] = i if out else i + 1
                if out:
                    return out
                raise
        return out

    def _root(self) -> Any:
        """The value so far (``NOTHING`` while nothing shows)."""
        return self.parser.snapshot(NOTHING)


def _name(tp: Any) -> str:
    return str(getattr(tp, "__name__", None) or repr(tp).replace("typing.", ""))


def _open_frame(tree: Any, checker: SchemaChecker, path: tuple[str | int, ...]) -> Any:
    """The checker's frame of the open container at ``path``, or ``None``."""
    depth = len(path)
    if depth < len(tree.stack) and tree.path_here(depth) == path:
        return checker.frames[depth]
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

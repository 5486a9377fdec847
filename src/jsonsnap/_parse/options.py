"""The checks of what callers pass: the parser's options, resolved once, and the arguments of
the public calls.

``resolve()`` turns the keyword options of :class:`~jsonsnap.Parser` into one frozen
:class:`Options` the parts read by name (the automaton its converters and flags, the tree its
hooks and depth limit), as ``json`` resolves ``parse_float or float`` once. It refuses an
option of the wrong type or value, naming it, so that a mistake shows when the parser is made
and not at the first bracket. No field is set after the options are made.
:func:`flag`, :func:`text_of` and :func:`steps` check the arguments of the other calls
(``snapshot(copy=)``, ``loads(text)``, the paths of ``is_complete()`` and the patterns of
``subscribe()``).

Both builds say the same: a wrong type is a ``TypeError``, a wrong value of the right type a
``ValueError``, with the messages written here (the value shown by ``describe``: no address,
no huge repr). The public calls take these arguments as ``object``, so that the compiled
build does not refuse a wrong type first, with a message of its own (mypyc checks the declared
type of every argument of a compiled function); what they accept is written in their
docstrings and in the README's table of options. This module owns the options' names and
meaning, and nothing else: it never parses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

from .._jsontext import describe
from .grammar import CONSTANT_VALUES

__all__ = ["Options", "flag", "resolve", "schema_options", "steps", "text_of"]

#: The standard values of ``NaN``, ``Infinity`` and ``-Infinity`` (without ``parse_constant``).
_CONSTANT: Callable[[str], Any] = CONSTANT_VALUES.__getitem__


@dataclass(frozen=True, slots=True)
class Options:
    """The options, resolved: what the parts read, by name (the automaton its converters and
    flags, the tree its hooks and depth limit)."""

    partial_strings: bool = True
    partial_numbers: bool = False
    partial_literals: bool = False
    allow_nan: bool = False
    to_int: Callable[[str], Any] = int  # parse_int or int
    to_float: Callable[[str], Any] = float  # parse_float or float
    constant: Callable[[str], Any] = _CONSTANT  # parse_constant or the standard values
    object_hook: Callable[[dict[str, Any]], Any] | None = None
    pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None
    max_depth: int | None = None
    #: Any hook, so no C scanner (hooks run once per value).
    hooked: bool = False
    track_changes: bool = False
    multiple_values: bool = False
    #: Whether the plain tree builds with them (no hook, depth limit, provisional value or
    #: change record).
    plain: bool = True


#: What ``on_violation=`` takes.
_MODES = ("raise", "collect")
#: What the calls that take text take (``feed()`` says so itself).
_TEXT_TYPES = (str, bytes, bytearray, memoryview)


def flag(value: object, name: str) -> bool:
    """A flag (an option or a keyword argument): ``True`` or ``False``, not ``1`` or ``None``."""
    if isinstance(value, bool):
        return value
    raise TypeError(f"{name} must be True or False, not {describe(value)}")


def _hook(value: object, name: str) -> Any:
    """A hook: callable, or ``None``."""
    if value is None or callable(value):
        return value
    raise TypeError(f"{name} must be callable or None, not {describe(value)}")


def _depth(value: object) -> int | None:
    """``max_depth``: ``None``, or an int of 0 or more (a bool is not an int here)."""
    if value is None:
        return None
    if type(value) is not int:
        raise TypeError(f"max_depth must be None or an int, not {describe(value)}")
    if value < 0:
        raise ValueError("max_depth must be None or a non-negative integer")
    return value


def resolve(
    partial_strings: object,
    partial_numbers: object,
    partial_literals: object,
    allow_nan: object,
    parse_float: object,
    parse_int: object,
    parse_constant: object,
    object_hook: object,
    object_pairs_hook: object,
    max_depth: object,
    track_changes: object,
    multiple_values: object,
) -> Options:
    """The options, checked and resolved."""
    if (
        type(partial_strings) is bool
        and type(allow_nan) is bool
        and type(multiple_values) is bool
        and partial_numbers is False
        and partial_literals is False
        and track_changes is False
        and parse_float is parse_int is parse_constant is None
        and object_hook is object_pairs_hook is max_depth is None
    ):  # the defaults, or but for the flags that cost nothing: checked at once (the common case)
        if partial_strings and not allow_nan and not multiple_values:
            return _DEFAULTS
        return Options(partial_strings, allow_nan=allow_nan, multiple_values=multiple_values)
    strings = flag(partial_strings, "partial_strings")
    numbers = flag(partial_numbers, "partial_numbers")
    literals = flag(partial_literals, "partial_literals")
    nan = flag(allow_nan, "allow_nan")
    changes = flag(track_changes, "track_changes")
    to_float = _hook(parse_float, "parse_float")
    to_int = _hook(parse_int, "parse_int")
    constant = _hook(parse_constant, "parse_constant")
    obj_hook = _hook(object_hook, "object_hook")
    pairs_hook = _hook(object_pairs_hook, "object_pairs_hook")
    depth = _depth(max_depth)
    if changes and (numbers or literals):
        raise ValueError("track_changes does not go with partial_numbers or partial_literals")
    hooked = bool(to_float or to_int or constant or obj_hook or pairs_hook)
    return Options(
        partial_strings=strings,
        partial_numbers=numbers,
        partial_literals=literals,
        allow_nan=nan,
        to_int=to_int or int,
        to_float=to_float or float,
        constant=constant or _CONSTANT,
        object_hook=obj_hook,
        pairs_hook=pairs_hook,
        max_depth=depth,
        hooked=hooked,
        track_changes=changes,
        multiple_values=flag(multiple_values, "multiple_values"),
        plain=not (hooked or depth is not None or changes or numbers or literals),
    )


#: The default options (the commonest parser), made once.
_DEFAULTS: Final = Options()


def schema_options(on_violation: object, typed: object) -> tuple[str, bool | None]:
    """``on_violation`` (``"raise"`` or ``"collect"``) and ``typed`` (``True``, ``False`` or
    ``None``), checked (whether they go with the schema is the schema's part to say)."""
    if not isinstance(on_violation, str):
        raise TypeError(f"on_violation is 'raise' or 'collect', not {describe(on_violation)}")
    if on_violation not in _MODES:
        raise ValueError(f"on_violation is 'raise' or 'collect', not {describe(on_violation)}")
    if typed is not None and not isinstance(typed, bool):
        raise TypeError(f"typed must be True, False or None, not {describe(typed)}")
    return on_violation, typed


def text_of(text: object, call: str) -> str | bytes | bytearray | memoryview:
    """The text a one-shot call (``loads()``, ``parse_partial()``) takes: ``str``, or UTF-8
    bytes."""
    if isinstance(text, _TEXT_TYPES):
        return text
    raise TypeError(f"{call} takes str or bytes, not {describe(text)}")


def steps(path: object, call: str, wildcard: object = None) -> tuple[str | int, ...]:
    """A path given to ``call``: a sequence (not a string) of object keys (``str``) and array
    indices (``int``, not ``bool``), and ``wildcard`` where a pattern may hold it."""
    if wildcard is None:
        what, parts = "a path", "object keys (str) and array indices (int)"
    else:
        what, parts = "a pattern", "object keys (str), array indices (int) and jsonsnap.ANY"
    if isinstance(path, (str, bytes)) or not isinstance(path, Sequence):
        raise TypeError(f"{call} takes {what}, a tuple of {parts}, not {describe(path)}")
    checked = tuple(path)
    for step in checked:
        if not (
            isinstance(step, str)
            or (isinstance(step, int) and not isinstance(step, bool))
            or (step is wildcard and wildcard is not None)
        ):
            raise TypeError(f"{call}: {what} holds {parts}, not {describe(step)}")
    return cast("tuple[str | int, ...]", checked)

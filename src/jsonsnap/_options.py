"""The parser's options: checked once, with the hooks and number converters resolved.

``resolve()`` turns the keyword options of :class:`~jsonsnap.Parser` into one tuple the parts
read (the automaton its converters and flags, the tree its hooks and depth limit), as ``json``
resolves ``parse_float or float`` once. It refuses an option of the wrong type or value, naming
it, so that a mistake shows when the parser is made and not at the first bracket. It owns the
options' names and meaning, and nothing else: it never parses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._grammar import CONSTANT_VALUES

__all__ = ["Options", "resolve"]

#: The options, resolved: what the parts read.
Options = tuple[
    bool,  # partial_strings
    bool,  # partial_numbers
    bool,  # partial_literals
    bool,  # allow_nan
    Callable[[str], Any],  # to_int: parse_int or int
    Callable[[str], Any],  # to_float: parse_float or float
    Callable[[str], Any],  # constant: parse_constant or the standard values
    Callable[[dict[str, Any]], Any] | None,  # object_hook
    Callable[[list[tuple[str, Any]]], Any] | None,  # object_pairs_hook
    int | None,  # max_depth
    bool,  # hooked: any hook, so no C scanner (hooks run once per value)
]

_FLAGS = ("partial_strings", "partial_numbers", "partial_literals", "allow_nan", "track_changes")
_HOOKS = ("parse_float", "parse_int", "parse_constant", "object_hook", "object_pairs_hook")


def resolve(
    partial_strings: bool,
    partial_numbers: bool,
    partial_literals: bool,
    allow_nan: bool,
    parse_float: Callable[[str], Any] | None,
    parse_int: Callable[[str], Any] | None,
    parse_constant: Callable[[str], Any] | None,
    object_hook: Callable[[dict[str, Any]], Any] | None,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None,
    max_depth: int | None,
    track_changes: bool,
) -> tuple[Options, bool]:
    """The options, checked and resolved, and whether the plain tree builds with them (no
    hook, depth limit, provisional value or change record)."""
    plain = (
        type(partial_strings)
        is type(partial_numbers)
        is type(partial_literals)
        is type(allow_nan)
        is type(track_changes)
        is bool
        and parse_float is None
        and parse_int is None
        and parse_constant is None
        and object_hook is None
        and object_pairs_hook is None
        and max_depth is None
        and not (track_changes or partial_numbers or partial_literals)
    )
    if not plain:  # anything but the defaults (checked at once, the common case)
        _check(
            (partial_strings, partial_numbers, partial_literals, allow_nan, track_changes),
            (parse_float, parse_int, parse_constant, object_hook, object_pairs_hook),
            max_depth,
        )
    hooked = bool(parse_float or parse_int or parse_constant or object_hook or object_pairs_hook)
    return (
        partial_strings,
        partial_numbers,
        partial_literals,
        allow_nan,
        parse_int or int,
        parse_float or float,
        parse_constant or CONSTANT_VALUES.__getitem__,
        object_hook,
        object_pairs_hook,
        max_depth,
        hooked,
    ), plain


def _check(flags: tuple[object, ...], hooks: tuple[object, ...], depth: object) -> None:
    """Refuse options of the wrong type or value, naming them."""
    for name, value in zip(_FLAGS, flags, strict=True):
        if type(value) is not bool:
            raise TypeError(f"{name} must be True or False, not {value!r}")
    for name, value in zip(_HOOKS, hooks, strict=True):
        if value is not None and not callable(value):
            raise TypeError(f"{name} must be callable or None, not {value!r}")
    if depth is not None:
        if type(depth) is not int:
            raise TypeError(f"max_depth must be None or an int, not {depth!r}")
        if depth < 0:
            raise ValueError("max_depth must be None or a non-negative integer")
    if flags[4] and (flags[1] or flags[2]):
        raise ValueError("track_changes does not go with partial_numbers or partial_literals")

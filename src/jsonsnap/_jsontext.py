"""JSON text written without recursion, JSON-like data copied, and values described for error
messages.

:func:`json_text` is the package's one JSON writer: an explicit stack instead of recursion,
so a value of any depth is written (``json.dumps`` raises ``RecursionError`` at about a
thousand levels). What differs between its callers is a parameter, not another writer:

- the separators (``","`` and ``":"``, or ``", "`` and ``": "``);
- whether lone surrogates are escaped as ``\\uXXXX`` (so that the text encodes to UTF-8 and a
  pair split over two strings is joined by whoever parses it) or kept as they are, as
  ``json.dumps(..., ensure_ascii=False)`` keeps them;
- how numbers are written: as ``json.dumps`` writes them, with a text for NaN and the
  infinities if one is given (else they are refused), or by a function of the caller's
  (``number``), which also raises for every other value it refuses, with the exception the
  caller wants;
- the exceptions for an object key that is not a string and for a container inside itself.

Strings, dicts, lists and tuples (subclasses included) are written as ``json.dumps`` writes
them, non-ASCII kept, and any other mapping as a dict of its items. A container is written at
each place it is held; a cycle is refused.

:func:`describe` names a value in an error message, in one of two styles: as Python sees it
(``'abc'``, ``a list``, ``the class int``), or as a JSON document holds it (``null``,
``an object``, ``an array``).

:func:`copy_data` copies JSON-like data without recursion (mappings as dicts, lists and tuples
as lists, each container once: shared ones stay shared, a cycle stays a cycle).

:data:`NOTHING` is the package's one "nothing" marker (a slot with no value to show, a value
not found, an argument not given, the end of an iterator).

This module imports nothing of the package's: every layer may use it.
"""

from __future__ import annotations

import json.encoder
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

__all__ = ["NOTHING", "copy_data", "describe", "json_number", "json_string", "json_text"]

#: A string's JSON text, non-ASCII kept (``json.dumps(text, ensure_ascii=False)``).
_encode: Final[Callable[[str], str]] = json.encoder.encode_basestring
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_INFINITY: Final = float("inf")


#: What a container's iterator gives at its end.
class _Nothing:
    """The one "nothing" marker: a slot with no value to show, a value not found, an
    argument not given."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<nothing yet>"


NOTHING: Final[Any] = _Nothing()
_CONTAINERS: Final = (Mapping, list, tuple)
#: The parameters of :func:`json_text` that its loop uses, in their order.
_How = tuple[
    str,
    str,
    Callable[[Any], str] | None,
    str | None,
    str | None,
    Callable[[Any], Exception],
    Callable[[], Exception],
]


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match[0]):04x}"


def json_string(text: str) -> str:
    """A string's JSON text (its quotes included), non-ASCII kept, lone surrogates escaped as
    ``\\uXXXX``."""
    quoted = _encode(text)
    if quoted.isascii() or _SURROGATE.search(quoted) is None:
        return quoted
    return _SURROGATE.sub(_escape, quoted)


def json_number(value: Any, nan: str | None = None, infinity: str | None = None) -> str:
    """A number's JSON text as ``json.dumps`` writes it: an int (``IntEnum`` included) in
    decimal, a float as its ``repr``. A float that is not finite is written as ``nan``, as
    ``infinity`` or ``"-" + infinity`` when they are given, else refused with ``ValueError``, as
    is an int too long to write (``sys.get_int_max_str_digits``); ``TypeError`` for what is no
    number."""
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if value - value == 0.0:  # finite (an infinity minus itself is NaN, as is NaN)
            return float.__repr__(value)
        if value != value:
            text = nan
        elif infinity is None:
            text = None
        else:
            text = infinity if value > 0 else "-" + infinity
        if text is None:
            raise ValueError(f"{float.__repr__(value)} is not a JSON number")
        return text
    raise TypeError(f"{describe(value)} is not JSON")


def _bad_key(key: Any) -> Exception:
    return TypeError(f"an object key is {describe(key)}, not a string")


def _cycle() -> Exception:
    return ValueError("a container inside itself (a cycle) is not JSON")


def json_text(
    value: Any,
    *,
    comma: str = ",",
    colon: str = ":",
    surrogates: bool = True,
    nan: str | None = None,
    infinity: str | None = None,
    number: Callable[[Any], str] | None = None,
    bad_key: Callable[[Any], Exception] = _bad_key,
    cycle: Callable[[], Exception] = _cycle,
) -> str:
    """``value`` as JSON text, written without recursion (any depth).

    ``comma`` goes between items, ``colon`` between a key and its value. ``surrogates``:
    lone surrogates written as ``\\uXXXX`` escapes (else kept). Numbers are written by
    :func:`json_number` (with ``nan`` and ``infinity``), or, when ``number`` is given, by
    ``number(item)``, called for each value that is not a string, ``None``, a boolean, a
    mapping, a list or a tuple, which raises for one it refuses. ``bad_key(key)`` and
    ``cycle()`` make the exception raised for a key that is not a string (``TypeError`` by
    default) and for a container inside itself (``ValueError``)."""
    how = (comma, colon, number, nan, infinity, bad_key, cycle)
    text = _write(value, how)
    if surrogates and not text.isascii() and _SURROGATE.search(text) is not None:
        return _SURROGATE.sub(_escape, text)
    return text


def _write(value: Any, how: _How) -> str:
    """:func:`json_text`'s loop (surrogates kept); ``how``: its parameters, in their order."""
    comma, colon, number, nan, infinity, bad_key, cycle = how
    out: list[str] = []
    append = out.append
    # The containers open: each one's iterator of items (of pairs), closing bracket, itself.
    stack: list[tuple[Iterator[Any], str, Any]] = []
    check_at = 512  # the depth at which to look for a cycle next (see _check_cycle)
    item = value
    while True:
        kind = type(item)
        if kind is str:
            append(_encode(item))
        elif item is None:
            append("null")
        elif kind is bool:
            append("true" if item else "false")
        elif kind is dict or kind is list or kind is tuple or isinstance(item, _CONTAINERS):
            is_object = kind is dict or (kind is not list and isinstance(item, Mapping))
            items = iter(item.items()) if is_object else iter(item)
            first = next(items, NOTHING)
            if first is not NOTHING:
                stack.append((items, "}" if is_object else "]", item))
                if len(stack) >= check_at:
                    check_at = _check_cycle(stack, cycle)
                if is_object:
                    key, item = first
                    if type(key) is not str and not isinstance(key, str):
                        raise bad_key(key)
                    append("{" + _encode(key) + colon)
                else:
                    append("[")
                    item = first
                continue
            append("{}" if is_object else "[]")
        elif kind is int and number is None:
            append(int.__repr__(item))
        elif kind is float and number is None and item - item == 0.0:  # finite
            append(float.__repr__(item))
        else:
            append(_scalar(item, number, nan, infinity))
        # The next item to write, closing the containers that are over.
        while stack:
            items, close, _ = stack[-1]
            item = next(items, NOTHING)
            if item is NOTHING:
                stack.pop()
                append(close)
                continue
            if close == "}":
                key, item = item
                if type(key) is not str and not isinstance(key, str):
                    raise bad_key(key)
                append(comma + _encode(key) + colon)
            else:
                append(comma)
            break
        else:
            return "".join(out)


def _scalar(
    item: Any, number: Callable[[Any], str] | None, nan: str | None, infinity: str | None
) -> str:
    """An item's text, not a string, ``None``, a boolean, a container, nor (without
    ``number``) an int or a finite float: see :func:`json_text`."""
    if number is not None:
        return _encode(item) if isinstance(item, str) else number(item)
    if isinstance(item, str):  # a str subclass
        return _encode(item)
    return json_number(item, nan, infinity)


def _check_cycle(
    stack: list[tuple[Iterator[Any], str, Any]], cycle: Callable[[], Exception]
) -> int:
    """Raise ``cycle()`` if a container is open twice; else the depth at which to look again.
    Only a cycle makes the stack grow without end: looking each time the depth doubles (past
    512) costs time in proportion to it."""
    if len({id(entry[2]) for entry in stack}) < len(stack):
        raise cycle()
    return 2 * len(stack)


def describe(value: object, *, as_json: bool = False, limit: int = 60) -> str:
    """A short, safe description of a value for an error message.

    As Python sees it (the default): the repr of a string (its first 40 characters, then
    ``...``), of a number, ``None`` or a bool (``a very large int`` past 64 bits); ``the class
    int`` for a class; ``a list``, ``an object`` (the type's name) for the rest.

    As a JSON document holds it (``as_json=True``): the repr of a string, ``null``, ``true`` and
    ``false``, ``an object`` for a dict and ``an array`` for a list or tuple, ``an integer of N
    bits`` past 10,000 bits, ``a set`` or ``a frozenset``, and the repr of the rest, cut to
    ``limit`` characters (the last three of them ``...``)."""
    if isinstance(value, str):
        if not as_json:
            return repr(value) if len(value) <= 40 else repr(value[:40]) + "..."
        text = repr(value)
    elif value is None or isinstance(value, bool):
        if not as_json:
            return repr(value)
        text = "null" if value is None else "true" if value else "false"
    elif as_json and isinstance(value, (dict, list, tuple)):
        return "an object" if isinstance(value, dict) else "an array"
    elif isinstance(value, int) and value.bit_length() > (10_000 if as_json else 64):
        if not as_json:
            return "a very large int"
        text = f"an integer of {value.bit_length()} bits"  # (too long to write in decimal)
    elif as_json:
        if isinstance(value, (set, frozenset)):
            return f"a {type(value).__name__}"
        text = repr(value)
    elif isinstance(value, (int, float)):
        return repr(value)
    elif isinstance(value, type):
        return f"the class {value.__name__}"
    else:
        name = type(value).__name__
        return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def copy_data(value: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of JSON-like data (an event's, as every accumulator keeps it): mappings become
    dicts, lists and tuples lists, other values are shared. Made without recursion (any
    depth), each container once (shared ones stay shared, a cycle stays a cycle)."""
    copies: dict[int, Any] = {}
    root: dict[str, Any] = {}
    copies[id(value)] = root
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        # Every item goes in at once; then each container in it is replaced by its copy.
        if type(target) is list:
            target.extend(source)
            pairs: Any = enumerate(source)
        else:
            target.update(source if type(source) is dict else source.items())
            pairs = source.items()
        for key, item in pairs:
            kind = type(item)
            if kind is str or kind is int or kind is float or kind is bool or item is None:
                continue
            is_list = kind is list or kind is tuple
            if is_list or kind is dict or isinstance(item, Mapping):
                copy = copies.get(id(item))
                if copy is None:
                    copy = [] if is_list else {}
                    copies[id(item)] = copy
                    stack.append((item, copy))
                target[key] = copy
    return root

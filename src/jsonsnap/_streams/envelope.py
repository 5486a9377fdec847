"""An event's envelope: the JSON text around what the model wrote, decoded by the C decoder.

Every event of every protocol comes as a small JSON text (its ``data``, a frame's payload) that
is decoded whole once, before anything of it is read. :func:`loads_envelope` gives it to the
standard library's decoder, which reads such a text in a fraction of the time a whole
:class:`jsonsnap.Parser` takes, with the same acceptance as :func:`jsonsnap.loads`: strict JSON
(``NaN``, ``Infinity`` and ``-Infinity`` refused, as ``parse_constant`` can), a key given twice
keeping its last value. Our parser reads the text instead where the standard library's cannot
say what ours says:

- deep data (more brackets than :data:`MOST_BRACKETS`, or a ``RecursionError`` all the same):
  ours uses no recursion, so any depth is read, and a malformed deep text gets our error,
  never a ``RecursionError``;
- any text the standard library refuses: read again by ours, so that it raises our
  :class:`jsonsnap.JSONDecodeError`, with our message and position (what the accumulators put
  in their :class:`StreamError`).

:func:`event_data` is the ``data`` of a server-sent event: the marker :data:`DONE`, or the
JSON object it holds (anything else is a :class:`StreamError`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.scanner import make_scanner
from typing import Any, Final, NoReturn

from .._errors import JSONDecodeError, StreamError
from .._parse.oneshot import loads
from ..sse import ServerSentEvent

#: A text with more opening brackets than this (in strings or not) is read by our parser,
#: which has no depth limit; the standard library's decoder recurses once per level. (A text
#: of this length or less holds no more brackets than this: it is not counted.)
MOST_BRACKETS: Final = 400


def _constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


#: The standard library's decoder, made once, refusing what strict JSON refuses, and its
#: scanner (``scan_once(text, start)``: the value at ``start`` and where it ends).
_STRICT: Final = json.JSONDecoder(parse_constant=_constant)
_SCAN: Final[Callable[[str, int], tuple[Any, int]]] = make_scanner(_STRICT)  # type: ignore[arg-type]
#: JSON's whitespace (which is all ``JSONDecoder.decode()`` skips around a value).
_WHITESPACE: Final = " \t\n\r"
#: The standard library's reader of a string's text (its C one), as its decoder calls it:
#: ``scanstring(text, start, strict)`` is the string after the quote at ``text[start - 1]``,
#: and where it ends.
_SCANSTRING: Final[Callable[[str, int, bool], tuple[str, int]]] = json.decoder.scanstring  # type: ignore[attr-defined]


def loads_envelope(text: str) -> Any:
    """The value of an event's JSON text, as :func:`jsonsnap.loads` gives it (and its
    :class:`jsonsnap.JSONDecodeError` when the text is not JSON), read by the standard
    library's C decoder unless depth makes ours necessary."""
    if len(text) > MOST_BRACKETS and text.count("[") + text.count("{") > MOST_BRACKETS:
        return loads(text)
    # The scanner itself, as JSONDecoder.decode() calls it, less its Python wrapper: the value
    # at the first character, then only whitespace to the end.
    start = 0
    if text[:1] in _WHITESPACE:
        start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _SCAN(text, start)
    except (StopIteration, ValueError, RecursionError):  # (json.JSONDecodeError: a ValueError)
        return loads(text)  # our error, with our message; or the value ours takes
    if end != len(text) and text[end:].strip(_WHITESPACE):
        return loads(text)  # (the error of the text after the value)
    return value


def string_at(text: str, start: int, end: str) -> str | None:
    """The JSON string whose text begins after the quote at ``text[start - 1]`` and which the
    rest of ``text``, ``end``, follows at once; ``None`` if the text there is not that (no
    closing quote, an escape or control character JSON refuses, other text after it). For the
    hot forms of events (``Accumulator._hot``): the one string of an event whose envelope is
    known, read by the standard library's C reader of strings, as its decoder reads it (a lone
    surrogate escape comes out as the lone surrogate)."""
    try:
        value, after = _SCANSTRING(text, start, True)
    except ValueError:  # (json.JSONDecodeError)
        return None
    if len(text) - after != len(end) or not text.endswith(end):
        return None
    return value


def string_body(text: str) -> str | None:
    """The value of the JSON string whose text between its quotes is ``text``, as
    :func:`string_at` reads it; ``None`` if it is not one (a quote not escaped, a control
    character, an escape JSON refuses)."""
    if "\\" not in text and '"' not in text and text.isprintable():
        return text  # (nothing to unescape: the commonest)
    try:
        value, after = _SCANSTRING(text + '"', 0, True)
    except ValueError:  # (json.JSONDecodeError)
        return None
    return value if after == len(text) + 1 else None


#: What ``feed()`` takes for the end marker of an OpenAI stream (the data ``[DONE]``).
DONE: Final = "[DONE]"


def event_data(event: ServerSentEvent) -> dict[str, Any] | str:
    """The ``data`` of a server-sent event: a JSON object, or the marker :data:`DONE`; a
    :class:`StreamError` that says why for anything else."""
    return sse_data(event.event, event.data)


def sse_data(event: str, data: str) -> dict[str, Any] | str:
    """:func:`event_data` of the event of type ``event`` whose data is ``data``."""
    # (a text that starts with a brace is no marker: whitespace is all strip() takes off)
    if data[:1] != "{" and data.strip() == DONE:
        return DONE
    try:
        value = loads_envelope(data)
    except JSONDecodeError as exc:
        raise StreamError(f"the data of a {event!r} event is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise StreamError(f"the data of a {event!r} event is not a JSON object")
    return value

"""What the Chat Completions accumulator needs to read OpenAI-compatible servers.

vLLM, Ollama, Groq, OpenRouter, DeepSeek, LM Studio, llama.cpp and the gateways in front of
them speak "the OpenAI API" with quirks the official stream never has. This module owns the
pieces of the accumulator's compatible profile that do not depend on its state (the profile's
state and its decisions are ``CompatibleProfile``'s, in ``_compatible_profile``):

- :class:`Quirk` (what the profile did, and where) and :data:`QUIRKS` (each kind, described);
- :func:`marker`: the chunk fields that only a compatible server sends (the profile is then
  chosen without being asked for);
- :func:`is_comment`: an SSE comment a gateway sent as data (``data: : keepalive``);
- :func:`dump_arguments`: ``arguments`` sent as a JSON object, written as the JSON text the
  API sends (without recursion, at any depth);
- :func:`value_spans`: where each value of a text of values glued together (``{..}{..}``)
  begins and ends (one regex pass, no recursion);
- :func:`merge_details`: OpenRouter's ``reasoning_details`` pieces, merged by ``index``.

Invariants: nothing here keeps state; each function costs time in proportion to its input,
and fails with :class:`StreamError` (never another exception) on what a stream may carry.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from .._errors import StreamError
from .._jsontext import describe, json_number, json_text

#: Each kind of :class:`Quirk`, and what the compatible profile did about it.
QUIRKS: Final[Mapping[str, str]] = {
    "comment_data": "an SSE comment sent as data (data: : keepalive): skipped",
    "arguments_object": "arguments sent as a JSON object, not a string: written as JSON text",
    "reused_index": "a new id at the index of a finished call: a new call, at the next index",
    "glued_calls": "several JSON values glued in one call's arguments: one call each",
    "doubled_arguments": (
        "the whole arguments sent again in one piece at the end (X, then X): the call is X "
        "(its raw text stays XX)"
    ),
}

#: Chunk fields whose value names a compatible server, by field: a predicate on the value.
_MARKERS: Final[Mapping[str, tuple[str, Any]]] = {
    "x_groq": ("an x_groq field (Groq)", None),
    "system_fingerprint": ("system_fingerprint fp_ollama (Ollama)", "fp_ollama"),
}

#: Data that begins (after JSON whitespace) with a colon: no JSON text does.
_COMMENT: Final = re.compile(r"[ \t\r\n]*:")
#: Fields of a ``reasoning_details`` entry whose pieces are joined; the others keep their
#: latest value.
_DETAIL_TEXT: Final = ("text", "summary", "data", "signature")
#: The fields of a ``reasoning_details`` entry that are reasoning a reader can show.
_DETAIL_SHOWN: Final = ("text", "summary")


@dataclass(frozen=True, slots=True)
class Quirk:
    """One thing the compatible profile did: its ``kind`` (a key of :data:`QUIRKS`), the
    ``choice`` and tool call ``index`` it concerns (``None`` for the stream), and ``detail``."""

    kind: str
    choice: int | None = None
    index: int | None = None
    detail: str = ""

    def __repr__(self) -> str:
        where = "" if self.choice is None else f" choice {self.choice}"
        where += "" if self.index is None else f" call {self.index}"
        detail = f": {self.detail}" if self.detail else ""
        return f"<Quirk {self.kind}{where}{detail}>"


def marker(chunk: Mapping[str, Any]) -> str | None:
    """What in a chunk says it comes from a compatible server (a field OpenAI never sends),
    or ``None``."""
    for key, (reason, value) in _MARKERS.items():
        found = chunk.get(key)
        if found is not None and (value is None or found == value):
            return reason
    return None


def is_comment(data: str) -> bool:
    """Whether an event's data is an SSE comment a gateway put in a data line (``data: :
    keepalive``): no JSON text begins with a colon."""
    return not data.startswith("{") and _COMMENT.match(data) is not None


# --------------------------------------------------------------------------- arguments objects


def _number(item: Any) -> str:
    """A JSON number's text; :class:`StreamError` for what JSON cannot hold."""
    try:
        return json_number(item)
    except (TypeError, ValueError):
        what = describe(item)
        raise StreamError(f"the function arguments hold {what}, which JSON cannot") from None


def dump_arguments(value: Any) -> str:
    """``arguments`` sent as a JSON object, as the compact JSON text a server that sends a
    string would have sent (``{"a":1,"b":[true,null]}``, non-ASCII kept). Written without
    recursion (:func:`~jsonsnap._jsontext.json_text`); a value JSON cannot hold (``NaN``, a
    key that is not a string, a cycle, an object of no JSON type) is a :class:`StreamError`."""
    if not isinstance(value, Mapping):
        raise StreamError(f"the function arguments are {describe(value)}, not a string or object")
    return json_text(
        value,
        surrogates=False,
        number=_number,
        bad_key=lambda key: StreamError(f"the function arguments have the key {describe(key)}"),
        cycle=lambda: StreamError("the function arguments hold a cycle"),
    )


# --------------------------------------------------------------------------- glued values

#: The tokens that matter to find where each top-level value ends: a whole string (escapes
#: included), a bracket, or a run of other characters (a number, a literal, a comma, a
#: colon). JSON whitespace between them is skipped.
_TOKEN: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[{]|[\]}]|[^ \t\n\r"\[\]{},:]+|[,:]')


def value_spans(text: str) -> list[tuple[int, int]]:
    """Where each top-level value of ``text`` (JSON values glued together, as the tool input
    read them) begins and ends. The caller checks each span (it may be no value at all)."""
    spans: list[tuple[int, int]] = []
    depth = 0
    start = -1
    for match in _TOKEN.finditer(text):
        token = match[0]
        if depth == 0:
            start = match.start()
        first = token[0]
        if first in "[{":
            depth += 1
        elif first in "]}":
            depth -= 1
            if depth < 0:
                return []  # not values at all
        if depth == 0:
            spans.append((start, match.end()))
    if depth:
        return []
    return spans


# --------------------------------------------------------------------------- reasoning_details


def check_details(value: Any, kind: str) -> list[Mapping[str, Any]]:
    """A delta's ``reasoning_details``, checked: a list of objects, each with an optional
    integer ``index`` and string text fields."""
    if not isinstance(value, list):
        raise StreamError(
            f"malformed {kind} event: reasoning_details is {describe(value)}, not a list"
        )
    for entry in value:
        if not isinstance(entry, Mapping):
            raise StreamError(
                f"malformed {kind} event: a reasoning_details entry is {describe(entry)}, "
                "not an object"
            )
        index = entry.get("index")
        if index is not None and (type(index) is not int or not 0 <= index < 2**63):
            raise StreamError(
                f"malformed {kind} event: a reasoning_details index is {describe(index)}"
            )
        for key in _DETAIL_TEXT:
            piece = entry.get(key)
            if piece is not None and not isinstance(piece, str):
                raise StreamError(
                    f"malformed {kind} event: reasoning_details {key} is {describe(piece)}, "
                    "not a string"
                )
    return value


def merge_details(
    kept: list[dict[str, Any]], places: dict[int, int], pieces: list[Mapping[str, Any]]
) -> str:
    """Merge checked ``reasoning_details`` pieces into ``kept`` (``places``: the place in
    ``kept`` of each ``index``): a piece with a known index extends that entry (its text
    fields joined, the others set to their latest value), any other is a new entry. Returns
    the reasoning text the pieces brought."""
    shown = []
    for piece in pieces:
        index = piece.get("index")
        place = None if index is None else places.get(index)
        if place is None:
            entry: dict[str, Any] = {}
            if index is not None:
                places[index] = len(kept)
            kept.append(entry)
        else:
            entry = kept[place]
        for key, value in piece.items():
            if key in _DETAIL_TEXT and isinstance(value, str) and isinstance(entry.get(key), str):
                old = entry[key]
                entry[key] = None
                old += value
                entry[key] = old
            elif value is not None or key not in entry:
                entry[key] = value
        for key in _DETAIL_SHOWN:
            value = piece.get(key)
            if isinstance(value, str):
                shown.append(value)
    return "".join(shown)

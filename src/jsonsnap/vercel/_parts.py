"""The parts of a ``UIMessage``, made and changed as the ``ai`` package's client does: a text or
reasoning part, a tool part and its ``updateToolPart`` (each update sets or clears every field
of :data:`CALL_FIELDS`, as an ``undefined`` field is left out), the metadata merge
(``mergeObjects``), the fields of source and file parts, and a data part's update.

Plain functions over plain dicts: the decoder checks a chunk's fields, then hands them here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .._jsontext import NOTHING

#: Keys the client never lets an override merge into metadata.
UNSAFE_KEYS: Final = frozenset({"__proto__", "constructor", "prototype"})
#: The fields of a tool part that each update of it sets or clears (``undefined``).
CALL_FIELDS: Final = ("input", "output", "rawInput", "errorText", "preliminary")
#: A field a chunk does not have (``undefined``, where ``None`` is its ``null``).
#: The fields of each kind of source and file part: required, and optional strings.
ATTACHED: Final[Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "source-url": (("sourceId", "url"), ("title",)),
    "source-document": (("sourceId", "mediaType", "title"), ("filename",)),
    "file": (("url", "mediaType"), ()),
}


def merge(base: dict[str, Any], override: Mapping[str, Any]) -> None:
    """Merge metadata into ``base`` in place, as the client's ``mergeObjects`` does (objects
    merge key by key, anything else replaces), without recursion and in time proportional to
    ``override``."""
    stack = [(base, override)]
    while stack:
        target, source = stack.pop()
        for key, value in source.items():
            if key in UNSAFE_KEYS:
                continue
            old = target.get(key)
            if isinstance(value, dict) and isinstance(old, dict):
                stack.append((old, value))
            else:
                target[key] = value


def text_part(reasoning: bool, part_id: str, metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    """A text or reasoning part that begins (a text part keeps no id, as the client's)."""
    part: dict[str, Any] = {"type": "reasoning", "id": part_id} if reasoning else {"type": "text"}
    part["text"] = ""
    if metadata is not None:
        part["providerMetadata"] = metadata
    part["state"] = "streaming"
    return part


def tool_part(dynamic: bool, name: str, call_id: str) -> dict[str, Any]:
    """A new tool part: ``tool-<name>``, or ``dynamic-tool`` with its ``toolName``."""
    part: dict[str, Any] = {"type": "dynamic-tool", "toolName": name} if dynamic else {
        "type": f"tool-{name}"}  # fmt: skip
    part["toolCallId"] = call_id
    return part


def update_tool_part(
    part: dict[str, Any], state: str, fields: Mapping[str, Any], executed: bool | None
) -> None:
    """The client's ``updateToolPart``: the state, each of :data:`CALL_FIELDS` set (from
    ``fields``) or cleared, and ``providerExecuted`` when the chunk says it."""
    part["state"] = state
    for key in CALL_FIELDS:
        value = fields.get(key, NOTHING)
        if value is NOTHING:
            part.pop(key, None)
        else:
            part[key] = value
    if executed is not None:
        part["providerExecuted"] = executed


def output_fields(
    part: Mapping[str, Any], event: Mapping[str, Any], dynamic: bool,
    preliminary: bool | None, error: str | None,
) -> tuple[str, dict[str, Any]]:  # fmt: skip
    """The state and fields a tool output makes of a call's part: ``output-available`` (with
    the chunk's ``output`` and ``preliminary``) when ``error`` is ``None``, else
    ``output-error`` with it as ``errorText``. The input the part has stays."""
    fields: dict[str, Any] = {}
    if "input" in part:
        fields["input"] = part["input"]
    if error is None:
        if "output" in event:
            fields["output"] = event["output"]
        if preliminary is not None:
            fields["preliminary"] = preliminary
        return "output-available", fields
    fields["errorText"] = error
    if not dynamic and "rawInput" in part:
        fields["rawInput"] = part["rawInput"]
    return "output-error", fields


def update_data_part(part: dict[str, Any], event: Mapping[str, Any]) -> None:
    """A data part that comes again (its type and id): its ``data`` is the chunk's, or none."""
    if "data" in event:
        part["data"] = event["data"]
    else:
        part.pop("data", None)

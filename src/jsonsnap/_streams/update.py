"""What one event did, for UI code: :class:`Update` (published in :mod:`jsonsnap.streams`)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from .._errors import SchemaError
from .tool_input import StructuredOutput, ToolInput


@dataclass(frozen=True, slots=True, repr=False)
class Update:
    """What one event did to the accumulated result, for UI code."""

    #: The event's type (``"content_block_delta"``, ``"response.output_text.delta"``, ...;
    #: for Chat Completions, the part of the chunk: ``"content"``, ``"tool_call"``, ...;
    #: ``"close"`` for what :meth:`Accumulator.close` ended; ``"structured_done"`` when a
    #: structured output ends with the stream).
    event: str
    #: The content block, tool call or output item the event is about (``None`` if none).
    index: int | None = None
    #: That block, message or item as accumulated so far (live: later events grow it).
    block: dict[str, Any] | None = None
    #: The delta's type, when the event has one (``"text_delta"``, ``"reasoning_content"``).
    delta: str | None = None
    #: The text this event appended to a text or reasoning part.
    text: str = ""
    #: The tool input of the call, for the events of a tool call.
    tool: ToolInput | None = None
    #: Whether ``text`` is reasoning (thinking) rather than the answer.
    thinking: bool = False
    #: The piece of the tool input's JSON text this event brought.
    fragment: str = ""
    #: Whether the tool input's snapshot changed.
    changed: bool = False
    #: The free text this event appended to a custom tool call's input (not JSON).
    custom_input: str = ""
    #: The violations of the schema this event found, in the tool input or the structured
    #: output (each is reported once, by the event that made it certain).
    violations: tuple[SchemaError, ...] = ()
    #: The structured output the answer ``text`` went to (with an ``output_schema=``).
    structured: StructuredOutput | None = None

    @property
    def snapshot(self) -> Any:
        """The tool input's best-effort value now (``None`` when the event is not a tool's)."""
        return None if self.tool is None else self.tool.snapshot

    def __repr__(self) -> str:
        shown = [repr(self.event)]
        for field in fields(self)[1:]:
            value = getattr(self, field.name)
            if value is not field.default and value != field.default:
                text = f"<{len(value)} keys>" if field.name == "block" else repr(value)
                shown.append(f"{field.name}={text}")
        return f"Update({', '.join(shown)})"


Update.__module__ = "jsonsnap.streams"

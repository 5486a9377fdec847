"""What one event did, for UI code: :class:`Update` (published in :mod:`jsonsnap.streams`).

An update is made for every event, so it is a plain class with slots, each field set once by
its constructor (a frozen dataclass sets each through ``object.__setattr__``, which costs more
than the rest of the event). It is a value: the accumulator never changes one it has given
out, and neither should its reader; a copy with other fields is :meth:`Update._but`.
"""

from __future__ import annotations

from typing import Any, Final

from .._errors import SchemaError
from .tool_input import StructuredOutput, ToolInput


class Update:
    """What one event did to the accumulated result, for UI code."""

    __slots__ = (
        "block",
        "changed",
        "custom_input",
        "delta",
        "event",
        "fragment",
        "index",
        "structured",
        "text",
        "thinking",
        "tool",
        "violations",
    )

    #: The event's type (``"content_block_delta"``, ``"response.output_text.delta"``, ...;
    #: for Chat Completions, the part of the chunk: ``"content"``, ``"tool_call"``, ...;
    #: ``"close"`` for what :meth:`Accumulator.close` ended; ``"structured_done"`` when a
    #: structured output ends with the stream).
    event: str
    #: The content block, tool call or output item the event is about (``None`` if none).
    index: int | None
    #: That block, message or item as accumulated so far (live: later events grow it).
    block: dict[str, Any] | None
    #: The delta's type, when the event has one (``"text_delta"``, ``"reasoning_content"``).
    delta: str | None
    #: The text this event appended to a text or reasoning part.
    text: str
    #: The tool input of the call, for the events of a tool call.
    tool: ToolInput | None
    #: Whether ``text`` is reasoning (thinking) rather than the answer.
    thinking: bool
    #: The piece of the tool input's JSON text this event brought.
    fragment: str
    #: Whether the tool input's snapshot changed.
    changed: bool
    #: The free text this event appended to a custom tool call's input (not JSON).
    custom_input: str
    #: The violations of the schema this event found, in the tool input or the structured
    #: output (each is reported once, by the event that made it certain).
    violations: tuple[SchemaError, ...]
    #: The structured output the answer ``text`` went to (with an ``output_schema=``).
    structured: StructuredOutput | None

    def __init__(
        self,
        event: str,
        index: int | None = None,
        block: dict[str, Any] | None = None,
        delta: str | None = None,
        text: str = "",
        tool: ToolInput | None = None,
        thinking: bool = False,
        fragment: str = "",
        changed: bool = False,
        custom_input: str = "",
        violations: tuple[SchemaError, ...] = (),
        structured: StructuredOutput | None = None,
    ) -> None:
        self.event = event
        self.index = index
        self.block = block
        self.delta = delta
        self.text = text
        self.tool = tool
        self.thinking = thinking
        self.fragment = fragment
        self.changed = changed
        self.custom_input = custom_input
        self.violations = violations
        self.structured = structured

    @property
    def snapshot(self) -> Any:
        """The tool input's best-effort value now (``None`` when the event is not a tool's)."""
        tool = self.tool
        return None if tool is None else tool.snapshot

    def _fields(self) -> tuple[Any, ...]:
        return (
            self.event,
            self.index,
            self.block,
            self.delta,
            self.text,
            self.tool,
            self.thinking,
            self.fragment,
            self.changed,
            self.custom_input,
            self.violations,
            self.structured,
        )

    def _but(
        self,
        violations: tuple[SchemaError, ...],
        structured: StructuredOutput | None = None,
    ) -> Update:
        """A copy that carries ``violations`` (and the ``structured`` output, if given)."""
        return Update(
            self.event,
            self.index,
            self.block,
            self.delta,
            self.text,
            self.tool,
            self.thinking,
            self.fragment,
            self.changed,
            self.custom_input,
            violations,
            self.structured if structured is None else structured,
        )

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        shown = [repr(self.event)]
        for (name, default), value in zip(_DEFAULTS, self._fields()[1:], strict=True):
            if value is not default and value != default:
                text = f"<{len(value)} keys>" if name == "block" else repr(value)
                shown.append(f"{name}={text}")
        return f"Update({', '.join(shown)})"


#: The fields after ``event``, in the constructor's order, with their defaults (what a repr
#: leaves out).
_DEFAULTS: Final[tuple[tuple[str, Any], ...]] = (
    ("index", None),
    ("block", None),
    ("delta", None),
    ("text", ""),
    ("tool", None),
    ("thinking", False),
    ("fragment", ""),
    ("changed", False),
    ("custom_input", ""),
    ("violations", ()),
    ("structured", None),
)

setattr(Update, "__module__", "jsonsnap.streams")  # noqa: B010 (a compiled class too)

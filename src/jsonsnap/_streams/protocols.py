"""The protocols there are accumulators for: a table of names, each loaded when first asked for.

:data:`PROTOCOLS` (published in :mod:`jsonsnap.streams`) maps each protocol's name to its
accumulator class, in the order of the names. It is a plain table of where each class is
(:data:`TABLE`, as httpx's ``SUPPORTED_DECODERS``): nothing registers itself, and a provider's
module is imported the first time its class is looked up (``PROTOCOLS["gemini"]``, or going
over the values), never before. :func:`detect` asks each class whether an event is its own, so
it loads them all, when it is first called (a Bedrock binary message is read as the event it
carries by Bedrock's own ``event_of``, imported then).

A new protocol is one line of :data:`TABLE` (and its module, which imports the contract, never
this table's other modules).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any, Final

from .._errors import StreamError
from .._eventstream import EventStreamMessage
from ..sse import ServerSentEvent
from .envelope import event_data

if TYPE_CHECKING:
    from .accumulator import Accumulator

#: Each protocol's accumulator: its module and its name there, by protocol name (sorted).
TABLE: Final[Mapping[str, tuple[str, str]]] = {
    "anthropic": ("jsonsnap.anthropic", "MessageAccumulator"),
    "bedrock": ("jsonsnap.bedrock", "ConverseStreamAccumulator"),
    "bedrock-anthropic": ("jsonsnap.bedrock", "InvokeModelAccumulator"),
    "chat": ("jsonsnap.openai", "ChatCompletionAccumulator"),
    "gemini": ("jsonsnap.gemini", "GenerateContentAccumulator"),
    "responses": ("jsonsnap.openai", "ResponseAccumulator"),
    "ui-message": ("jsonsnap.vercel", "UIMessageAccumulator"),
}


class Protocols(Mapping[str, "type[Accumulator]"]):
    """The accumulator class of each protocol, by name (read-only; see the module
    docstring)."""

    __slots__ = ("_loaded",)

    def __init__(self) -> None:
        self._loaded: dict[str, type[Accumulator]] = {}

    def __getitem__(self, name: str) -> type[Accumulator]:
        cls = self._loaded.get(name)
        if cls is None:
            module, attribute = TABLE[name]
            cls = self._loaded[name] = getattr(import_module(module), attribute)
        return cls

    def __iter__(self) -> Iterator[str]:
        return iter(TABLE)

    def __len__(self) -> int:
        return len(TABLE)

    def __contains__(self, name: object) -> bool:
        return name in TABLE

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name!r}: {module}.{attribute}" for name, (module, attribute) in TABLE.items()
        )
        return f"PROTOCOLS({{{shown}}})"


#: The protocols there are accumulators for, by name (see the module docstring).
PROTOCOLS: Final = Protocols()


def detect(data: Mapping[str, Any] | ServerSentEvent | EventStreamMessage) -> str | None:
    """Which protocol an event belongs to (a name in :data:`PROTOCOLS`), or ``None`` when this
    event cannot tell (an ``error``, ``[DONE]``, data that is not a JSON object). ``data``: an
    event's decoded data, a :class:`~jsonsnap.sse.ServerSentEvent`, or a decoded
    :class:`~jsonsnap.bedrock.EventStreamMessage` (Bedrock's binary framing: told by the event
    it carries, ``"bedrock"`` or ``"bedrock-anthropic"``; an error message cannot tell)."""
    if isinstance(data, ServerSentEvent):
        named = detect({"type": data.event})
        if named is not None:
            return named
        try:
            decoded = event_data(data)
        except StreamError:
            return None
        return detect(decoded) if isinstance(decoded, Mapping) else None
    if isinstance(data, EventStreamMessage):
        from ..bedrock import event_of  # (the provider's reading of its framing; see above)

        try:
            return detect(event_of(data))
        except StreamError:
            return None
    for name, cls in PROTOCOLS.items():
        if cls.looks_like(data):
            return name
    return None

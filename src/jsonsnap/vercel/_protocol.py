"""What the UI message stream is made of: its headers, its chunk types, its finish reasons
(and the providers' stop reasons as them), and one chunk as the server-sent event that
carries it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._dump import dump

#: The response headers of a UI message stream (the ``ai`` package's
#: ``UI_MESSAGE_STREAM_HEADERS`` without ``connection: keep-alive``, a hop-by-hop header that
#: WSGI servers refuse and HTTP/2 forbids).
HEADERS: Final[Mapping[str, str]] = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "x-vercel-ai-ui-message-stream": "v1",
    "x-accel-buffering": "no",
}
#: The last event of the body.
DONE: Final = "data: [DONE]\n\n"

#: The finish reasons the protocol knows.
FINISH_REASONS: Final = frozenset(
    {"stop", "length", "content-filter", "tool-calls", "error", "other", "unknown"}
)
#: Providers' stop and finish reasons (lower case), as the protocol's.
_REASONS: Final = {
    # Anthropic stop_reason, Bedrock stopReason
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool-calls",
    "refusal": "content-filter",
    "guardrail_intervened": "content-filter",
    "content_filtered": "content-filter",
    # Chat Completions finish_reason, Gemini finishReason
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool-calls",
    "function_call": "tool-calls",
    "content_filter": "content-filter",
    "safety": "content-filter",
    "recitation": "content-filter",
    "prohibited_content": "content-filter",
    "blocklist": "content-filter",
    "spii": "content-filter",
    # Responses incomplete_details.reason
    "max_output_tokens": "length",
}

#: The chunk types of the protocol (``data-*`` aside).
CHUNK_TYPES: Final = frozenset(
    {
        "start",
        "finish",
        "abort",
        "error",
        "start-step",
        "finish-step",
        "message-metadata",
        "text-start",
        "text-delta",
        "text-end",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-end",
        "tool-input-start",
        "tool-input-delta",
        "tool-input-available",
        "tool-input-error",
        "tool-output-available",
        "tool-output-error",
        "source-url",
        "source-document",
        "file",
    }
)


def finish_reason_of(result: Mapping[str, Any] | None) -> str | None:
    """The protocol's ``finishReason`` for an accumulator's result: Anthropic's ``stop_reason``,
    Chat Completions' first choice's ``finish_reason``, a Responses ``status`` (with its
    ``incomplete_details``), Bedrock's ``stopReason``, Gemini's first candidate's
    ``finishReason``; ``"other"`` for a reason the protocol has no name for, ``None`` when
    the result says none."""
    if not isinstance(result, Mapping):
        return None
    reason: Any = result.get("stop_reason", result.get("stopReason"))
    for key, field in (("choices", "finish_reason"), ("candidates", "finishReason")):
        entries = result.get(key)
        if reason is None and isinstance(entries, list) and entries:
            first = entries[0]
            reason = first.get(field) if isinstance(first, Mapping) else None
    status = result.get("status")
    if reason is None and status == "completed":
        output = result.get("output")
        items = output if isinstance(output, list) else []
        calls = any(isinstance(i, Mapping) and i.get("type") == "function_call" for i in items)
        return "tool-calls" if calls else "stop"
    if reason is None and status == "incomplete":
        details = result.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, Mapping) else None
        return "other" if not isinstance(reason, str) else _REASONS.get(reason.lower(), "other")
    if reason is None and status == "failed":
        return "error"
    if not isinstance(reason, str):
        return None
    return _REASONS.get(reason.lower(), "other")


def sse(chunk: Mapping[str, Any]) -> str:
    """One chunk as the server-sent event that carries it: ``data: <JSON>`` and a blank line."""
    return f"data: {dump(chunk)}\n\n"

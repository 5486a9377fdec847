"""Streams made for a test: a UI message stream whose text, reasoning or tool input comes in
pieces, and an Anthropic message whose one tool call streams its input in pieces.
"""

from __future__ import annotations

from typing import Any

UI_START = {"type": "start", "messageId": "m"}


MESSAGE_START = {
    "type": "message_start",
    "message": {"id": "msg", "type": "message", "role": "assistant", "content": [],
                "model": "m", "usage": {}},
}  # fmt: skip


def tool_stream(pieces: list[str]) -> list[dict[str, Any]]:
    """An Anthropic message holding one tool call whose input streams as ``pieces``."""
    deltas = [
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": piece}}
        for piece in pieces
    ]  # fmt: skip
    return [
        MESSAGE_START,
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "toolu", "name": "f", "input": {}}},
        *deltas,
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
        {"type": "message_stop"},
    ]  # fmt: skip


def ui_pieces(kind: str, pieces: list[str]) -> list[dict[str, Any]]:
    """A UI message stream whose text, reasoning or tool input comes in ``pieces``."""
    if kind == "tool":
        head = [{"type": "tool-input-start", "toolCallId": "c", "toolName": "f"}]
        body = [
            {"type": "tool-input-delta", "toolCallId": "c", "inputTextDelta": p} for p in pieces
        ]
        return [UI_START, *head, *body]
    head = [{"type": f"{kind}-start", "id": "p"}]
    body = [{"type": f"{kind}-delta", "id": "p", "delta": piece} for piece in pieces]
    return [UI_START, *head, *body, {"type": f"{kind}-end", "id": "p"}]

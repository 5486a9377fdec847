"""Streams made for a test: a UI message stream whose text, reasoning or tool input comes in
pieces, and an Anthropic message whose one tool call streams its input in pieces; and what
the encoder makes up where a protocol gives no id, or holds where its text is not one value.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from jsonsnap.streams import ToolInput
from jsonsnap.vercel import dump

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


# --------------------------------------------------------------------------- what is made up
#
# What the UI message stream needs and some protocols do not give, so the encoder makes it up
# (the round trips of every recording expect it made up there, and only there).

#: The key of the message id in a protocol's result, where it is not ``"id"``.
MESSAGE_ID_KEYS: Final = {"gemini": "responseId"}
#: The protocols whose result may have no message id: Bedrock's has none, and a UI message
#: stream that sent no ``start`` has the id ``""``. The encoder makes one: ``msg-<32 hex>``.
NO_MESSAGE_ID: Final = frozenset({"bedrock", "ui-message"})
#: The protocols whose calls may come without an id (Gemini's ``functionCall`` has one only
#: in some of its APIs): the encoder names them ``call-<n>``, the n-th call of the message.
UNNAMED_CALLS: Final = frozenset({"gemini"})


def message_id_expected(protocol: str, result: Any, sent: str) -> bool:
    """Whether ``sent`` is the message id the encoder must send for a protocol's result."""
    if protocol in NO_MESSAGE_ID and not result.get("id"):
        return re.fullmatch(r"msg-[0-9a-f]{32}", sent) is not None
    return bool(sent == result[MESSAGE_ID_KEYS.get(protocol, "id")])


def call_id_expected(protocol: str, tool: ToolInput, n: int) -> str | None:
    """The ``toolCallId`` of the ``n``-th call (from 1) of a message: the provider's."""
    if protocol in UNNAMED_CALLS and tool.id is None:
        return f"call-{n}"
    return tool.id


def text_held(protocol: str, tool: ToolInput) -> str:
    """The raw text a call's tool input ends with, read back from the encoded stream: the text
    the provider sent, which the encoder streams as it comes; but where that text is not the
    call's one JSON value, the value the call ends with (``tool-input-available``'s
    ``input``), as compact JSON, as the client holds it: a Bedrock call that streamed no input
    (its input is ``{}``), and a Chat Completions call whose arguments were several values
    glued together (a compatible server's parallel calls, or its arguments sent twice: the
    call ends at its first value, and the others are calls of their own)."""
    if not tool.complete:
        return tool.raw
    if protocol == "bedrock" and not tool.raw:
        return dump(tool.final())
    if protocol == "chat":
        try:
            json.loads(tool.raw)
        except json.JSONDecodeError as exc:
            if exc.msg == "Extra data":
                return dump(tool.final())
    return tool.raw


def raw_input_expected(tool: ToolInput) -> Any:
    """The ``rawInput`` of a call that is not fit to run: its raw text, but the value when the
    text was whole JSON that was refused (by its schema, or by the server that sent it)."""
    whole = tool.ended and tool.status == "invalid" and tool.error is None and not tool.glued
    return tool.snapshot if whole else tool.raw

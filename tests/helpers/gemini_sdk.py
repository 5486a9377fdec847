"""What a user of the official ``google-genai`` SDK holds at the end of a stream, and the same
read from our accumulator, in one shape to compare.
"""

from __future__ import annotations

import base64
import itertools
from typing import Any

from google.genai import types

from jsonsnap.gemini import GenerateContentAccumulator, parse_json_path


def put(args: dict[str, Any], path: str, value: Any, join: bool) -> None:
    """An SDK user's rebuilding of streamed arguments: the value at the path, string pieces
    joined."""
    segments = parse_json_path(path)
    node: Any = args
    last: Any
    for key, nxt in itertools.pairwise(segments):
        if isinstance(node, list) and key == len(node):
            node.append([] if isinstance(nxt, int) else {})
        elif isinstance(node, dict) and key not in node:
            node[key] = [] if isinstance(nxt, int) else {}
        node = node[key]
    last = segments[-1]
    if isinstance(node, list) and last == len(node):
        node.append(value)
    elif join and isinstance(node.get(last) if isinstance(node, dict) else node[last], str):
        node[last] += value
    else:
        node[last] = value


def held(responses: list[types.GenerateContentResponse]) -> dict[str, Any]:
    """What an SDK user holds at the end of the stream, candidate 0."""
    text, thoughts, calls, signatures = "", "", [], []
    streamed: dict[str, Any] | None = None
    finish, usage = None, None
    for response in responses:
        if response.usage_metadata is not None:
            usage = response.usage_metadata.model_dump(
                mode="json", by_alias=True, exclude_none=True
            )
        if not response.candidates:
            continue
        candidate = response.candidates[0]
        finish = candidate.finish_reason or finish
        for part in (candidate.content and candidate.content.parts) or []:
            if part.thought_signature:
                signatures.append(base64.b64encode(part.thought_signature).decode())
            if part.text is not None:
                if part.thought:
                    thoughts += part.text
                else:
                    text += part.text
            call = part.function_call
            if call is None:
                continue
            if call.will_continue or call.partial_args or streamed is not None:
                if streamed is None:
                    streamed = {"name": call.name, "args": {}}
                for arg in call.partial_args or []:
                    value: Any = arg.string_value
                    if value is None:
                        value = arg.number_value if arg.number_value is not None else arg.bool_value
                    assert arg.json_path is not None
                    put(streamed["args"], arg.json_path, value, arg.string_value is not None)
                if not call.will_continue:
                    calls.append(streamed)
                    streamed = None
            else:
                calls.append({"name": call.name, "args": call.args or {}})
    return {
        "text": text,
        "thoughts": thoughts,
        "calls": calls,
        "signatures": signatures,
        "finish": None if finish is None else finish.value,
        "usage": usage,
    }


def mine(acc: GenerateContentAccumulator) -> dict[str, Any]:
    """The same, from our response."""
    response = acc.response or {}
    candidates = response.get("candidates") or [{}]
    parts = candidates[0].get("content", {}).get("parts", [])
    text = "".join(p["text"] for p in parts if "text" in p and not p.get("thought"))
    thoughts = "".join(p["text"] for p in parts if "text" in p and p.get("thought"))
    calls = [
        {"name": p["functionCall"]["name"], "args": p["functionCall"]["args"]}
        for p in parts
        if "functionCall" in p
    ]
    return {
        "text": text,
        "thoughts": thoughts,
        "calls": calls,
        "signatures": [p["thoughtSignature"] for p in parts if "thoughtSignature" in p],
        "finish": candidates[0].get("finishReason"),
        "usage": response.get("usageMetadata"),
    }

"""Our UI message streams, read by the real client: the ``ai`` package's own reader under node.

``tests/js/read_ui_stream.mjs`` reads bodies the way ``useChat`` does (the transport's
``processResponseStream``: its SSE parser and its chunk schema, then ``readUIMessageStream``)
and prints every message it writes. One node process reads every stream (in 7-byte pieces):

- every provider recording the accumulators read, encoded by ``ui_message_stream``, and every
  ``fixtures/vercel`` stream;
- the client reports no error but the stream's own ``error`` chunk, and writes as many messages
  as our decoder makes (one per chunk the client shows);
- each of its messages equals ours, but for one deliberate difference: the ``input`` of a call
  still streaming is jsonsnap's snapshot, the client's is its repaired parse of the text. There,
  the client's is absent (its repair failed: the text is invalid so far) or a growth of ours
  (it shows a number or literal before its end: ``35.`` as ``35``, ``fa`` as ``false``);
- the last message equals the expected file's.

Skipped, saying why, where node or ``tests/js/node_modules`` (``npm ci`` in tests/js, which
``python3 dev.py test`` runs) is missing.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any, Final

import pytest

from jsonsnap import vercel
from jsonsnap.sse import SSEDecoder
from jsonsnap.streams import PROTOCOLS, StreamError
from recordings import ROOT, all_fixtures, assert_same_json
from values import diff, grows

JS: Final = Path(__file__).resolve().parent / "js"
NODE: Final = shutil.which("node")
INSTALLED: Final = (JS / "node_modules" / "ai" / "package.json").is_file()

pytestmark = pytest.mark.skipif(
    NODE is None or not INSTALLED,
    reason="node is not installed"
    if NODE is None
    else "the ai package is not installed in tests/js (run: cd tests/js && npm ci)",
)

#: Chunk types after which the client shows no new message (unless they carry metadata).
_SILENT: Final = frozenset({"start-step", "finish-step", "error", "abort"})


def streams() -> dict[str, str]:
    """Every stream to read: the recordings encoded, and the fixtures/vercel bodies."""
    bodies = {}
    for protocol, path in all_fixtures():
        acc = PROTOCOLS[protocol]()
        encoded = vercel.ui_message_stream(acc.updates(path.read_bytes()), accumulator=acc)
        bodies[f"{path.parent.name}/{path.name}"] = "".join(encoded)
    for path in sorted((ROOT / "vercel").glob("*.sse")):
        bodies[f"vercel/{path.name}"] = path.read_text(encoding="utf-8")
    return bodies


@pytest.fixture(scope="module")
def read() -> dict[str, tuple[str, dict[str, Any]]]:
    """Each stream's body, and what the client made of it."""
    bodies = streams()
    run = subprocess.run(
        [str(NODE), str(JS / "read_ui_stream.mjs")],
        input=json.dumps({"streams": bodies, "chunk": 7}),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    return {name: (body, out[name]) for name, body in bodies.items()}


def writes(chunk: dict[str, Any]) -> bool:
    """Whether the client shows a new message after this chunk."""
    kind = chunk["type"]
    if kind in _SILENT:
        return False
    if kind == "start":
        return chunk.get("messageId") is not None or chunk.get("messageMetadata") is not None
    if kind in ("finish", "message-metadata"):
        return chunk.get("messageMetadata") is not None
    return not (kind.startswith("data-") and chunk.get("transient"))


def ours(body: str) -> tuple[list[Any], list[str]]:
    """Our decoder's message after each chunk the client shows, and the error chunks' texts
    (read on past them, as the client does)."""
    acc = vercel.UIMessageAccumulator()
    messages, errors = [], []
    for event in SSEDecoder().feed(body):
        if event.data == "[DONE]":
            continue
        chunk = json.loads(event.data)
        try:
            acc.feed(chunk)
        except StreamError as exc:
            assert chunk["type"] == "error", exc
            errors.append(exc.message)
        if writes(chunk):
            messages.append(json.loads(vercel.dump(acc.message)))
    return messages, errors


def same_but_streaming_input(mine: Any, theirs: Any, where: str) -> int:
    """Assert the messages are equal, but for the input of calls still streaming, where the
    client's is absent or a growth of ours; how many such inputs differ."""
    assert len(mine["parts"]) == len(theirs["parts"]), where
    differ = 0
    for a, b in zip(mine["parts"], theirs["parts"], strict=True):
        streaming = a.get("state") == "input-streaming" and "input" in a
        if streaming and ("input" not in b or diff(a["input"], b["input"]) is not None):
            differ += 1
            if "input" in b:
                assert grows(a["input"], b["input"]) is None, (where, a, b)
            a, b = dict(a), dict(b)
            a.pop("input")
            b.pop("input", None)
        assert_same_json(a, b, where)
    assert_same_json({**mine, "parts": []}, {**theirs, "parts": []}, where)
    return differ


def test_the_client_reads_every_stream_as_we_do(
    read: dict[str, tuple[str, dict[str, Any]]],
) -> None:
    compared = differ = 0
    for name, (body, theirs) in read.items():
        messages, errors = ours(body)
        assert theirs["errors"] == errors, name
        assert len(theirs["messages"]) == len(messages), name
        for step, (mine, their) in enumerate(zip(messages, theirs["messages"], strict=True)):
            differ += same_but_streaming_input(mine, their, f"{name} #{step}")
            compared += 1
        if name.startswith("vercel/"):
            expected = json.loads((ROOT / name).with_suffix(".json").read_text(encoding="utf-8"))
            if not errors:
                assert_same_json(expected["message"], theirs["messages"][-1], name)
    assert compared > 1500 and differ < compared // 20, (compared, differ)


def test_the_client_agrees_with_what_the_encoder_meant(
    read: dict[str, tuple[str, dict[str, Any]]],
) -> None:
    """The client's last message, for each recording: the final input of every complete call
    is the accumulator's, and a call that is not fit to run is an error, with its raw text."""
    for protocol, path in all_fixtures():
        acc: Any = PROTOCOLS[protocol]()
        with contextlib.suppress(StreamError):
            acc.read(path.read_bytes())
        last = read[f"{path.parent.name}/{path.name}"][1]["messages"][-1]
        calls = [p for p in last["parts"] if p["type"].startswith("tool-")]
        tools = acc.tool_calls() if protocol != "chat" else acc.tool_calls(0)
        assert len(calls) == len(tools), path.name
        for part, tool in zip(calls, tools, strict=True):
            assert part["toolCallId"] == tool.id and part["type"] == f"tool-{tool.name}"
            if tool.complete:
                assert part["state"] == "input-available", path.name
                assert_same_json(tool.final(), part["input"], path.name)
            else:
                assert part["state"] == "output-error" and part["rawInput"] == tool.raw

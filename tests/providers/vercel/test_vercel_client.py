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
import math
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any, Final

import pytest

import paths
from astral import ASTRAL, code_units
from chunking import chunkings
from jsonsnap import vercel
from jsonsnap.anthropic import MessageAccumulator
from jsonsnap.sse import SSEDecoder
from jsonsnap.streams import StreamError
from recordings import ROOT, accumulator, all_fixtures, assert_same_json
from ui_streams import call_id_expected, raw_input_expected, tool_stream, ui_pieces
from values import diff, grows

JS: Final = paths.JS
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


def encoded_name(path: Path) -> str:
    """The name of a recording's stream as the encoder makes it (a ``fixtures/vercel`` body is
    read as it is too, under its own name)."""
    return f"encoded {path.parent.name}/{path.name}"


def streams() -> dict[str, str]:
    """Every stream to read: the recordings encoded, and the fixtures/vercel bodies."""
    bodies = {}
    for protocol, path in all_fixtures():
        acc = accumulator(protocol, path)
        encoded = vercel.ui_message_stream(acc.updates(path.read_bytes()), accumulator=acc)
        bodies[encoded_name(path)] = "".join(encoded)
    for path in sorted((ROOT / "vercel").glob("*.sse")):
        bodies[f"vercel/{path.name}"] = path.read_text(encoding="utf-8")
    return bodies


@pytest.fixture(scope="module")
def read() -> dict[str, tuple[str, dict[str, Any]]]:
    """Each stream's body, and what the client made of it."""
    bodies = streams()
    out = run_client(bodies)
    return {name: (body, out[name]) for name, body in bodies.items()}


def run_client(bodies: dict[str, str]) -> dict[str, Any]:
    """What the client made of each body (read in 7-byte pieces): its messages and errors."""
    run = subprocess.run(
        [str(NODE), str(JS / "read_ui_stream.mjs")],
        input=json.dumps({"streams": bodies, "chunk": 7}),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    out: dict[str, Any] = json.loads(run.stdout)
    return out


def _javascript_number(text: str) -> float | int:
    number = float(text)
    return int(number) if number.is_integer() and abs(number) < 1e21 else number


def read_as_js(text: str) -> Any:
    """JSON text read with JavaScript's one type of number: a float that is a whole number
    (``150.0``) is the integer the client's ``JSON.stringify`` writes back (``150``)."""
    return json.loads(text, parse_float=_javascript_number)


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
            messages.append(read_as_js(vercel.dump(acc.message)))
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
        if messages and not errors:  # the message at the end is the last one it shows
            acc = vercel.UIMessageAccumulator().read(body)
            same_but_streaming_input(read_as_js(vercel.dump(acc.message)), theirs["messages"][-1],
                                     f"{name} (end)")  # fmt: skip
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
        acc: Any = accumulator(protocol, path)
        with contextlib.suppress(StreamError):
            acc.read(path.read_bytes())
        last = read[encoded_name(path)][1]["messages"][-1]
        calls = [p for p in last["parts"] if p["type"].startswith("tool-")]
        tools = acc.tool_calls() if protocol != "chat" else acc.tool_calls(0)
        assert len(calls) == len(tools), path.name
        for n, (part, tool) in enumerate(zip(calls, tools, strict=True), 1):
            call_id = call_id_expected(protocol, tool, n)
            assert part["toolCallId"] == call_id and part["type"] == f"tool-{tool.name}"
            if tool.complete:
                assert part["state"] == "input-available", path.name
                assert_same_json(read_as_js(vercel.dump(tool.final())), part["input"], path.name)
            else:
                assert part["state"] == "output-error"
                assert part["rawInput"] == raw_input_expected(tool), path.name


# --------------------------------------------------------------------------- generated classes


def framing(rng: random.Random) -> list[dict[str, Any]]:
    """A stream of steps, metadata, data parts and short texts in a random order (the client
    adds a step-start part at each start-step, and shows it with the next message it writes)."""
    chunks: list[dict[str, Any]] = [{"type": "start", "messageId": "m"} if rng.random() < 0.7
                                    else {"type": "start"}]  # fmt: skip
    open_texts: list[str] = []
    for n in range(rng.randint(0, 8)):
        kind = rng.choice(["start-step", "finish-step", "metadata", "data", "text", "finish"])
        if kind == "metadata":
            chunks.append({"type": "message-metadata", "messageMetadata": {"n": n}})
        elif kind == "data":
            chunks.append({"type": "data-x", "data": n, "transient": rng.random() < 0.5})
        elif kind == "text" and open_texts and rng.random() < 0.5:
            chunks.append({"type": "text-end", "id": open_texts.pop()})
        elif kind == "text":
            open_texts.append(f"t{n}")
            chunks.append({"type": "text-start", "id": f"t{n}"})
            chunks.append({"type": "text-delta", "id": f"t{n}", "delta": "x"})
        elif kind == "finish-step":
            open_texts.clear()
            chunks.append({"type": kind})
        elif kind == "finish":
            chunks.append({"type": "finish", "messageMetadata": {"end": n}}
                          if rng.random() < 0.5 else {"type": "finish"})  # fmt: skip
        else:
            chunks.append({"type": kind})
    return chunks


def generated() -> dict[str, str]:
    """Bodies of the classes the client must read as we do: streams of steps and metadata in
    any order; text, reasoning and tool input whose surrogate pairs are cut every way (whole,
    1-char, at every 2-way split, at random); tool inputs that JSON cannot carry as Python
    holds them (encoded)."""
    bodies: dict[str, str] = {}
    rng = random.Random(22)
    for n in range(60):
        bodies[f"framing/{n}"] = "".join(map(vercel.sse, framing(rng))) + vercel.DONE
    text = json.dumps({"s": ASTRAL}, ensure_ascii=False)
    coded = code_units(text)
    for way, pieces in chunkings(coded):
        for kind in ("text", "reasoning", "tool"):
            chunks = ui_pieces(kind, list(pieces))
            if kind == "tool":
                chunks.append({"type": "tool-input-available", "toolCallId": "c",
                               "toolName": "f", "input": json.loads(text)})  # fmt: skip
            body = "".join(map(vercel.sse, [*chunks, {"type": "finish"}]))
            bodies[f"halves/{kind} {way}"] = body + vercel.DONE
    early = ui_pieces("tool", ['{"s": "\ud83d'])  # an output before the input ends
    early.append({"type": "tool-output-available", "toolCallId": "c", "output": 1})
    bodies["halves/output-first"] = "".join(map(vercel.sse, early)) + vercel.DONE
    for n, piece in enumerate(
        [
            '{"a": 1e400, "b": -1e999}',
            '{"a": NaN, "b": [Infinity]}',
            '{"a": "\ud83d", "b": "x\\udc00"}',
            '{"a": ' + "9" * 5000 + "}",
        ]
    ):
        acc = MessageAccumulator(repair=True)
        updates = (u for event in tool_stream([piece[:7], piece[7:]]) for u in acc.feed(event))
        bodies[f"nonfinite/{n}"] = "".join(vercel.ui_message_stream(updates, accumulator=acc))
    return bodies


def nulled(value: Any) -> Any:
    """A value as JavaScript writes it back (JSON.stringify): NaN and the infinities as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [nulled(v) for v in value]
    if isinstance(value, dict):
        return {k: nulled(v) for k, v in value.items()}
    return value


def unheld(message: Any) -> Any:
    """The client's message without the half of a pair at the end of a streaming text or raw
    input, which we hold back until its other half comes."""
    parts = []
    for part in message["parts"]:
        part = dict(part)
        for key in ("text", "rawInput"):
            value = part.get(key)
            if isinstance(value, str) and value and "\ud800" <= value[-1] <= "\udbff":
                part[key] = value[:-1]
        parts.append(part)
    return {**message, "parts": parts}


def test_the_client_reads_generated_streams_as_we_do() -> None:
    """Every message the client writes is ours (as JSON carries it, and but for a half held
    back), and its last one is our message at the end of the stream."""
    bodies = generated()
    theirs = run_client(bodies)
    for name, body in bodies.items():
        messages, errors = ours(body)
        assert theirs[name]["errors"] == errors, name
        assert len(theirs[name]["messages"]) == len(messages), name
        for step, (mine, their) in enumerate(zip(messages, theirs[name]["messages"], strict=True)):
            same_but_streaming_input(nulled(mine), unheld(their), f"{name} #{step}")
        acc = vercel.UIMessageAccumulator().read(body)
        if theirs[name]["messages"]:
            last = theirs[name]["messages"][-1]
            assert_same_json(nulled(json.loads(vercel.dump(acc.message))), last, name)

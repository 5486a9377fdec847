"""Bedrock event stream bodies made from text: the fixtures' generator, and an encoder for tests.

An encoder of the AWS event stream framing written from the format (not from the decoder under
test): :func:`frame` packs typed headers and a payload into one message with both CRCs.

``fixtures/bedrock/X.jsonl`` describes a body, one message a line:

- ``{"event": "contentBlockDelta", "data": {...}}``: a ``ConverseStream`` event (headers
  ``:event-type``, ``:content-type: application/json``, ``:message-type: event``, in the order
  Bedrock sends them), its payload the compact JSON of ``data`` with Bedrock's padding field
  ``p`` added;
- ``{"exception": "throttlingException", "data": {"message": ...}}``: an exception message;
- ``{"chunk": {...}}``: an ``InvokeModelWithResponseStream`` chunk carrying that Anthropic
  Messages event as base64 ``bytes`` (and ``p``).

``python tests/helpers/bedrock_frames.py`` writes each ``X.bin`` from its ``X.jsonl``;
``tests/providers/bedrock/test_bedrock.py`` checks that the two agree.
"""

from __future__ import annotations

import base64
import json
import random
import struct
import sys
import uuid
import zlib
from typing import Any, Final

import paths

FIXTURES: Final = paths.FIXTURES / "bedrock"
#: What Bedrock's padding field ``p`` is cut from.
PADDING: Final = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

#: A header: its name, its type (0-9) and its value.
Header = tuple[str, int, Any]


def header(name: str, kind: int, value: Any) -> bytes:
    """One header, packed."""
    raw = name.encode("utf-8")
    out = struct.pack("!B", len(raw)) + raw + struct.pack("!B", kind)
    if kind in (0, 1):
        return out
    if kind in (2, 3, 4, 5, 8):
        return out + struct.pack({2: "!b", 3: "!h", 4: "!i", 5: "!q", 8: "!q"}[kind], value)
    if kind in (6, 7):
        data: bytes = value if kind == 6 else value.encode("utf-8")
        return out + struct.pack("!H", len(data)) + data
    assert kind == 9
    return out + bytes(value.bytes if isinstance(value, uuid.UUID) else value)


def frame(headers: list[Header], payload: bytes) -> bytes:
    """One message: prelude, prelude CRC, headers, payload, message CRC."""
    packed = b"".join(header(*h) for h in headers)
    total = 16 + len(packed) + len(payload)
    prelude = struct.pack("!II", total, len(packed))
    prelude += struct.pack("!I", zlib.crc32(prelude))
    body = prelude + packed + payload
    return body + struct.pack("!I", zlib.crc32(body))


def compact(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def padded(data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    return {**data, "p": PADDING[: rng.randint(1, len(PADDING))]}


def event_frame(kind: str, data: dict[str, Any], rng: random.Random | None = None) -> bytes:
    payload = compact(padded(data, rng) if rng else data)
    headers = [(":event-type", 7, kind), (":content-type", 7, "application/json")]
    return frame([*headers, (":message-type", 7, "event")], payload)


def exception_frame(kind: str, data: dict[str, Any]) -> bytes:
    headers = [(":exception-type", 7, kind), (":content-type", 7, "application/json")]
    return frame([*headers, (":message-type", 7, "exception")], compact(data))


def chunk_frame(event: dict[str, Any], rng: random.Random | None = None) -> bytes:
    wrapped = {"bytes": base64.b64encode(compact(event)).decode("ascii")}
    return event_frame("chunk", wrapped, rng)


def lines(name: str) -> list[dict[str, Any]]:
    text = (FIXTURES / f"{name}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def build(name: str) -> bytes:
    """The body ``X.jsonl`` describes (the padding drawn from a generator seeded by the name)."""
    rng = random.Random(zlib.crc32(name.encode()))
    out = []
    for line in lines(name):
        if "event" in line:
            out.append(event_frame(line["event"], line["data"], rng))
        elif "exception" in line:
            out.append(exception_frame(line["exception"], line["data"]))
        else:
            out.append(chunk_frame(line["chunk"], rng))
    return b"".join(out)


def main() -> int:
    for source in sorted(FIXTURES.glob("*.jsonl")):
        target = source.with_suffix(".bin")
        target.write_bytes(build(source.stem))
        print(f"{target.name}: {target.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The recorded streams in fixtures/: how the tests cut their bytes, and which are well-formed.

Every fixture is replayed in each of :func:`ways`: whole, in chunks of 1, 3, 7 and 64 bytes,
at seeded random split points, and as text (decoded first, then cut): the result must not
depend on where the body was cut.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final

import paths
from chunking import T, random_splits
from jsonsnap.bedrock import EventStreamDecoder
from jsonsnap.sse import ServerSentEvent, SSEDecoder
from jsonsnap.streams import PROTOCOLS, Accumulator
from values import diff

ROOT: Final = paths.FIXTURES
#: The chunk sizes every recording is replayed at.
CHUNK_SIZES: Final = (1, 3, 7, 64)


def ways(random_rounds: int, text_rounds: int) -> tuple[str, ...]:
    """The labels of the cuts :func:`cut` knows, for parametrising tests."""
    return (
        "whole",
        *(f"{size}-byte" for size in CHUNK_SIZES),
        *(f"random#{seed}" for seed in range(random_rounds)),
        "text-whole",
        *(f"text-random#{seed}" for seed in range(text_rounds)),
    )


def random_pieces(data: T, seed: int) -> list[T]:
    """``data`` cut at random points, into pieces of a random length class (from tiny to
    large), chosen by ``seed``."""
    rng = random.Random(seed)
    return random_splits(data, rng, rng.choice((2, 5, 17, 97, 400)))


def chunks_of(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def cut(data: bytes, way: str) -> Sequence[bytes | str]:
    """The body cut as ``way`` (one of :func:`ways`) says."""
    kind, _, arg = way.partition("#")
    if kind == "whole":
        return [data]
    if kind.endswith("-byte"):
        return chunks_of(data, int(kind.removesuffix("-byte")))
    if kind == "random":
        return random_pieces(data, int(arg))
    text = data.decode("utf-8")  # a BOM, if any, stays: the decoder must drop it
    if kind == "text-whole":
        return [text]
    assert kind == "text-random", way
    return random_pieces(text, 100 + int(arg))


def byte_cuts(body: bytes, rounds: int) -> Iterator[tuple[str, list[bytes]]]:
    """The body whole, byte by byte and at ``rounds`` random splits (bytes only)."""
    yield "whole", [body]
    yield "1-byte", chunks_of(body, 1)
    for seed in range(rounds):
        yield f"random#{seed}", random_pieces(body, seed)


def _tool_states(value: Any) -> Iterator[dict[str, Any]]:
    """Every tool state dict under ``tools`` (keyed by index, maybe per choice, or listed)."""
    if isinstance(value, dict):
        if any(k in value for k in ("status", "complete", "raw")):
            yield value
        else:
            for v in value.values():
                yield from _tool_states(v)
    elif isinstance(value, list):
        for v in value:
            yield from _tool_states(v)


def well_formed(path: Path) -> bool:
    """Whether the expected ``.json`` beside ``path`` says: done, no error, tools complete.

    A missing expected file is an error (``FileNotFoundError``), not "not well-formed": a
    fixture without its expectation must fail the run, not drop out of the comparisons."""
    expected = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    if expected.get("done") is not True or expected.get("error") is not None:
        return False
    return all(
        tool.get("error") is None and tool.get("status", "complete") == "complete"
        for tool in _tool_states(expected.get("tools"))
    )


def assert_same_json(want: Any, got: Any, label: str) -> None:
    """``got`` equals ``want`` as JSON: object keys in any order (JSON objects are unordered,
    and the APIs do not promise an order), types strictly (``1``, ``1.0`` and ``true`` differ)."""
    difference = diff(want, got, key_order=False)
    assert difference is None, f"{label}: {difference}"


README: Final = ROOT.parent / "README.md"
#: The pages a reader is sent to, each with its examples run: the front page and every page
#: in docs/ but the one benchmarks/run.py writes.
PAGES: Final = (
    README,
    *sorted(p for p in (ROOT.parent / "docs").glob("*.md") if p.name != "benchmarks.md"),
)
#: The mark of an example that is not run where it stands, just above its fence, with why.
NOT_RUN: Final = re.compile(r"^<!-- not run: (?P<why>[^\n]*?) -->\n```python\n", re.MULTILINE)


def page_section(page: Path, heading: str | None) -> str:
    """The text of ``page``'s section ``heading`` (a ``## `` title), or the whole page."""
    text = page.read_text(encoding="utf-8")
    if heading is None:
        return text
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def readme_blocks(
    heading: str | None = None, page: Path = README, *, not_run: bool = False
) -> list[str]:
    """The ```python blocks of ``page``'s section ``heading`` (a ``## `` title; the whole page
    for ``None``), in order: the examples the tests run as they are written. A block marked
    ``<!-- not run: why -->`` is left out, or with ``not_run=True`` the only kind returned."""
    section = page_section(page, heading)
    marked = {m.end() for m in NOT_RUN.finditer(section)}
    found = re.finditer(r"^```python\n(.*?)^```$", section, flags=re.MULTILINE | re.DOTALL)
    blocks = [m.group(1) for m in found if (m.start(1) in marked) == not_run]
    assert blocks, f"no python example under {heading!r} in {page.name}"
    return blocks


#: Every folder of recorded streams: the pattern of its recordings, and the protocol of each
#: recording by the start of its name (the first prefix that fits; ``""`` fits every name).
FOLDERS: Final[dict[str, tuple[str, dict[str, str]]]] = {
    "anthropic": ("*.sse", {"": "anthropic"}),
    "openai": ("*.sse", {"chat_": "chat", "responses_": "responses"}),
    "openai-compatible": ("*.sse", {"": "chat"}),
    "gemini": ("*.sse", {"": "gemini"}),
    "bedrock": ("*.bin", {"converse_": "bedrock", "invoke_": "bedrock-anthropic"}),
    "vercel": ("*.sse", {"": "ui-message"}),
}
#: The options a folder's expected files were written with (the compatible servers' streams
#: are read with the compatible profile, see fixtures/openai-compatible/README.md).
OPTIONS: Final[dict[str, dict[str, Any]]] = {"openai-compatible": {"compatible": True}}


def protocol_of(path: Path) -> str:
    """The protocol of a recording, from its folder and name (see :data:`FOLDERS`)."""
    _, protocols = FOLDERS[path.parent.name]
    return next(name for prefix, name in protocols.items() if path.name.startswith(prefix))


def all_fixtures() -> list[tuple[str, Path]]:
    """Every recorded stream, of every folder, with the protocol it is in (from its folder and
    name); :func:`accumulator` makes the accumulator to read it with."""
    found = []
    for folder, (pattern, _) in FOLDERS.items():
        found += [(protocol_of(path), path) for path in sorted((ROOT / folder).glob(pattern))]
    return found


def fixture_id(path: Path) -> str:
    """A recording's name in test ids: its folder and stem (two folders may share a stem)."""
    return f"{path.parent.name}/{path.stem}"


def first_event(path: Path) -> tuple[ServerSentEvent | dict[str, Any], dict[str, Any]]:
    """A recording's first event that carries a JSON object: as it comes, and its data decoded.

    In an event stream, the ``ServerSentEvent`` (a keepalive before it, whose data is no JSON,
    says nothing); in Bedrock's binary framing, the message as boto3 yields it, ``{event type:
    payload}``, which is what ``detect()`` takes."""
    body = path.read_bytes()
    if path.suffix == ".bin":
        message, *_ = EventStreamDecoder().feed(body)
        assert message.event_type is not None, message
        event = {message.event_type: json.loads(message.payload)}
        return event, event
    decoder = SSEDecoder()
    for sse in [*decoder.feed(body), *decoder.close()]:
        with contextlib.suppress(json.JSONDecodeError):
            data = json.loads(sse.data)
            if isinstance(data, dict):
                return sse, data
    raise AssertionError(f"{path}: no event carries a JSON object")


def accumulator(protocol: str, path: Path) -> Accumulator:
    """A new accumulator of ``protocol``, with the options the recording's expected file was
    written with."""
    return PROTOCOLS[protocol](**OPTIONS.get(path.parent.name, {}))


# --------------------------------------------------------------------------- end states


def error_state(error: Any) -> dict[str, Any] | None:
    """A ``StreamError`` (or ``None``) as the expected files write it."""
    return None if error is None else {"type": error.error_type, "message": error.message}


def tool_state(tool: Any) -> dict[str, Any]:
    """A tool input's end state as the expected files write it: status, JSON error, raw text."""
    err = tool.error
    return {
        "status": tool.status,
        "error": None if err is None else {"pos": err.pos, "msg": err.msg},
        "raw": tool.raw,
    }


def run_readme_examples(
    blocks: Sequence[str], namespace: dict[str, object], page: Path = README
) -> int:
    """Run ``page``'s ``blocks`` in order in ``namespace``: each must print exactly its
    ``# -> text`` lines (a bare ``# ->`` is an empty line). How many lines were checked."""
    checked = 0
    for block in blocks:
        expected = [m.group(1) or "" for m in re.finditer(r"# ->(?: (.*))?$", block, re.M)]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, str(page), "exec", dont_inherit=True), namespace)
        assert out.getvalue().splitlines() == expected, block
        checked += len(expected)
    return checked

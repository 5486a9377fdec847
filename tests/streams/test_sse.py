"""The event-stream decoder against the WHATWG rules, every input cut every way."""

from __future__ import annotations

import ast
import asyncio
import subprocess
import sys
import tracemalloc
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path

import pytest

import jsonsnap.sse
from chunking import chunkings
from jsonsnap.sse import ServerSentEvent, SSEDecoder, aiter_events, iter_events

E = ServerSentEvent


def decode(chunks: Sequence[bytes | str], **options: str) -> list[ServerSentEvent]:
    decoder = SSEDecoder(**options)
    events: list[ServerSentEvent] = []
    for chunk in chunks:
        events.extend(decoder.feed(chunk))
    events.extend(decoder.close())
    return events


# (the WHATWG rule, the stream, the events it dispatches)
CASES: list[tuple[str, str, list[ServerSentEvent]]] = [
    ("a blank line dispatches the event", "data: hello\n\n", [E(data="hello")]),
    (
        "lines end at CRLF, LF or CR",
        "data: a\r\n\r\ndata: b\r\rdata: c\n\n",
        [E(data="a"), E(data="b"), E(data="c")],
    ),
    ("data lines are joined with LF", "data: one\ndata: two\n\n", [E(data="one\ntwo")]),
    ("a field name alone has an empty value", "data\n\n", [E(data="")]),
    ("an empty data value still counts", "data:\n\n", [E(data="")]),
    ("the value follows the colon", "data:no space\n\n", [E(data="no space")]),
    ("one leading space is removed", "data:  two spaces\n\n", [E(data=" two spaces")]),
    (
        "the event type applies to one event",
        "event: add\ndata: 1\n\ndata: 2\n\n",
        [E("add", "1"), E("message", "2")],
    ),
    ("a block with no data is not dispatched", "event: x\n\ndata: y\n\n", [E("message", "y")]),
    ("comment lines are ignored", ": a comment\ndata: x\n:another\n\n", [E(data="x")]),
    ("blank lines alone dispatch nothing", "\n\n\n", []),
    (
        "the last event id persists; an empty id resets it",
        "id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n",
        [E(data="a", id="7"), E(data="b", id="7"), E(data="c")],
    ),
    (
        "an id containing NUL is ignored",
        "id: 1\ndata: a\n\nid: x\0y\ndata: b\n\n",
        [E(data="a", id="1"), E(data="b", id="1")],
    ),
    ("an id set in a block with no data persists", "id: 3\n\ndata: a\n\n", [E(data="a", id="3")]),
    (
        "retry is a number of milliseconds",
        "retry: 1500\ndata: a\n\ndata: b\n\n",
        [E(data="a", retry=1500), E(data="b")],
    ),
    (
        "retry counts only when all ASCII digits",
        "retry: 15a\nretry:\nretry: -1\nretry: \u0661\ndata: a\n\n",
        [E(data="a")],
    ),
    (
        "retry is an integer in base ten: leading zeros are dropped",
        "retry: 000250\ndata: a\n\n",
        [E(data="a", retry=250)],
    ),
    (
        "a retry of more than 15 digits is not a time anyone waits: ignored",
        "retry: 10\nretry: 1234567890123456\ndata: a\n\n",
        [E(data="a", retry=10)],
    ),
    (
        "unknown fields are ignored (names are case-sensitive)",
        "foo: bar\ndata: a\nDATA: b\n\n",
        [E(data="a")],
    ),
    (
        "nothing else ends a line",
        "data: a\u2028b\x85c\x0cd\x0be\x1cf\n\n",
        [E(data="a\u2028b\x85c\x0cd\x0be\x1cf")],
    ),
    ("an unterminated event is dropped at the end", "data: unterminated\n", []),
    ("an unterminated last line is dropped", "data: a\n\ndata: no blank line", [E(data="a")]),
    ("one leading byte order mark is ignored", "\ufeffdata: bom\n\n", [E(data="bom")]),
    (
        "only one byte order mark is ignored",
        "\ufeff\ufeffdata: two boms\n\ndata: b\n\n",
        [E(data="b")],
    ),
    ("the stream is UTF-8", "data: \u00e9\u4e2d\U0001f600\n\n", [E(data="\u00e9\u4e2d\U0001f600")]),
]


@pytest.mark.parametrize(("rule", "stream", "expected"), CASES, ids=[c[0] for c in CASES])
def test_event_stream_rules(rule: str, stream: str, expected: list[ServerSentEvent]) -> None:
    for label, pieces in chunkings(stream.encode("utf-8")):
        assert decode(pieces) == expected, label
    for label, text_pieces in chunkings(stream, rounds=1):
        assert decode(text_pieces) == expected, label


def test_cr_at_the_end_of_a_chunk_and_lf_at_the_start_of_the_next_are_one_line_end() -> None:
    # Two line ends would make a blank line and dispatch "a" early, then "b" separately.
    assert decode([b"data: a\r", b"\ndata: b\r\n\r\n"]) == [E(data="a\nb")]
    assert decode([b"data: a\r", b"", b"\n", b"data: b\n\n"]) == [E(data="a\nb")]


def test_split_byte_order_mark_is_stripped_once() -> None:
    assert decode([b"\xef", b"\xbb", b"\xbfdata: x\n\n"]) == [E(data="x")]
    assert decode([b"", b"\xef\xbb\xbf", b"data: x\n\n"]) == [E(data="x")]


def test_invalid_utf8_is_replaced_or_refused() -> None:
    stream = b"data: a\xff\xfeb\n\n"
    assert decode([stream]) == [E(data="a\ufffd\ufffdb")]
    with pytest.raises(UnicodeDecodeError):
        decode([stream], errors="strict")
    # A character cut off at the very end of the stream.
    assert decode([b"data: a\n\n", b"data: \xe4\xb8"]) == [E(data="a")]
    with pytest.raises(UnicodeDecodeError):
        decode([b"data: a\n\n", b"data: \xe4\xb8"], errors="strict")


def test_a_retry_of_5000_digits_is_ignored_not_an_error() -> None:
    """Python refuses to convert a string of more than 4,300 digits to an int (ValueError):
    the decoder must not pass that on."""
    decoder = SSEDecoder()
    events = decoder.feed("retry: 7\n\nretry: " + "9" * 5000 + "\ndata: x\n\n")
    assert events == [E(data="x")] and decoder.retry == 7
    zeros = decoder.feed("retry: " + "0" * 5000 + "42\ndata: y\n\n")
    assert zeros == [E(data="y", retry=42)] and decoder.retry == 42


def test_decoder_state_is_readable() -> None:
    decoder = SSEDecoder()
    decoder.feed("id: 9\nretry: 250\n\n")
    assert (decoder.last_event_id, decoder.retry) == ("9", 250)


def test_a_16_mb_event_in_4_kib_chunks() -> None:
    """The memory each feed() allocates, summed over the 4,096 chunks, is a few times the
    event's size: what the decoder copies grows with the input, not with its square.

    Measured in bytes, not seconds, so a loaded machine cannot make it fail. Keeping the line
    as one string (``self._buf = self._buf + chunk``, or joining the pieces so far at every
    chunk to look for its end) allocates the whole line so far on every feed: about 32 GB in
    all, against the 16 MB of the event (the test fails after a few hundred chunks)."""
    size = 16 * 1024 * 1024
    body = b"data: " + b"x" * size + b"\n\n"
    chunks = [body[i : i + 4096] for i in range(0, len(body), 4096)]
    decoder = SSEDecoder()
    events: list[ServerSentEvent] = []
    allocated = 0  # the peak memory of each feed above what was held before it, summed
    budget = 8 * len(body)
    tracemalloc.start()
    try:
        for i, chunk in enumerate(chunks):
            held, _ = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            events.extend(decoder.feed(chunk))
            allocated += tracemalloc.get_traced_memory()[1] - held
            assert allocated <= budget, f"{allocated:,} bytes allocated by chunk {i}"
    finally:
        tracemalloc.stop()
    assert len(events) == 1 and events[0].data == "x" * size
    # The chunks did allocate: about the size of the event, and its line joined once at the end.
    assert allocated >= size
    # The unfinished line is kept as pieces, joined once when its end arrives.
    assert decoder._line == []


def test_iteration_helpers() -> None:
    chunks = [b"data: 1\n", b"\ndata", b": 2\n\n"]
    assert list(iter_events(chunks)) == [E(data="1"), E(data="2")]

    async def source() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    async def collect() -> list[ServerSentEvent]:
        return [event async for event in aiter_events(source())]

    assert asyncio.run(collect()) == [E(data="1"), E(data="2")]


#: Modules that do I/O (network, event loops, processes, files and the OS): a sans-IO decoder
#: needs none of them. ``io`` is not here: its in-memory buffers are plain data structures.
IO_MODULES = frozenset(
    {
        "aiohttp",
        "anyio",
        "asyncio",
        "concurrent",
        "fcntl",
        "ftplib",
        "h11",
        "h2",
        "http",
        "httpcore",
        "httpx",
        "httpx2",
        "mmap",
        "multiprocessing",
        "os",
        "pathlib",
        "pty",
        "requests",
        "select",
        "selectors",
        "shutil",
        "signal",
        "smtplib",
        "socket",
        "socketserver",
        "ssl",
        "subprocess",
        "tempfile",
        "threading",
        "trio",
        "urllib",
        "urllib3",
        "websocket",
        "websockets",
        "xmlrpc",
    }
)


def imports_of(path: Path) -> Iterator[str]:
    """Every module the jsonsnap module at ``path`` imports, wherever the statement is (inside
    functions and ``if TYPE_CHECKING:`` blocks too); relative imports made absolute."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                assert node.module is not None
                yield node.module
                continue
            assert node.level == 1, f"{path.name}: jsonsnap has no subpackages"
            if node.module is None:  # from . import x: the package, and x may be a module
                yield "jsonsnap"
                yield from (f"jsonsnap.{alias.name}" for alias in node.names)
            else:
                yield f"jsonsnap.{node.module}"
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            assert name not in ("__import__", "import_module"), f"{path.name}: dynamic import"


def test_decoder_imports_no_io_library() -> None:
    """sse.py, and every jsonsnap module it imports in turn, import no I/O module."""
    package = Path(jsonsnap.sse.__file__).parent
    importer: dict[str, str] = {}  # every module imported -> the jsonsnap module importing it
    todo = ["jsonsnap.sse"]
    while todo:
        module = todo.pop()
        *_, name = module.partition(".")
        path = package / f"{name}.py" if name else package / "__init__.py"
        if not path.exists():  # from . import x, where x is not a module
            continue
        for imported in imports_of(path):
            if imported not in importer:
                importer[imported] = module
                if imported.partition(".")[0] == "jsonsnap":
                    todo.append(imported)
    assert {"codecs", "re", "dataclasses"} <= importer.keys(), importer  # it parsed them
    io = {name: by for name, by in importer.items() if name.partition(".")[0] in IO_MODULES}
    assert not io, f"I/O modules imported (module: imported by): {io}"


def test_importing_the_decoder_loads_no_io_library() -> None:
    """At run time too: importing jsonsnap.sse (and so the jsonsnap package) in a fresh
    interpreter loads no I/O module that the interpreter had not loaded already."""
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import jsonsnap.sse\n"
        "print('\\n'.join(sorted(set(sys.modules) - before)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = done.stdout.split()
    assert "jsonsnap.sse" in loaded
    io = [name for name in loaded if name.split(".")[0] in IO_MODULES]
    assert not io, f"importing jsonsnap.sse loaded {io}"

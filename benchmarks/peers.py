"""Adapters that stream a document through jsonsnap and through the other partial-JSON parsers.

Every adapter does the same job: take the fragments of one document, feed them one by one,
produce the parser's best value (its *snapshot*) after every fragment, and give the final value
at the end. Peers come in two kinds, which decides how their time is projected (see run.py):

``incremental``
    keeps its state between fragments (jsonsnap, jsonriver, streaming-json-parser, ijson). The
    work per fragment should be proportional to the fragment, but some of these copy or
    re-scan the string being received on every fragment, so inside a long string it grows with
    the string;
``reparse``
    has no state: the whole buffer received so far is parsed again after every fragment, so
    the work per fragment is proportional to the length of the prefix (jiter, pydantic_core,
    partial-json-parser, partialjson, json_repair, langchain-core).

The peer packages are optional: each is imported only when used, through ``importlib``, so this
module type-checks and runs whether they are installed or not.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections import deque
from collections.abc import Callable, Generator, Sequence
from typing import Any, Literal

import jsonsnap

Model = Literal["incremental", "reparse"]


def _import(name: str) -> Any:
    return importlib.import_module(name)


class Stream:
    """One document being streamed: ``step()`` feeds a fragment and returns the snapshot."""

    def step(self, fragment: str) -> Any:
        raise NotImplementedError

    def finish(self) -> Any:
        """The final value of the complete document."""
        raise NotImplementedError


class Peer:
    """A parser under test. Subclasses set the class attributes and ``open()``."""

    id: str = ""
    """Name on the command line (``--peers``) and in the tables."""
    distribution: str = ""
    """The installable distribution, for its version."""
    modules: tuple[str, ...] = ()
    """Modules that must import for the peer to be available."""
    model: Model = "incremental"
    pure_python: bool = True
    """Whether the streaming work is done by Python code (for the A target)."""
    partial_strings: bool = True
    """Whether snapshots show a string while it is still being received."""
    notes: str = ""

    def __init__(self) -> None:
        self._available: bool | None = None
        self.reason = ""

    def available(self) -> bool:
        """True when the peer's modules import."""
        if self._available is None:
            try:
                for module in self.modules:
                    _import(module)
            except Exception as exc:  # any failure to import makes the peer unavailable
                self._available = False
                self.reason = f"{type(exc).__name__}: {exc}"
            else:
                self._available = True
        return self._available

    def version(self) -> str:
        try:
            return importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    def open(self) -> Stream:
        raise NotImplementedError

    def run(self, fragments: Sequence[str]) -> Any:
        """Stream every fragment, taking a snapshot after each; return the final value."""
        stream = self.open()
        step = stream.step
        for fragment in fragments:
            step(fragment)
        return stream.finish()

    def one_shot(self, text: str) -> Any:
        """The best value of a (possibly truncated) document given whole."""
        return self.open().step(text)


# --------------------------------------------------------------------------- jsonsnap


class _JsonsnapStream(Stream):
    def __init__(self) -> None:
        self.parser = jsonsnap.Parser()

    def step(self, fragment: str) -> Any:
        self.parser.feed(fragment)
        return self.parser.snapshot()

    def finish(self) -> Any:
        return self.parser.close()


class Jsonsnap(Peer):
    id = "jsonsnap"
    distribution = "jsonsnap"
    modules = ("jsonsnap",)
    model = "incremental"
    notes = "Parser.feed() + snapshot() per fragment, close() for the final value"

    def open(self) -> Stream:
        return _JsonsnapStream()

    def run(self, fragments: Sequence[str]) -> Any:
        parser = jsonsnap.Parser()
        feed = parser.feed
        snapshot = parser.snapshot
        for fragment in fragments:
            feed(fragment)
            snapshot()
        return parser.close()

    def one_shot(self, text: str) -> Any:
        return jsonsnap.parse_partial(text)


# --------------------------------------------------------------------------- re-parsers


class _ReparseStream(Stream):
    def __init__(self, parse: Callable[[str], Any]) -> None:
        self.parse = parse
        self.buf = ""
        self.value: Any = None

    def step(self, fragment: str) -> Any:
        self.buf += fragment
        self.value = self.parse(self.buf)
        return self.value

    def finish(self) -> Any:
        # The snapshot after the last fragment is the parse of the complete document.
        return self.value


class Reparse(Peer):
    """A stateless parser called on the whole buffer after every fragment."""

    model = "reparse"

    def parser(self) -> Callable[[str], Any]:
        raise NotImplementedError

    def open(self) -> Stream:
        return _ReparseStream(self.parser())

    def run(self, fragments: Sequence[str]) -> Any:
        parse = self.parser()
        buf = ""
        value: Any = None
        for fragment in fragments:
            buf += fragment
            value = parse(buf)
        return value


class Jiter(Reparse):
    distribution = "jiter"
    modules = ("jiter",)
    pure_python = False

    def __init__(self, mode: Literal["trailing-strings"] | bool) -> None:
        super().__init__()
        self.mode = mode
        self.id = "jiter-trailing" if mode == "trailing-strings" else "jiter-partial"
        self.partial_strings = mode == "trailing-strings"
        self.notes = (
            f"from_json(buf.encode(), partial_mode={mode!r}) on the whole buffer per fragment"
        )

    def parser(self) -> Callable[[str], Any]:
        from_json = _import("jiter").from_json
        mode = self.mode

        def parse(buf: str) -> Any:
            return from_json(buf.encode(), partial_mode=mode)

        return parse

    def run(self, fragments: Sequence[str]) -> Any:
        # Inlined: a wrapper function per call would bill its overhead to jiter.
        from_json = _import("jiter").from_json
        mode = self.mode
        buf = ""
        value: Any = None
        for fragment in fragments:
            buf += fragment
            value = from_json(buf.encode(), partial_mode=mode)
        return value


class PydanticCore(Reparse):
    distribution = "pydantic-core"
    modules = ("pydantic_core",)
    pure_python = False

    def __init__(self, mode: Literal["trailing-strings"] | bool) -> None:
        super().__init__()
        self.mode = mode
        self.id = (
            "pydantic-core-trailing" if mode == "trailing-strings" else "pydantic-core-partial"
        )
        self.partial_strings = mode == "trailing-strings"
        self.notes = f"from_json(buf, allow_partial={mode!r}) on the whole buffer per fragment"

    def parser(self) -> Callable[[str], Any]:
        from_json = _import("pydantic_core").from_json
        mode = self.mode

        def parse(buf: str) -> Any:
            return from_json(buf, allow_partial=mode)

        return parse

    def run(self, fragments: Sequence[str]) -> Any:
        from_json = _import("pydantic_core").from_json
        mode = self.mode
        buf = ""
        value: Any = None
        for fragment in fragments:
            buf += fragment
            value = from_json(buf, allow_partial=mode)
        return value


class PartialJsonParser(Reparse):
    id = "partial-json-parser"
    distribution = "partial-json-parser"
    modules = ("partial_json_parser",)
    notes = "partial_json_parser.loads(buf): completes the text, then json.loads"

    def parser(self) -> Callable[[str], Any]:
        loads: Callable[[str], Any] = _import("partial_json_parser").loads
        return loads


class PartialJson(Reparse):
    id = "partialjson"
    distribution = "partialjson"
    modules = ("partialjson",)
    notes = "JSONParser().parse(buf): json.loads, else its own Python parser"

    def parser(self) -> Callable[[str], Any]:
        def ignore(text: str, data: Any, rest: str) -> None:
            """The default callback prints every partial parse's leftover text."""

        instance = _import("partialjson").JSONParser(on_extra_token=ignore)
        parse: Callable[[str], Any] = instance.parse
        return parse


class JsonRepair(Reparse):
    id = "json-repair"
    distribution = "json-repair"
    modules = ("json_repair",)
    notes = "repair_json(buf, return_objects=True): json.loads, else its repairing parser"

    def parser(self) -> Callable[[str], Any]:
        repair_json = _import("json_repair").repair_json

        def parse(buf: str) -> Any:
            return repair_json(buf, return_objects=True)

        return parse


class LangchainCore(Reparse):
    id = "langchain-core"
    distribution = "langchain-core"
    modules = ("langchain_core.utils.json",)
    notes = "langchain_core.utils.json.parse_partial_json(buf): closes the text, then json.loads"

    def parser(self) -> Callable[[str], Any]:
        parse: Callable[[str], Any] = _import("langchain_core.utils.json").parse_partial_json
        return parse


# --------------------------------------------------------------------------- incremental peers


class _Suspend:
    """Awaiting this suspends the coroutine that drives jsonriver, handing control back."""

    def __await__(self) -> Generator[None, None, None]:
        yield None


class _Fragments:
    """An async iterator of fragments that suspends (instead of ending) while none is queued."""

    def __init__(self) -> None:
        self.queue: deque[str] = deque()
        self.closed = False

    def __aiter__(self) -> _Fragments:
        return self

    async def __anext__(self) -> str:
        while not self.queue:
            if self.closed:
                raise StopAsyncIteration
            await _Suspend()
        return self.queue.popleft()


class _JsonriverStream(Stream):
    """Drives jsonriver's ``async for value in parse(chunks)`` synchronously.

    The coroutine is resumed by hand until it asks for a fragment that has not arrived yet;
    every value it yields meanwhile is the snapshot (the same object, grown in place).
    """

    def __init__(self) -> None:
        self.fragments = _Fragments()
        self.values = _import("jsonriver").parse(self.fragments)
        self.pending: Any = None
        self.value: Any = None
        self.done = False

    def _pump(self) -> None:
        while not self.done:
            if self.pending is None:
                self.pending = self.values.__anext__()
            try:
                self.pending.send(None)
            except StopIteration as stop:  # the generator yielded a value
                self.value = stop.value
                self.pending = None
            except StopAsyncIteration:  # the document is complete
                self.pending = None
                self.done = True
            else:  # suspended: waiting for the next fragment
                return

    def step(self, fragment: str) -> Any:
        self.fragments.queue.append(fragment)
        self._pump()
        return self.value

    def finish(self) -> Any:
        self.fragments.closed = True
        self._pump()
        return self.value


class Jsonriver(Peer):
    id = "jsonriver"
    distribution = "jsonriver"
    modules = ("jsonriver",)
    model = "incremental"
    notes = (
        "async parse(chunks) driven synchronously, one resume per fragment; "
        "numbers come out as float"
    )

    def open(self) -> Stream:
        return _JsonriverStream()


class _StreamingJsonStream(Stream):
    def __init__(self) -> None:
        self.parser = _import("streaming_json_parser").StreamingJsonParser()

    def step(self, fragment: str) -> Any:
        return self.parser.feed(fragment).value

    def finish(self) -> Any:
        result = self.parser.finish()
        if not result.complete:
            raise ValueError(f"not complete: {result.status} {result.error}")
        return result.value


class StreamingJsonParser(Peer):
    id = "streaming-json-parser"
    distribution = "streaming-json-parser"
    modules = ("streaming_json_parser",)
    model = "incremental"
    notes = "StreamingJsonParser().feed(fragment).value per fragment, finish() at the end"

    def available(self) -> bool:
        ok = super().available()
        if ok:
            module = _import("streaming_json_parser.high_performance_parser")
            native = getattr(module, "_backend_native", None)
            self.pure_python = native is None
            backend = "pure-Python incremental core" if native is None else "native backend"
            self.notes = f"{type(self).notes} ({backend})"
        return ok

    def open(self) -> Stream:
        return _StreamingJsonStream()


class _BuilderTarget:
    """Receives ijson's (event, value) pairs and builds the value with ijson's ObjectBuilder."""

    def __init__(self, builder: Any) -> None:
        self.builder = builder
        self.event = builder.event

    def send(self, item: tuple[str, Any]) -> None:
        self.event(item[0], item[1])


class _IjsonStream(Stream):
    def __init__(self) -> None:
        ijson = _import("ijson")
        self.builder = _import("ijson.common").ObjectBuilder()
        self.coro = ijson.basic_parse_coro(_BuilderTarget(self.builder), use_float=True)

    def step(self, fragment: str) -> Any:
        self.coro.send(fragment.encode())
        return getattr(self.builder, "value", None)

    def finish(self) -> Any:
        self.coro.close()
        return self.builder.value


class Ijson(Peer):
    id = "ijson"
    distribution = "ijson"
    modules = ("ijson", "ijson.common")
    model = "incremental"
    partial_strings = False

    def available(self) -> bool:
        ok = super().available()
        if ok:
            backend = str(_import("ijson").backend)
            self.pure_python = backend == "python"
            self.notes = (
                f"basic_parse_coro ({backend} backend) events into ijson's ObjectBuilder: "
                "snapshots hold containers and finished scalars, never a partial string"
            )
        return ok

    def open(self) -> Stream:
        return _IjsonStream()


# --------------------------------------------------------------------------- the set


def all_peers() -> list[Peer]:
    """Every peer, jsonsnap first, then jiter trailing-strings (the reference of the ratios)."""
    return [
        Jsonsnap(),
        Jiter("trailing-strings"),
        Jiter(True),
        PydanticCore("trailing-strings"),
        PydanticCore(True),
        PartialJsonParser(),
        PartialJson(),
        JsonRepair(),
        LangchainCore(),
        Jsonriver(),
        StreamingJsonParser(),
        Ijson(),
    ]


def select(peers: list[Peer], selectors: Sequence[str]) -> list[Peer]:
    """Peers named by ``selectors``: an exact id, or a family (``jiter`` selects both modes)."""
    wanted = [s.strip().lower() for s in selectors if s.strip()]
    chosen: list[Peer] = []
    for peer in peers:
        for sel in wanted:
            if peer.id == sel or peer.id.startswith(sel + "-") or peer.distribution == sel:
                chosen.append(peer)
                break
    return chosen

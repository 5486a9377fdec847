"""Replay a recorded provider stream to a browser as a Vercel AI SDK UI message stream.

    python examples/web/server.py [RECORDING] [--port 8000] [--delay 0.01] [--timeout 10]

serves ``index.html`` at ``/`` and, at ``/api/chat`` (GET or POST, as ``useChat`` sends it),
the recording (any recording ``jsonsnap replay`` reads: the ``.sse`` files under ``fixtures/``,
or a Bedrock ``.bin`` body in AWS event stream framing; default
``fixtures/anthropic/text_then_write_file.sse``) read by its accumulator and encoded by
:func:`jsonsnap.vercel.ui_message_stream`, one event every ``--delay`` seconds, with the
protocol's headers. Its protocol is told as ``jsonsnap replay`` tells it. Only the standard
library and jsonsnap; it binds to 127.0.0.1.

What a client sends is held to what the page needs: a request body (the chat so far, which a
recording answers all the same) must come with a ``Content-Length`` of digits, at most
:data:`MAX_BODY` bytes, in full, within ``--timeout`` seconds; anything else gets its answer at
once (400, 411, 413 or 408) and the connection closed, and a failure while answering is one
line on standard error, never a traceback.
"""

from __future__ import annotations

import argparse
import math
import re
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from jsonsnap._cli.inputs import events  # how `jsonsnap replay` reads a recording
from jsonsnap.streams import PROTOCOLS, StreamError, detect
from jsonsnap.vercel import HEADERS, ui_message_stream

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parent.parent / "fixtures" / "anthropic" / "text_then_write_file.sse"
#: The largest request body read, in bytes: a long chat, far from what a page sends.
MAX_BODY = 1 << 20
#: After refusing a request, how much of the body still coming is read (and dropped) before
#: the connection is closed, and for how long: closing with unread data would reset the
#: connection, and the client might lose the answer.
DRAIN, DRAIN_SECONDS = 1 << 16, 0.5
# RFC 9110: Content-Length = 1*DIGIT, ASCII digits only (int() also takes "+5", " 5", "1_0"
# and the digits of other scripts).
_DIGITS = re.compile(r"[0-9]+")


def protocol_of_recording(body: bytes) -> str:
    """The protocol of a recording, told by its first events; a one-line exit otherwise."""
    try:
        for event in events([body]):
            name = detect(event)
            if name is not None:
                return name
    except StreamError as exc:
        raise SystemExit(f"the recording cannot be read: {exc}") from None
    raise SystemExit("the recording is not a stream of a protocol jsonsnap knows")


class Refused(Exception):
    """A request answered with an error: its status and why."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


class Handler(BaseHTTPRequestHandler):
    recording: bytes = b""
    protocol = ""
    delay = 0.01
    #: Seconds a client may take on each read of its request (and each write of the answer).
    timeout = 10.0

    def do_GET(self) -> None:
        if self.body() is None:
            return
        if self.path in ("/", "/index.html"):
            page = (HERE / "index.html").read_bytes()
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
        elif self.path.split("?")[0] == "/api/chat":
            self.stream()
        else:
            self.send_error(404)

    def do_POST(self) -> None:
        if self.body() is None:  # the chat so far: a recording answers whatever was asked
            return
        if self.path.split("?")[0] == "/api/chat":
            self.stream()
        else:
            self.send_error(404)

    def body(self) -> bytes | None:
        """The request's body (``b""`` without one), or ``None`` once the request has been
        refused: answered with an error, the connection to be closed."""
        try:
            return self._read_body()
        except Refused as exc:
            self.send_error(exc.status, str(exc))
        except TimeoutError:
            self.send_error(408, f"the body did not come within {self.timeout} s")
        self._drain()
        return None

    def _read_body(self) -> bytes:
        if "transfer-encoding" in self.headers:
            raise Refused(411, "a request body needs a Content-Length")
        values = {value.strip(" \t") for value in self.headers.get_all("content-length", [])}
        if not values:
            return b""
        if len(values) > 1:
            raise Refused(400, "Content-Length is given twice, differently")
        (value,) = values
        if not _DIGITS.fullmatch(value):
            raise Refused(400, "Content-Length must be a number of bytes")
        if len(value.lstrip("0")) > len(str(MAX_BODY)) or int(value) > MAX_BODY:
            raise Refused(413, f"the body is larger than {MAX_BODY} bytes")
        length = int(value)
        body = self.rfile.read(length)
        if len(body) < length:
            raise Refused(400, "the body ended before its Content-Length")
        return body

    def _drain(self) -> None:
        """After an error answer: send it on its way, and read (a bounded part of) what the
        client is still sending, so that closing does not reset the connection first."""
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
            self.connection.settimeout(DRAIN_SECONDS)
            deadline, left = time.monotonic() + DRAIN_SECONDS, DRAIN
            while left > 0 and time.monotonic() < deadline:
                data = self.connection.recv(min(left, 8192))
                if not data:
                    break
                left -= len(data)
        except OSError:  # the client has gone already, or kept silent: nothing to wait for
            pass
        self.close_connection = True

    def stream(self) -> None:
        self.send_response(200)
        for name, value in HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        accumulator = PROTOCOLS[self.protocol]()
        updates = accumulator.updates(self.recording)
        try:
            for event in ui_message_stream(updates, accumulator=accumulator):
                self.wfile.write(event.encode("utf-8"))
                self.wfile.flush()
                time.sleep(self.delay)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass  # the page went away, or stopped reading
        self.close_connection = True

    def log_message(self, format: str, *args: object) -> None:
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A failure while answering a client: one line, not a traceback."""
        error = sys.exc_info()[1]
        print(f"server: {client_address[0]}:{client_address[1]}: {error!r}", file=sys.stderr)


def seconds(text: str) -> float:
    """An option's value: a finite number of seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}")
    return value


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("recording", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--delay", type=seconds, default=0.01, help="seconds between events")
    parser.add_argument(
        "--timeout", type=seconds, default=10.0, help="seconds a client may take on each read"
    )
    args = parser.parse_args(argv)
    if args.timeout == 0:
        parser.error("argument --timeout: must be more than 0")
    try:
        Handler.recording = args.recording.read_bytes()
    except OSError as exc:
        raise SystemExit(f"{exc.strerror or exc}: {args.recording}") from None
    Handler.protocol = protocol_of_recording(Handler.recording)
    Handler.delay = args.delay
    Handler.timeout = args.timeout
    try:
        server = Server(("127.0.0.1", args.port), Handler)
    except OSError as exc:
        raise SystemExit(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}") from None
    print(f"serving http://127.0.0.1:{server.server_address[1]}/ ({Handler.protocol})", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Replay a recorded provider stream to a browser as a Vercel AI SDK UI message stream.

    python examples/web/server.py [RECORDING] [--port 8000] [--delay 0.01]

serves ``index.html`` at ``/`` and, at ``/api/chat`` (GET or POST, as ``useChat`` sends it),
the recording (any Anthropic, Chat Completions or Responses ``.sse`` under ``fixtures/``;
default ``fixtures/anthropic/text_then_write_file.sse``) read by its accumulator and encoded
by :func:`jsonsnap.vercel.ui_message_stream`, one event every ``--delay`` seconds, with the
protocol's headers. Only the standard library and jsonsnap; it binds to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from jsonsnap.sse import SSEDecoder
from jsonsnap.streams import PROTOCOLS, detect
from jsonsnap.vercel import HEADERS, ui_message_stream

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parent.parent / "fixtures" / "anthropic" / "text_then_write_file.sse"


def protocol_of(body: bytes) -> str:
    """The protocol of a recording, told by its first events."""
    for event in SSEDecoder().feed(body):
        name = detect(event)
        if name is not None:
            return name
    raise SystemExit("the recording is not a stream of a protocol jsonsnap knows")


class Handler(BaseHTTPRequestHandler):
    recording: bytes = b""
    protocol = ""
    delay = 0.01

    def do_GET(self) -> None:
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
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)  # the chat so far: a recording answers whatever was asked
        if self.path.split("?")[0] == "/api/chat":
            self.stream()
        else:
            self.send_error(404)

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
        except (BrokenPipeError, ConnectionResetError):
            pass  # the page went away
        self.close_connection = True

    def log_message(self, format: str, *args: object) -> None:
        pass


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("recording", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--delay", type=float, default=0.01, help="seconds between events")
    args = parser.parse_args(argv)
    Handler.recording = args.recording.read_bytes()
    Handler.protocol = protocol_of(Handler.recording)
    Handler.delay = args.delay
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"serving http://127.0.0.1:{server.server_address[1]}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The ``jsonsnap`` command line (``python -m jsonsnap``).

``replay FILE`` plays an event stream back with live tool-argument panels (``replay
--example``, or ``demo``, plays the recording that comes with the package; ``--schema FILE``
checks each call's arguments against the request's tool schemas, and marks what breaks
them), and ``parse
[FILE]`` watches JSON text grow into a value. A bad option value or a mistyped flag is a usage
error of its subcommand (exit status 2); a failure is one line on standard error (exit status
1); never a traceback, whatever happens to standard input and output.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, Final

from . import __build__, __version__
from ._cli.inputs import (
    CommandError,
    positive_int,
    positive_number,
    protocols,
    schema_file,
    seconds,
)
from ._cli.parse import parse
from ._cli.replay import replay


def _playback(p: argparse.ArgumentParser) -> None:
    """The options of ``replay`` and ``demo``."""
    p.add_argument("--format", choices=protocols(), help="the protocol (default: from the events)")
    p.add_argument(
        "--speed",
        type=positive_number,
        help="playback speed (default 1 on a terminal; without one, no waiting unless given)",
    )
    p.add_argument("--no-delay", action="store_true", help="play as fast as possible")
    p.add_argument("--hide-thinking", action="store_true", help="do not show reasoning text")
    p.add_argument("--json", action="store_true", help="print only the final result as JSON")
    p.add_argument(
        "--compatible",
        action="store_true",
        help="read a Chat Completions stream with the profile for OpenAI-compatible servers "
        "(vLLM, Ollama, Groq...) from its start",
    )
    _repair_and_color(
        p, "read tool arguments tolerantly (fences, trailing commas, single quotes...)"
    )


def _repair_and_color(p: argparse.ArgumentParser, repair: str) -> None:
    """The options every subcommand has: ``--repair`` (what it does: ``repair``) and
    ``--no-color``."""
    p.add_argument("--repair", action="store_true", help=repair)
    p.add_argument("--no-color", action="store_true", help="no colours (also: NO_COLOR=1)")


#: The subcommands, in the order the help lists them: what each one's help line and
#: description say.
_COMMANDS: Final = {
    "replay": (
        "play an event stream back as a typewriter with live tool-argument panels",
        "Play a recorded stream back (Anthropic Messages, OpenAI Chat Completions or "
        "Responses, Gemini, a UI message stream, or Bedrock's binary event stream: ConverseStream "
        "and InvokeModel): text typed out, each tool call's arguments drawn live as they stream.",
    ),
    "parse": (
        "watch JSON text grow into a value; the strict value, or the error with a caret",
        "Read JSON text from FILE or standard input in the pieces it arrives in, "
        "show the value as it grows, then the strict final value or the error.",
    ),
    "demo": (
        "replay the example recording (the same as replay --example)",
        "Replay the example recording that comes with jsonsnap: a Messages API "
        "stream whose tool call writes a 224-line file. The same as `jsonsnap replay --example`.",
    ),
}


def _command(commands: Any, name: str) -> argparse.ArgumentParser:
    """The subcommand ``name``'s parser, its options not yet added."""
    summary, description = _COMMANDS[name]
    made: argparse.ArgumentParser = commands.add_parser(name, help=summary, description=description)
    return made


def _replay(r: argparse.ArgumentParser) -> None:
    r.add_argument("file", metavar="FILE", nargs="?", help="the recording, or - for stdin")
    r.add_argument("--example", action="store_true", help="play the example recording")
    r.add_argument(
        "--schema",
        metavar="FILE",
        type=schema_file,
        help="check each tool call's arguments: FILE is JSON with one schema for every call, "
        "a {tool: schema} mapping, the request's tools list, or the request body "
        "(default: the tools the stream repeats, if any)",
    )
    _playback(r)
    r.set_defaults(handler=replay, usage=r)


def _demo(d: argparse.ArgumentParser) -> None:
    _playback(d)
    d.set_defaults(handler=replay, usage=d, file=None, example=True, schema=None)


def _parse(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", nargs="?", help="the JSON text (default: stdin)")
    p.add_argument("--json", action="store_true", help="print only the final value, compact")
    p.add_argument(
        "--chunk", type=positive_int, default=4096, help="bytes read at a time (default 4096)"
    )
    p.add_argument("--delay", type=seconds, default=0.0, help="seconds to wait between reads")
    _repair_and_color(
        p,
        "read the JSON that models send (fences, trailing commas, single quotes...) and "
        "list the repairs made on standard error",
    )
    p.set_defaults(handler=parse, usage=p)


#: What adds each subcommand's options.
_OPTIONS: Final = {"replay": _replay, "parse": _parse, "demo": _demo}


def arguments() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The command line's parser, and its subcommands' by name."""
    parser = argparse.ArgumentParser(
        prog="jsonsnap",
        description="Turn a stream of JSON fragments into a live value: replay an LLM event "
        "stream with live tool-argument panels, or watch JSON text grow into a value.",
    )
    parser.add_argument(
        "--version", action="version", version=f"jsonsnap {__version__} ({__build__} build)"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    made = {}
    for name in _COMMANDS:
        made[name] = _command(commands, name)
        _OPTIONS[name](made[name])
    return parser, made


def _standard_streams() -> bool:
    """Give a closed standard output and error somewhere to go; whether output was open."""
    output = sys.stdout is not None
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            setattr(sys, name, open(os.devnull, "w"))  # noqa: SIM115 - for the whole process
        elif hasattr(stream, "reconfigure"):  # what the encoding cannot say, shown as "?"
            stream.reconfigure(errors="replace")
    return output


def _silence_stdout() -> None:
    """The output has gone (a closed pipe): let nothing more, at exit included, try to write."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        pass
    finally:
        os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    output = _standard_streams()
    parser, commands = arguments()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # the subcommand's usage, not the top level's
        commands[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        if not output:
            raise CommandError("standard output is closed")
        status: int = args.handler(args)
    except CommandError as exc:
        if exc.status == 2:
            args.usage.error(str(exc))
        print(f"jsonsnap: {exc}", file=sys.stderr)
        return exc.status
    except KeyboardInterrupt:  # between the commands' own handlers: stop quietly
        return 130
    except BrokenPipeError:  # `| head`: the reader has gone
        _silence_stdout()
        return 0
    except OSError as exc:  # the output cannot be written: a full disk, a read-only descriptor
        _silence_stdout()
        print(f"jsonsnap: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())

"""The stream contract's "For UI code" loop, run as written on every fixture of every provider.

The loop is the code block of docs/streams.md (executed here, not copied), with its ``redraw``
replaced by one that writes down what it was shown. Whatever the stream (a text-only one, an
error mid-stream, a cut at the token limit, invalid JSON, parallel calls), each tool call must
be shown at its end with a final status: ``complete``, ``incomplete`` or ``invalid``.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from jsonsnap.streams import Accumulator, StreamError, ToolInput
from recordings import README, accumulator, all_fixtures, fixture_id, random_pieces, readme_blocks

FIXTURES = all_fixtures()
FINAL = ("complete", "incomplete", "invalid")


def the_loop() -> dict[str, Any]:
    """The docs' loop, defined afresh (its functions look ``redraw`` up when they run)."""
    namespace: dict[str, Any] = {}
    exec(readme_blocks("For UI code", README.parent / "docs" / "streams.md")[0], namespace)
    return namespace


def expected_statuses(path: Path) -> dict[str, str]:
    """Each tool's status in the fixture's expected file; one still streaming there (the
    stream broke off inside it) ends as incomplete once the loop closes the stream."""
    tools = json.loads(path.with_suffix(".json").read_text("utf-8"))["tools"]
    return {
        key: "incomplete" if tool["status"] == "streaming" else tool["status"]
        for key, tool in tools.items()
    }


def every_tool(acc: Accumulator) -> list[ToolInput]:
    tools = list(acc.tool_calls())
    if acc.protocol == "chat":  # every choice's calls, and the legacy function calls
        choices = acc.result["choices"]  # type: ignore[index]
        tools = [t for c in choices for t in acc.tool_calls(c["index"])]  # type: ignore[call-arg]
        functions = (acc.function_call(c["index"]) for c in choices)  # type: ignore[attr-defined]
        tools += [f for f in functions if f is not None]
    return tools


def play(protocol: str, path: Path, run: Callable[[dict[str, Any], Accumulator], None]) -> None:
    loop = the_loop()
    shown: dict[int, list[str]] = {}
    loop["redraw"] = lambda tool: shown.setdefault(id(tool), []).append(tool.status)
    acc = accumulator(protocol, path)
    with contextlib.redirect_stdout(io.StringIO()):
        run(loop, acc)
    tools = every_tool(acc)
    assert len(tools) == len(expected_statuses(path))
    for tool in tools:
        statuses = shown.get(id(tool), [])
        assert statuses and statuses[-1] in FINAL, (path.name, tool, statuses)
        assert tool.ended and statuses[-1] == tool.status
    assert sorted(tool.status for tool in tools) == sorted(expected_statuses(path).values())


def sync_run(body: bytes) -> Callable[[dict[str, Any], Accumulator], None]:
    def run(loop: dict[str, Any], acc: Accumulator) -> None:
        with contextlib.suppress(StreamError):  # the loop closes the stream, then re-raises
            loop["play"](acc, random_pieces(body, 5))

    return run


@pytest.mark.parametrize(("protocol", "path"), FIXTURES, ids=[fixture_id(p) for _, p in FIXTURES])
def test_the_loop_sees_every_tool_call_end(protocol: str, path: Path) -> None:
    play(protocol, path, sync_run(path.read_bytes()))


@pytest.mark.parametrize(("protocol", "path"), FIXTURES, ids=[fixture_id(p) for _, p in FIXTURES])
def test_the_async_loop_sees_every_tool_call_end(protocol: str, path: Path) -> None:
    """The same loop with ``async for ... in acc.aupdates(body)`` (as its comment says)."""
    body = path.read_bytes()

    async def chunks() -> AsyncIterator[bytes]:
        for piece in random_pieces(body, 9):
            yield piece

    def run(loop: dict[str, Any], acc: Accumulator) -> None:
        async def main() -> None:
            try:
                async for update in acc.aupdates(chunks()):
                    loop["show"](update)
            except StreamError:
                for update in acc.close():
                    loop["show"](update)

        asyncio.run(main())

    play(protocol, path, run)


def test_the_check_can_fail() -> None:
    """Without the updates of close(), a stream cut inside a tool call leaves it unseen at its
    end: the check above says so."""
    protocol, path = next(f for f in FIXTURES if f[1].stem == "error_mid_stream")

    def run(loop: dict[str, Any], acc: Accumulator) -> None:
        with contextlib.suppress(StreamError):
            for update in acc.updates(path.read_bytes()):
                loop["show"](update)
        acc.close()  # closed, but the loop is not shown what that did

    with pytest.raises(AssertionError):
        play(protocol, path, run)

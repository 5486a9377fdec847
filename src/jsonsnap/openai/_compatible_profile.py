"""The compatible profile of one Chat Completions stream: whether it is on, and its decisions.

:class:`CompatibleProfile` is the part of :class:`ChatCompletionAccumulator` that reads what
OpenAI-compatible servers send: it holds the mode asked for (``compatible=``), whether the
profile is on and why, and the :class:`Quirk` records of what it did; and it decides, from a
choice's calls, which call a delta is for and how a call's glued values are split. The
accumulator applies what it decides. The pieces that need no state are in ``_compatible``.

What only such a server sends is read in every mode but ``compatible=False``, and turns the
profile on (``compatible=None``, the default): an SSE comment sent as data
(``data: : keepalive``, skipped), ``arguments`` as a JSON object (written as JSON text),
``reasoning_details`` (merged by ``index``), a vendor's chunk field (``x_groq``,
``system_fingerprint: fp_ollama``). What OpenAI's own stream could mean otherwise is read so
only with the profile on: a new ``id`` at the index of a call whose arguments are complete
starts a new call (at the next free index; before they are complete it is a server that changes
ids, and continues the call); at a call's end, several values glued together become one call
each, and a text sent again whole in the last piece (``X``, then ``X``) is one call ``X``. Every
such change is a :class:`Quirk` in ``quirks`` (and in the call's ``ChatToolInput.quirks``); the
call's ``raw`` stays the text as it came. In every mode, a delta that brings nothing (no name,
no arguments but whitespace) starts no call, whatever its ``id``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import JSONDecodeError
from .._parse.grammar import WS
from .._parse.oneshot import loads
from .._streams.update import Update
from ..streams import ToolInput
from ._choice import CallDelta, Choice, Step
from ._compatible import Quirk, marker, merge_details, value_spans
from ._tool_input import ChatToolInput

#: The most values glued in one call's arguments that are split into calls (more are left
#: as they are, ``"invalid"``: a server glues a few parallel calls, not thousands).
MOST_GLUED = 16


class CompatibleProfile:
    """The profile's state (see the module docstring): ``mode`` as asked for (``None``: off
    until the stream shows it comes from a compatible server), ``on``, ``reason`` (why it is
    on, or ``None``) and ``quirks``."""

    __slots__ = ("mode", "on", "quirks", "reason")

    def __init__(self, mode: bool | None) -> None:
        self.mode = mode
        self.on = mode is True
        self.reason: str | None = "compatible=True" if self.on else None
        #: What the profile did, in the order it did it (see ``_compatible.QUIRKS``).
        self.quirks: list[Quirk] = []

    def turn_on(self, reason: str) -> None:
        """The stream shows it comes from a compatible server: on, unless asked not to be."""
        if not self.on and self.mode is None:
            self.on = True
            self.reason = reason

    def see(self, chunk: Mapping[str, Any]) -> None:
        """A chunk applied: on if it shows a compatible server (see ``marker``)."""
        if self.mode is None:
            reason = marker(chunk)
            if reason is not None:
                self.turn_on(reason)

    def note(self, quirk: Quirk, tool: ToolInput | None = None) -> None:
        """What the profile did (to the call of ``tool``, if it concerns one)."""
        self.quirks.append(quirk)
        if isinstance(tool, ChatToolInput):
            tool.quirks.append(quirk)

    def details_step(
        self, index: int, key: str, pieces: list[Mapping[str, Any]], echoed: bool
    ) -> Step:
        """OpenRouter's ``reasoning_details`` of choice ``index`` (under ``key``; ``pieces``
        checked): merged by their ``index`` into the message's list, their text reasoning
        (unless ``echoed``: the delta's ``reasoning`` said it)."""

        def step(state: Choice) -> list[Update]:
            self.turn_on("reasoning_details (OpenRouter)")
            message = state.message
            kept = message.get(key)
            if not isinstance(kept, list):
                kept = message[key] = []
            text = merge_details(kept, state.details, pieces)
            if not text or echoed:
                return []
            return [Update(key, index, message, key, text, thinking=True)]

        return step

    def call_index(self, state: Choice, delta: CallDelta) -> tuple[int, bool]:
        """The call a delta is for, by the profile's rules, and whether it is a new call at
        the index of a finished one."""
        free = state.order[-1] + 1 if state.order else 0
        if delta.id is not None and delta.id in state.ids:
            return state.ids[delta.id], False
        new_id = delta.id is not None and not delta.empty  # (an empty delta starts no call)
        if delta.index is None:
            last = state.last
            if last is None or (new_id and state.finished_call(last)):
                return free, False
            return last, False  # no index: more of the last call, even under a new id
        index = state.server.get(delta.index)
        if index is None:  # an index not seen: the call goes there, unless a moved call is
            if delta.index in state.moved:
                return free, False
            index = delta.index
        entry = state.calls.get(index)
        known = None if entry is None else entry["id"]
        if new_id and known not in (None, delta.id) and state.finished_call(index):
            return free, True
        return index, False  # (a server that changes the id in every chunk: the same call)

    def unglue(self, state: Choice, index: int, repair: Any) -> tuple[int | None, list[str]]:
        """A call whose arguments are several JSON values glued together, at its end: where
        the first ends in its raw text (the call's value is the first; its raw text stays as
        it came) and the texts of the others, each to be a new call (or ``None`` and none:
        the values are not all whole, there are too many of them to be calls, or deltas under
        several ids made the text: the call stays ``"invalid"``). A text sent again whole in
        the last piece (``X``, then ``X`` at once) is the call once; two equal values glued
        any other way are two calls. ``repair``: as the accumulator's ``repair=``."""
        tool = state.tools[index]
        raw = tool.raw
        spans = value_spans(raw)
        if index in state.mixed or not 2 <= len(spans) <= MOST_GLUED:
            return None, []
        texts = [raw[a:b] for a, b in spans]
        try:
            for text in texts:
                loads(text, repair=repair)
        except JSONDecodeError:
            return None, []
        choice = state.choice["index"]
        state.calls[index]["function"]["arguments"] = texts[0]
        if texts == [texts[0]] * 2 and tool.last_piece.strip(WS) == texts[1]:
            detail = f"{len(texts[0])} chars, then the same again in one piece"
            self.note(Quirk("doubled_arguments", choice, index, detail), tool)
            return spans[0][1], []
        self.note(Quirk("glued_calls", choice, index, f"{len(texts)} values"), tool)
        return spans[0][1], texts[1:]

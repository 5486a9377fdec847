"""The tool input of a Chat Completions call: :class:`ChatToolInput`, which carries the
:class:`~jsonsnap.openai._compatible.Quirk` records of what the compatible profile did to it.
"""

from __future__ import annotations

from typing import Any

from .. import Parser
from .._errors import mypyc_attr
from .._parse.grammar import WS
from .._streams.tool_input import ToolInput, ToolSchemas
from ._compatible import Quirk


@mypyc_attr(allow_interpreted_subclasses=True)
class ChatToolInput(ToolInput):
    """A Chat Completions call's tool input: a :class:`ToolInput` that also lists the
    :class:`Quirk` records of what the compatible profile did to it (``quirks``: empty for a
    stream from OpenAI itself).

    When the profile reads values glued in its text as other calls (or as the text sent
    twice), the call's value is its first value alone (:meth:`_end_at`), and ``raw`` stays
    the text as it came: received text is never taken back."""

    __slots__ = ("_kept", "_piece_at", "quirks")

    # (ToolInput's parameters, written out: a compiled build passes *args or **kwargs on to a
    # compiled __init__ wrongly.)
    def __init__(
        self,
        index: int,
        name: str,
        id: str | None = None,
        *,
        schemas: ToolSchemas | None = None,
        repair: Any = False,
    ) -> None:
        super().__init__(index, name, id, schemas=schemas, repair=repair)
        #: What the compatible profile did to this call (see :data:`QUIRKS`).
        self.quirks: list[Quirk] = []
        self._piece_at = 0  # where in raw the last fragment that is not whitespace began
        self._kept: int | None = None  # the end of the call's own text in raw, if not all

    @property
    def last_piece(self) -> str:
        """The last fragment of the text that was not only JSON whitespace (and what came
        after it)."""
        return self.raw[self._piece_at :]

    def _feed(self, fragment: str) -> bool:
        if fragment.strip(WS):
            self._piece_at = len(self.raw)
        return ToolInput._feed(self, fragment)  # (no super(): it runs for every fragment)

    def _end_at(self, end: int) -> bool:
        """The protocol ended the text, of which only ``raw[:end]`` (a whole JSON value) is
        this call's: parse that strictly, ``raw`` kept as received. Whether the snapshot
        changed."""
        self._kept = end
        return self._close(self.raw[:end])

    def _reread(self, raw: str, parser: Parser | None = None) -> None:
        # Reading the text again (for the change feed, or the call's own part at its end) is
        # not a fragment that came: the last piece stays, and so does the text received.
        received, piece_at = self.raw, self._piece_at
        super()._reread(raw if self._kept is None else raw[: self._kept], parser)
        self._piece_at = piece_at
        if self._kept is not None:
            self.raw = received  # (``raw`` was it, or the call's own part of it)

"""The state of one candidate of a Gemini response, and the steps that change it.

A chunk is checked whole before it changes anything: checking a candidate's part makes a
:data:`Step`, applied to the candidate's state once every part of the chunk has passed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..streams import ToolInput, Update
from ._arguments import ArgText


class Call:
    """A function call of a candidate: its part, its tool input, and (streamed) its text."""

    __slots__ = ("args", "part", "tool")

    def __init__(self, part: dict[str, Any], tool: ToolInput, args: ArgText | None) -> None:
        self.part = part
        self.tool = tool
        self.args = args  # the partial arguments' translator, while they stream


class Candidate:
    """One candidate being accumulated."""

    def __init__(self, index: int) -> None:
        self.content: dict[str, Any] = {"role": None, "parts": []}
        self.candidate: dict[str, Any] = {"index": index, "content": self.content}
        self.parts: list[dict[str, Any]] = self.content["parts"]
        self.calls: dict[int, Call] = {}  # by part index
        self.joinable = False  # whether the last part is a text part new text may join
        self.streaming: Call | None = None  # the call whose arguments stream
        #: While a chunk is checked: the translator of the call whose arguments stream at the
        #: part being checked, and the call's name (a part may end one call and the next part
        #: open another, of the same function or not).
        self.open: ArgText | None = None
        self.open_name = ""
        self.finished = False


@dataclass(frozen=True, slots=True)
class CallPlan:
    """A checked ``functionCall`` part: what it adds to which call."""

    part: Mapping[str, Any]
    call: Mapping[str, Any]
    name: str | None
    id: str | None
    text: str  # the JSON text of the arguments it brings
    ends: bool  # whether the call's arguments are over with it
    new: ArgText | None  # for a new call: its translator, if it streams (else None)
    opens: bool  # whether it opens a call


#: A checked change, applied once the whole chunk has passed.
Step = Callable[[Candidate], list[Update]]


def set_role(role: str) -> Step:
    def step(state: Candidate) -> list[Update]:
        if state.content.get("role") is None:  # set once
            state.content["role"] = role
        return []

    return step


def citations_of(meta: Any) -> Any:
    """The citations a ``citationMetadata`` brings (``None`` when it brings no list)."""
    return meta.get("citations") if isinstance(meta, Mapping) else None


def others(state: Candidate, extra: Mapping[str, Any]) -> list[Update]:
    """Candidate fields kept as their latest value; the citations grow."""
    candidate = state.candidate
    for key, value in extra.items():
        kept = candidate.get(key)
        if key == "citationMetadata" and isinstance(value, Mapping):
            new = dict(value)
            citations = new.get("citations")
            if isinstance(kept, dict) and isinstance(kept.get("citations"), list):
                old = kept["citations"]
                if isinstance(citations, list):
                    old.extend(citations)
                new["citations"] = old
            elif isinstance(citations, list):
                new["citations"] = list(citations)
            candidate[key] = new
        else:
            candidate[key] = value
    return []

"""The Gemini accumulator: chunks of ``streamGenerateContent`` in, the response out.

:class:`GenerateContentAccumulator` is the stream contract's :class:`~jsonsnap.streams.Accumulator`
for Gemini. Each chunk is checked whole (:meth:`~GenerateContentAccumulator._plan`, one list of
steps per candidate; the partial arguments' translators roll back what a refused chunk wrote),
then applied (:func:`~jsonsnap._streams.accumulator.carry_out`). Its parts: the candidates'
state (``_candidate``), the partial arguments' translator (``_arguments``), the JSON text of
whole ``args`` (``_text``), the SDK's objects (``_sdk``) and the request's schemas
(``_schemas``).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping
from typing import Any

from .._errors import mypyc_attr
from .._jsontext import describe
from .._streams.events import carry_out
from ..streams import Accumulator, StreamError, ToolInput, Update
from ._arguments import ArgText
from ._candidate import Call, CallPlan, Candidate, Step, citations_of, others, set_role
from ._schemas import declarations, response_schema
from ._sdk import response_data
from ._text import args_text

#: The keys a part may have and still be joined to the text part before it.
_TEXT_KEYS = frozenset({"text", "thought", "thoughtSignature"})


@mypyc_attr(allow_interpreted_subclasses=True)  # (users')
class GenerateContentAccumulator(Accumulator):
    """Accumulate one Gemini ``streamGenerateContent`` stream into ``.response``.

    ``tools`` holds candidate 0's function calls by the place of their part;
    ``tool_calls(candidate)`` a candidate's calls in order. ``tools=`` and ``output_schema=``:
    see :mod:`jsonsnap.gemini` and :class:`jsonsnap.streams.Accumulator`.
    """

    protocol = "gemini"
    _PER_CHOICE = True  # a structured output per candidate
    _OPENERS = frozenset({"chunk", "error"})
    _FIRST = "a chunk"

    def __init__(
        self, *, tools: Any = None, output_schema: Any = None, repair: Any = False
    ) -> None:
        super().__init__(
            tools=declarations(tools),
            output_schema=response_schema(output_schema),
            repair=repair,
        )

    def _begin(self) -> None:
        #: The response so far, shaped as a non-streamed ``GenerateContentResponse`` (``None``
        #: before the first chunk).
        self.response: dict[str, Any] | None = None
        self._candidates: dict[int, Candidate] = {}
        self._order: list[int] = []  # the candidate indices, sorted
        self._placed: set[int] = set()  # the candidates in the response
        self._fresh: list[int] = []  # the candidates made to check the chunk being applied
        self._opened: list[ArgText] = []  # the translators of the calls the chunk opens

    @classmethod
    def looks_like(cls, data: Mapping[str, Any]) -> bool:
        if "type" in data or "choices" in data or "object" in data:
            return False
        return (
            isinstance(data.get("candidates"), list)
            or isinstance(data.get("usageMetadata"), Mapping)
            or isinstance(data.get("promptFeedback"), Mapping)
        )

    @property
    def result(self) -> dict[str, Any] | None:
        """The response so far (``.response``)."""
        return self.response

    @property
    def done(self) -> bool:
        """Whether the response is over: every candidate has its ``finishReason``, or the
        prompt was blocked."""
        response = self.response
        if response is None:
            return False
        feedback = response.get("promptFeedback")
        if isinstance(feedback, Mapping) and feedback.get("blockReason"):
            return True
        states = self._candidates.values()
        return bool(states) and all(state.finished for state in states)

    @property
    def tools(self) -> dict[int, ToolInput]:
        """The function calls of candidate 0, by the place of their part."""
        state = self._candidates.get(0)
        return {} if state is None else {i: call.tool for i, call in state.calls.items()}

    def tool_calls(self, candidate: int = 0) -> list[ToolInput]:
        """The function calls of a candidate, in order."""
        state = self._candidates.get(candidate)
        return [] if state is None else [call.tool for call in state.calls.values()]

    def _tool_blocks(self) -> Iterator[tuple[ToolInput, dict[str, Any] | None]]:
        for index in self._order:
            for call in self._candidates[index].calls.values():
                yield call.tool, call.part

    def _kind_of(self, data: Mapping[str, Any]) -> str:
        return "chunk" if data.get("error") is None else "error"

    def _sdk_data(self, event: Any) -> Mapping[str, Any] | None:
        data = response_data(event)
        return super()._sdk_data(event) if data is None else data

    # -- the stream's errors ------------------------------------------------------------------

    def _error_payload(self, data: Mapping[str, Any]) -> list[Update]:
        body = data.get("error")
        if not isinstance(body, Mapping):
            raise self._error(data)
        status, code, message = body.get("status"), body.get("code"), body.get("message")
        kind = status if isinstance(status, str) else None if code is None else describe(code)
        text = message if isinstance(message, str) else describe(message)
        raise StreamError(text, error_type=kind or "error")

    # -- a chunk: checked whole, then applied -------------------------------------------------

    def _chunk(self, data: Mapping[str, Any]) -> list[Update]:
        if self.done:
            raise StreamError(
                "a chunk after the end of the response (every candidate has its finishReason, "
                "or the prompt was blocked)"
            )
        candidates = data.get("candidates")
        candidates = [] if candidates is None else self._fields.array(candidates, "candidates")
        usage = data.get("usageMetadata")
        if usage is not None:
            self._fields.mapping(usage, "usageMetadata")
        feedback = data.get("promptFeedback")
        if feedback is not None:
            self._fields.mapping(feedback, "promptFeedback")
        plans: list[tuple[int, list[Step]]] = []
        seen: set[int] = set()
        try:
            plans.extend(self._plan(candidate, seen) for candidate in candidates)
        except StreamError:
            self._rollback()
            raise
        self._commit()
        # Nothing below can fail: the chunk is applied whole.
        response = self.response
        if response is None:
            response = self.response = {"candidates": []}
        for key, value in data.items():  # modelVersion, responseId...: the latest value
            if value is not None and key not in ("candidates", "usageMetadata"):
                response[key] = value
        if usage is not None:
            kept = response.get("usageMetadata")
            if not isinstance(kept, dict):
                kept = response["usageMetadata"] = {}
            kept.update((k, v) for k, v in usage.items() if v is not None)
        updates = carry_out(plans, self._state)
        if usage is not None:
            updates.append(Update("usage"))
        if feedback is not None:
            updates.append(Update("prompt_feedback", block=response))
        return updates

    def _rollback(self) -> None:
        """Undo what checking a refused chunk wrote (the calls it opened are dropped)."""
        for state in self._candidates.values():
            if state.streaming is not None and state.streaming.args is not None:
                state.streaming.args.rollback()
        self._opened.clear()

    def _commit(self) -> None:
        for state in self._candidates.values():
            if state.streaming is not None and state.streaming.args is not None:
                state.streaming.args.commit()
        for opened in self._opened:
            opened.commit()
        self._opened.clear()

    def _state(self, index: int) -> Candidate:
        state = self._candidates[index]  # made by _plan
        if index not in self._placed:
            self._placed.add(index)
            position = bisect.bisect(self._order, index)
            self._order.insert(position, index)
            self.response["candidates"].insert(position, state.candidate)  # type: ignore[index]
        return state

    def _plan(self, candidate: Any, seen: set[int]) -> tuple[int, list[Step]]:
        """Check one candidate of a chunk; the steps that apply it."""
        candidate = self._fields.mapping(candidate, "a candidate")
        index = candidate.get("index")
        index = 0 if index is None else self._fields.key(index, "the candidate index")
        if index in seen:
            raise StreamError(f"candidate {index} twice in one chunk")
        seen.add(index)
        state = self._candidates.get(index)
        if state is None:  # checked against a state of its own, kept if the chunk passes
            state = Candidate(index)
            self._candidates[index] = state
            self._fresh.append(index)
        content = candidate.get("content")
        content = {} if content is None else self._fields.mapping(content, "the content")
        role = self._fields.opt_string(content.get("role"), "the role")
        parts = content.get("parts")
        parts = [] if parts is None else self._fields.array(parts, "the parts")
        reason = self._fields.opt_string(candidate.get("finishReason"), "finishReason")
        if parts and state.finished:
            raise StreamError(f"parts after the finishReason of candidate {index}")
        streaming = state.streaming  # the parts are checked from where the last chunk left
        state.open = None if streaming is None else streaming.args
        state.open_name = "" if streaming is None else streaming.tool.name
        steps: list[Step] = []
        if role is not None:
            steps.append(set_role(role))
        steps.extend(
            self._part(state, index, self._fields.mapping(part, "a part")) for part in parts
        )
        citations = citations_of(candidate.get("citationMetadata"))
        if citations is not None:
            self._fields.array(citations, "the citations")
        extra = {
            k: v
            for k, v in candidate.items()
            if k not in ("index", "content", "finishReason") and v is not None
        }
        if extra:
            steps.append(lambda state: others(state, extra))
        if reason is not None:
            steps.append(lambda state: self._finish(state, index, reason))
        return index, steps

    def _event(self, data: Mapping[str, Any]) -> list[Update]:
        self._fresh = []
        try:
            return super()._event(data)
        except StreamError:
            for index in self._fresh:  # candidates made only to check the refused chunk
                if index not in self._placed:
                    del self._candidates[index]
            raise

    def _part(self, state: Candidate, index: int, part: Mapping[str, Any]) -> Step:
        call = part.get("functionCall")
        if call is not None:
            if part.get("text") is not None:
                raise self._fields.malformed("a part with both text and a functionCall")
            plan = self._call_plan(state, part, self._fields.mapping(call, "the functionCall"))
            return lambda state: self._apply_call(state, plan)
        if state.open is not None:
            raise StreamError(
                f"a part of another kind while a function call's arguments stream in candidate "
                f"{index}"
            )
        if _TEXT_KEYS.issuperset(part):
            text = self._fields.opt_string(part.get("text"), "the text") or ""
            thought = part.get("thought")
            if thought is not None and not isinstance(thought, bool):
                raise self._fields.malformed(f"thought is {describe(thought)}, not a boolean")
            signature = self._fields.opt_string(
                part.get("thoughtSignature"), "the thoughtSignature"
            )
            return lambda state: self._apply_text(
                state, index, part, text, bool(thought), signature
            )
        return lambda state: self._apply_other(state, index, part)

    # -- text and other parts -----------------------------------------------------------------

    def _apply_text(
        self,
        state: Candidate,
        index: int,
        part: Mapping[str, Any],
        text: str,
        thought: bool,
        signature: str | None,
    ) -> list[Update]:
        last = state.parts[-1] if state.joinable else None
        if (
            last is None
            or bool(last.get("thought")) != thought
            or (signature is not None and last.get("thoughtSignature") not in (None, signature))
        ):
            last = {key: value for key, value in part.items() if value is not None}
            state.parts.append(last)
            state.joinable = True
        else:
            if text:
                self._fields.check_text(last, "text")
                self._fields.append(last, "text", text)
            if signature is not None:
                last["thoughtSignature"] = signature
        kind = "thought" if thought else "text"
        if text:
            return [Update("text", index, last, kind, text, thinking=thought)]
        if signature is not None:
            return [Update("signature", index, last, kind, thinking=thought)]
        return []

    def _apply_other(self, state: Candidate, index: int, part: Mapping[str, Any]) -> list[Update]:
        kept = dict(part)
        state.parts.append(kept)
        state.joinable = False
        return [Update("part", index, kept)]

    # -- function calls -----------------------------------------------------------------------

    def _call_plan(
        self, state: Candidate, part: Mapping[str, Any], call: Mapping[str, Any]
    ) -> CallPlan:
        name = self._fields.opt_string(call.get("name"), "the function name")
        id = self._fields.opt_string(call.get("id"), "the function call id")
        args = call.get("args")
        partial = call.get("partialArgs")
        partial = [] if partial is None else self._fields.array(partial, "partialArgs")
        more = call.get("willContinue")
        if more is not None and not isinstance(more, bool):
            raise self._fields.malformed(f"willContinue is {describe(more)}, not a boolean")
        self._fields.opt_string(part.get("thoughtSignature"), "the thoughtSignature")
        if args is not None:
            args = self._fields.mapping(args, "the function call's args")
        texts: list[str] = []
        translator = state.open
        if translator is not None:  # more of the call whose arguments stream
            old = state.open_name
            if name and name != old:
                raise StreamError(
                    f"a call to {name!r} while the arguments of the call to {old!r} stream"
                )
            if args:
                raise self._fields.malformed("args in a call whose arguments stream as partialArgs")
            texts.extend(translator.entry(self._entry(entry), self._bad) for entry in partial)
            ends = not more
            if ends:
                texts.append(translator.finish(self._bad))
                state.open = None  # the next part may open another call
            return CallPlan(part, call, name, id, "".join(texts), ends, None, opens=False)
        if partial or more:
            if not name:
                raise StreamError(
                    "partialArgs with no function call open (a call streams from a part that "
                    "names it, with willContinue)"
                )
            if args:
                raise self._fields.malformed("args and partialArgs in one call")
            new = ArgText()
            self._opened.append(new)
            texts.extend(new.entry(self._entry(entry), self._bad) for entry in partial)
            if more:
                state.open = new
                state.open_name = name
            else:
                texts.append(new.finish(self._bad))
            return CallPlan(part, call, name, id, "".join(texts), not more, new, opens=True)
        if not name:
            raise StreamError("a functionCall with no name, and no call whose arguments stream")
        try:
            text = "" if args is None else args_text(args)
        except ValueError as exc:
            raise self._fields.malformed(f"the args of {name!r} are not JSON: {exc}") from None
        return CallPlan(part, call, name, id, text, True, None, opens=True)

    def _entry(self, entry: Any) -> Mapping[str, Any]:
        return self._fields.mapping(entry, "a partial argument")

    def _bad(self, message: str) -> StreamError:
        return StreamError(f"{self._kind}: {message}")

    def _apply_call(self, state: Candidate, plan: CallPlan) -> list[Update]:
        if plan.opens:
            body = {
                k: v
                for k, v in plan.call.items()
                if k not in ("partialArgs", "willContinue", "args") and v is not None
            }
            body["args"] = {}
            part = {k: v for k, v in plan.part.items() if v is not None}
            part["functionCall"] = body
            place = len(state.parts)
            state.parts.append(part)
            state.joinable = False
            tool = self._tool(place, plan.name or "", plan.id)
            entry = Call(part, tool, plan.new if not plan.ends else None)
            state.calls[place] = entry
            if not plan.ends:
                state.streaming = entry
        else:
            entry = state.streaming  # type: ignore[assignment]
            part = entry.part
            body = part["functionCall"]
            if plan.id and body.get("id") is None:
                body["id"] = entry.tool.id = plan.id
            signature = plan.part.get("thoughtSignature")
            if signature is not None and part.get("thoughtSignature") is None:
                part["thoughtSignature"] = signature
        tool = entry.tool
        place = tool.index
        updates = []
        changed = bool(plan.text) and self._grow(tool, plan.text)
        body["args"] = tool.snapshot
        updates.append(
            Update("function_call", place, part, tool=tool, fragment=plan.text, changed=changed)
        )
        if plan.ends:
            if state.streaming is entry:
                state.streaming = None
            entry.args = None
            updates += self._end_call(entry)
        return updates

    def _end_call(self, entry: Call) -> list[Update]:
        tool = entry.tool
        changed = self._end(tool)
        if changed is None:
            return []
        entry.part["functionCall"]["args"] = tool.final() if tool.complete else tool.snapshot
        return [Update("function_call_done", tool.index, entry.part, tool=tool, changed=changed)]

    # -- the candidate's end ------------------------------------------------------------------

    def _finish(self, state: Candidate, index: int, reason: str) -> list[Update]:
        state.candidate["finishReason"] = reason
        updates: list[Update] = []
        if state.streaming is not None:  # cut inside its arguments (MAX_TOKENS...)
            entry, state.streaming = state.streaming, None
            entry.args = None
            updates += self._end_call(entry)
        state.finished = True
        updates.append(Update("finish", index, state.candidate))
        return updates


# The tables, set once the class exists (a compiled class body cannot name its methods).
GenerateContentAccumulator._HANDLERS = {
    "chunk": GenerateContentAccumulator._chunk,
    "error": GenerateContentAccumulator._error_payload,
}


def accumulate(chunks: Any) -> GenerateContentAccumulator:
    """Read a whole ``streamGenerateContent?alt=sse`` body (its chunks, or the SDK's stream
    of responses) into an accumulator, closed at its end."""
    return GenerateContentAccumulator().read(chunks)

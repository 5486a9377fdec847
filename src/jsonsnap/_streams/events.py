"""An event's data, as every accumulator reads and applies it (an event is never kept or
changed in place: what is kept is copied, by :func:`jsonsnap._jsontext.copy_data`).

- :func:`dump_event`: an SDK's event object, as the wire carried it;
- :func:`error_from`: the error a payload reports, in any protocol's shape;
- :func:`carry_out`: the plans of a chunk that is checked whole before it changes anything
  (Chat Completions, Gemini), applied.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from .._errors import StreamError
from .._jsontext import describe
from .update import Update


def error_from(
    payload: Mapping[str, Any], default: str | None = None, message: str = ""
) -> StreamError:
    """The error a payload reports: ``{"error": {"type" or "code", "message"}}`` (Anthropic's
    ``error`` event, Chat Completions, a nested Responses error), ``{"error": "text"}``, or the
    fields themselves (``{"code", "message"}``: a Responses ``error`` event, a failed
    response's ``error``). ``default`` is the type and ``message`` the message when the
    payload gives none."""
    body = payload.get("error")
    if body is None:
        body = payload
    elif not isinstance(body, Mapping):
        return StreamError(body if isinstance(body, str) else describe(body))
    kind = body.get("code") if body is payload else body.get("type") or body.get("code")
    text = body.get("message")
    return StreamError(
        message if text is None else text if isinstance(text, str) else describe(text),
        error_type=default if kind is None else kind if isinstance(kind, str) else describe(kind),
    )


def dump_event(event: Any) -> Any:
    """An SDK object's fields as the wire carried them: ``to_dict()`` (``model_dump()`` adds
    every default). The SDKs' parsed subclasses make pydantic warn as it dumps them: not
    a concern of ours, so not shown."""
    dump = getattr(event, "to_dict", None) or getattr(event, "model_dump", None)
    if not callable(dump) or isinstance(event, type):
        return None
    try:
        return dump(warnings=False)
    except TypeError:  # a to_dict() of another kind
        return dump()


_State = TypeVar("_State")


def carry_out(
    plans: Iterable[tuple[int, Iterable[Callable[[_State], list[Update]]]]],
    state_of: Callable[[int], _State],
) -> list[Update]:
    """Apply a chunk's plans, once the whole chunk has been checked: each ``(index, steps)``
    runs its steps on the state of that choice or candidate (``state_of(index)``); return
    the updates, in order."""
    updates: list[Update] = []
    for index, steps in plans:
        state = state_of(index)
        for step in steps:
            updates += step(state)
    return updates

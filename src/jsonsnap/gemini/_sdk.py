"""What the ``google-genai`` SDK hands over, as the wire carries it.

The SDK's ``GenerateContentResponse`` objects and request parts are pydantic models whose
dumps differ from the API's JSON: ``bytes`` where the wire has base64 (and the SDK's JSON dump
uses the URL-safe alphabet), enums where it has their value, ``datetime`` where it has a UTC
time in ``...Z``, and fields the wire never carried. :func:`response_data` is a response
object's data in the wire's shape (a copy, made without recursion, as :func:`rewritten` makes
every rewritten copy); :func:`dumped` is the dump of a model, or the value as it is.
"""

from __future__ import annotations

import base64
import datetime
import enum
from collections.abc import Callable, Mapping
from typing import Any

from .._jsontext import copy_data

#: What the SDK adds to a response that the wire never carried.
_SDK_ONLY = frozenset({"sdk_http_response", "automatic_function_calling_history", "parsed"})


def _plain(value: Any) -> Any:
    """A value of an SDK object's dump as the wire carries it: ``bytes`` as standard base64
    (the SDK's JSON dump uses the URL-safe alphabet), enums as their value, times in UTC as
    ``...Z``."""
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, datetime.datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    return value


def rewritten(source: Mapping[str, Any], change: Callable[[Any, Any], Any]) -> dict[str, Any]:
    """A copy of ``source`` whose every scalar is ``change(key, value)`` (without recursion)."""
    data = copy_data(source)
    stack: list[Any] = [data]
    while stack:
        item = stack.pop()
        pairs = item.items() if isinstance(item, dict) else enumerate(item)
        for key, value in list(pairs):
            if isinstance(value, (dict, list)):
                stack.append(value)
            else:
                item[key] = change(key, value)
    return data


def wire(dump: Mapping[str, Any]) -> dict[str, Any]:
    """An SDK response's dump as plain data in the wire's shape."""
    return rewritten(dump, lambda key, value: _plain(value))


def response_data(event: Any) -> dict[str, Any] | None:
    """The data of an SDK response object (a ``GenerateContentResponse``) as the wire carries
    it, without the fields only the SDK adds; ``None`` for what is no SDK object."""
    dump = getattr(event, "model_dump", None)
    if callable(dump) and not isinstance(event, (Mapping, type)):
        fields = getattr(type(event), "model_fields", {})
        exclude = {name for name in _SDK_ONLY if name in fields}
        data = dump(mode="python", by_alias=True, exclude_none=True, exclude=exclude)
        if isinstance(data, Mapping):
            return wire(data)
    return None


def dumped(value: Any) -> Any:
    """An SDK object's dump (by alias, without ``None`` fields); any other value as it is."""
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return dump(by_alias=True, exclude_none=True)
    return value

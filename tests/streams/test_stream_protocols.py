"""The protocol table: each name's accumulator class, its module imported when first looked up;
nothing registers itself, and a provider's module loads no other provider."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from typing import Any, ClassVar

import pytest

from jsonsnap.streams import PROTOCOLS, Accumulator

PROVIDERS = ("anthropic", "bedrock", "gemini", "openai", "vercel")


def loaded_after(code: str) -> set[str]:
    """The providers loaded in a fresh interpreter after running ``code``."""
    names = "{m.split('.')[1] for m in sys.modules if m.startswith('jsonsnap.')}"
    probe = f"import sys\n{code}\nprint(' '.join(sorted({names})))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return set(out.split()) & set(PROVIDERS)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_provider_loads_no_other_provider(provider: str) -> None:
    # (Bedrock streams Anthropic's messages: it uses Anthropic's accumulator.)
    allowed = {provider, "anthropic"} if provider == "bedrock" else {provider}
    assert loaded_after(f"import jsonsnap.{provider}") == allowed


def test_the_contract_loads_no_provider_until_one_is_looked_up() -> None:
    assert loaded_after("import jsonsnap.streams") == set()
    assert (
        loaded_after("import jsonsnap.streams as s; len(s.PROTOCOLS); list(s.PROTOCOLS)") == set()
    )
    assert loaded_after("from jsonsnap.streams import PROTOCOLS; PROTOCOLS['gemini']") == {"gemini"}
    assert loaded_after("from jsonsnap.streams import detect; detect({})") == set(PROVIDERS)


def test_the_table_is_a_read_only_mapping_in_the_order_of_the_names() -> None:
    assert isinstance(PROTOCOLS, Mapping)
    assert list(PROTOCOLS) == sorted(PROTOCOLS)
    assert len(PROTOCOLS) == 7
    assert "chat" in PROTOCOLS and "nope" not in PROTOCOLS
    with pytest.raises(KeyError):
        PROTOCOLS["nope"]
    with pytest.raises(TypeError):
        PROTOCOLS["x"] = Accumulator  # type: ignore[index]
    for name, cls in PROTOCOLS.items():
        assert cls.protocol == name
        assert PROTOCOLS[name] is cls
    assert "'gemini': jsonsnap.gemini.GenerateContentAccumulator" in repr(PROTOCOLS)


def test_a_subclass_registers_nothing() -> None:
    class Another(Accumulator):
        protocol: ClassVar[str] = "another"

        @classmethod
        def looks_like(cls, data: Mapping[str, Any]) -> bool:
            return False

    assert "another" not in PROTOCOLS
    assert Another not in PROTOCOLS.values()

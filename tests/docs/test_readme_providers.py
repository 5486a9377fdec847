"""The docs' pages on the providers, run as written.

Each Python block of each page (or section) is executed in order, from the root of the checkout
(the examples read the fixtures), and every line of the form ``print(...)  # -> text`` (or
``# -> text`` on the lines after a print) must print exactly ``text``. The Gemini page's
recipe with the ``google-genai`` SDK and the Bedrock page's with boto3 run too, their HTTP
answered from the recordings (as in ``test_gemini_sdk.py`` and ``test_bedrock_botocore.py``):
no network.
"""

from __future__ import annotations

import contextlib
import io
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from recordings import README, ROOT, readme_blocks, run_readme_examples

DOCS = README.parent / "docs"
SECTIONS = (
    ("OpenAI-compatible servers", DOCS / "openai.md"),
    (None, DOCS / "gemini.md"),
    (None, DOCS / "bedrock.md"),
    (None, DOCS / "vercel.md"),
)


@pytest.mark.parametrize(("section", "page"), SECTIONS, ids=[p.stem for _, p in SECTIONS])
def test_the_examples_run_as_the_readme_says(
    section: str | None, page: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(README.parent)
    run_readme_examples(readme_blocks(section, page), {"__name__": "readme_providers"}, page)


def test_the_table_names_every_protocol() -> None:
    from jsonsnap.streams import PROTOCOLS

    text = README.read_text(encoding="utf-8")
    start = text.index("\n## Start here\n")
    table = text[start : text.index("\n## ", start + 1)]
    modules = {cls.__module__.split(".")[1] for cls in PROTOCOLS.values()}
    for module in modules:
        assert f"`jsonsnap.{module}`" in table, module


def test_the_gemini_sdk_recipe(monkeypatch: pytest.MonkeyPatch) -> None:
    httpx2 = pytest.importorskip("httpx2")
    genai = pytest.importorskip("google.genai")
    from google.genai import types

    body = (ROOT / "gemini" / "function_call.sse").read_bytes()

    def answer(request: Any) -> Any:
        assert request.url.path.endswith(":streamGenerateContent"), request.url
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    real = genai.Client

    def client(**_: Any) -> Any:
        http = types.HttpOptions(
            httpx_client=httpx2.Client(transport=httpx2.MockTransport(answer)),
            httpx_async_client=httpx2.AsyncClient(transport=httpx2.MockTransport(answer)),
        )
        return real(api_key="test-key", http_options=http)

    monkeypatch.setattr(genai, "Client", client)
    (recipe,) = readme_blocks("With the official client", DOCS / "gemini.md", not_run=True)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(recipe, {"__name__": "readme_gemini"})
    assert out.getvalue().splitlines() == ["src/app/main.py True", "STOP"]


def test_the_bedrock_sdk_recipe(monkeypatch: pytest.MonkeyPatch) -> None:
    # boto3 is botocore's client factory; botocore's own client stands in for it, its HTTP
    # send answered from the recordings (as in test_bedrock_botocore.py): no network.
    botocore = pytest.importorskip("botocore")
    from botocore.awsrequest import AWSResponse  # type: ignore[import-untyped]
    from botocore.session import get_session  # type: ignore[import-untyped]

    bodies = {
        "converse-stream": ROOT / "bedrock" / "converse_text_tool.bin",
        "invoke-with-response-stream": ROOT / "bedrock" / "invoke_anthropic_tool.bin",
    }

    class Body:
        def __init__(self, data: bytes) -> None:
            self.data = data

        def stream(self, **_: Any) -> Any:
            yield from (self.data[i : i + 37] for i in range(0, len(self.data), 37))

        def read(self, *_: Any) -> bytes:
            return self.data

        def close(self) -> None:
            pass

    def send(request: Any, **_: Any) -> Any:
        (path,) = [p for name, p in bodies.items() if request.url.endswith(name)]
        headers = {"content-type": "application/vnd.amazon.eventstream"}
        return AWSResponse(request.url, 200, headers, Body(path.read_bytes()))

    def client(service: str) -> Any:
        made = get_session().create_client(
            service, region_name="us-east-1", aws_access_key_id="A", aws_secret_access_key="s"
        )
        made.meta.events.register("before-send.bedrock-runtime.*", send)
        return made

    boto3 = types.ModuleType("boto3")
    boto3.client = client  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "boto3", boto3)
    assert botocore is not None
    (recipe,) = readme_blocks("With the official client", DOCS / "bedrock.md", not_run=True)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(recipe, {"__name__": "readme_bedrock"})
    lines = out.getvalue().splitlines()
    assert lines[-2] == " notes/café.md tool_use", lines
    assert lines[-1].startswith("{'inputTokens': "), lines

"""`rlm_query` in the real MCP server subprocess, its model an Ollama-shaped server on
loopback: the uncited flag, empty answers, and one audit record per call."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
from fake_ollama import agent_script, serve
from mcp import Client, StdioServerParameters

NOTES = "Pump room notes.\nThe door keypad code for the chlorine room is 7316.\n"
TASK = "What is the keypad code for the chlorine room?"


async def _rlm_query(tmp_path: Path, ollama_url: str, **args: Any) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RLM_", "OLLAMA_"))}
    env["OLLAMA_HOST"] = ollama_url
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "rlm_recursive", "--data-dir", str(tmp_path / "data"), "serve"],
        cwd=str(tmp_path), env=env)
    with anyio.fail_after(90):
        async with Client(params, read_timeout_seconds=60) as client:
            result = await client.call_tool("rlm_query", {
                "task": TASK, "context": NOTES, "provider": "ollama", "strategy": "agent",
                **args})
    body = json.loads(result.content[0].text)
    assert result.is_error == ("error" in body)
    return body


def _audit(tmp_path: Path) -> list[dict[str, Any]]:
    lines = (tmp_path / "data" / "audit.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


async def test_an_answer_that_read_nothing_has_meta_uncited(tmp_path):
    with serve(agent_script("Probably 1234.", searches=0)) as ollama:
        uncited = await _rlm_query(tmp_path, ollama.url)
    with serve(agent_script("The code is 7316.", searches=1)) as ollama:
        cited = await _rlm_query(tmp_path, ollama.url)
    # Nothing read backs "Probably 1234.": the envelope says not found, in `meta`.
    assert uncited["data"]["answer"] == "Not found in the loaded documents."
    assert uncited["data"]["citations"] == [] and uncited["meta"]["uncited"] is True
    assert uncited["meta"]["grounded"] is False
    assert uncited["meta"]["grounding"]["method"] == "not_found"
    assert uncited["meta"]["grounding"]["original_answer"] == "Probably 1234."
    assert cited["data"]["citations"] and cited["meta"]["uncited"] is False
    assert cited["meta"]["grounded"] is True and cited["meta"]["closest"] == []
    # One record per call, shared with the run: the model is recorded, no second record.
    queries = [r for r in _audit(tmp_path) if r["tool"] in ("rlm_query", "query")]
    assert [(r["tool"], r["model_used"]) for r in queries] == [("rlm_query", "qwen3:8b")] * 2


async def test_an_empty_answer_is_an_error_envelope(tmp_path):
    with serve(agent_script("", searches=0)) as ollama:
        body = await _rlm_query(tmp_path, ollama.url)
    assert body["meta"]["error_code"] == "empty_answer" and "data" not in body
    assert [r["error_code"] for r in _audit(tmp_path) if r["tool"] == "rlm_query"] == [
        "empty_answer"]


async def test_a_pdf_path_is_cited_by_page(tmp_path):
    """`rlm_query` with a path loads the file itself, so a PDF's citation carries its page
    (it used to load the parsed text inline, and cite lines of that text)."""
    from doc_writers import write_pdf

    pages = ["Pump room overview. " * 10, "Valves and pipes. " * 10, NOTES.replace("\n", " ")]
    write_pdf(tmp_path / "manual.pdf", pages)
    with serve(agent_script("The code is 7316.", searches=1)) as ollama:
        body = await _rlm_query(tmp_path, ollama.url, context=None, path="manual.pdf")
    assert body["data"]["answer"] == "The code is 7316.", body
    [citation] = body["data"]["citations"]
    assert citation["page"] == 3 and citation["source"].endswith("manual.pdf"), citation
    assert body["meta"]["source"]["type"] == "path", citation["source"]
    assert body["meta"]["source"]["bytes_read"] == (tmp_path / "manual.pdf").stat().st_size

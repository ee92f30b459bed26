"""Every tool the real MCP server subprocess lists must be one the Anthropic API accepts.

Claude Code drops a tool whose `input_schema` is not `{"type": "object", ...}` or has a
top-level `oneOf` / `anyOf` / `allOf` / `not` / `enum` ("Skipping tool ...: its input schema
uses top-level oneOf"), and the model never sees it. Checked over stdio against
`python -m rlm_recursive serve`, so a new or changed tool cannot regress silently.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import anyio
import pytest
from helpers import CANONICAL_TOOLS
from mcp import Client, StdioServerParameters

_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_TOP_LEVEL_REFUSED = {"oneOf", "anyOf", "allOf", "not", "enum"}


@pytest.mark.parametrize("profile", ["unrestricted", "restricted"])
async def test_every_listed_tool_schema_is_accepted_by_the_anthropic_api(
    tmp_path: Path, data_dir: Path, profile: str
) -> None:
    env = dict(os.environ)
    env.pop("OLLAMA_HOST", None)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "rlm_recursive", "--data-dir", str(data_dir), "--profile", profile, "serve"],
        cwd=str(tmp_path),
        env=env,
    )
    with anyio.fail_after(60):
        async with Client(params, read_timeout_seconds=30) as client:
            tools = (await client.list_tools()).tools
            # The runtime check still holds "exactly one of path / context".
            both = await client.call_tool("rlm_query", {"task": "q", "context": "a", "path": "b"})
            neither = await client.call_tool("rlm_query", {"task": "q"})
    assert {t.name for t in tools} == CANONICAL_TOOLS
    for tool in tools:
        schema = tool.input_schema
        assert _TOOL_NAME.fullmatch(tool.name), tool.name
        assert schema.get("type") == "object", (tool.name, schema)
        assert isinstance(schema.get("properties", {}), dict), tool.name
        refused = _TOP_LEVEL_REFUSED & set(schema)
        assert not refused, f"{tool.name}: top-level {sorted(refused)} in its input schema"
        json.dumps(schema)  # plain JSON, nothing the API could not parse
    query = next(t for t in tools if t.name == "rlm_query")
    assert "exactly one of" in (query.description or "")
    for result in (both, neither):
        assert result.is_error
        body = json.loads(result.content[0].text)
        assert body["meta"]["error_code"] == "invalid_args"
        assert "exactly one of path or context" in body["error"]

"""`POST /v1/sessions` takes the load options the CLI and MCP have: include and exclude
patterns, the ignore rules, and OCR; a load's per-page notices reach the client."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_support import auth, live_api, new_key
from doc_writers import write_image_pdf

from rlm_recursive.agent.runtime import Runtime


@pytest.fixture
def rt(data_dir: Path) -> Iterator[Runtime]:
    runtime = Runtime(data_dir)
    yield runtime
    runtime.close()


def _ready(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    made = client.post("/v1/sessions", json=body)
    assert made.status_code == 201, made.text
    sid, deadline = made.json()["session_id"], time.monotonic() + 60
    while (view := client.get(f"/v1/sessions/{sid}").json())["status"] == "CREATING":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    return view


def test_patterns_and_ignore_rules_shape_a_folder_load(
        rt: Runtime, write: Callable[..., Path]) -> None:
    write("wiki/ward.txt", "Ward 4A has twelve beds.")
    write("wiki/ward.md", "# Ward\nWard 4A is on the fourth floor.")
    write("wiki/draft.txt", "Draft: nothing settled yet.")
    write("wiki/node_modules/pkg/readme.txt", "A vendored package.")
    with live_api(rt) as base, \
            httpx.Client(base_url=base, headers=auth(new_key(rt, "acme")), timeout=30) as c:
        only_text = _ready(c, {"docs": [{"path": "wiki", "type": "directory",
                                         "include_pattern": "*.txt",
                                         "exclude_pattern": "draft*"}]})
        everything = _ready(c, {"docs": [{"path": "wiki", "type": "directory",
                                          "ignore_rules": False}]})
        refused = c.post("/v1/sessions", json={"docs": [{"path": "wiki", "type": "directory",
                                                         "ignore_rules": "sometimes"}]})
    assert [Path(d["source_name"]).name for d in only_text["docs"]] == ["ward.txt"]
    assert sorted(Path(d["source_name"]).name for d in everything["docs"]) == [
        "draft.txt", "readme.txt", "ward.md", "ward.txt"]
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "invalid_args"


def test_a_scanned_page_loads_with_a_notice_when_ocr_is_off(
        rt: Runtime, tmp_path: Path) -> None:
    (tmp_path / "scans").mkdir()
    write_image_pdf(tmp_path / "scans" / "notice.pdf", ["Visiting hours end at 20:00."])
    with live_api(rt) as base, \
            httpx.Client(base_url=base, headers=auth(new_key(rt, "acme")), timeout=30) as c:
        view = _ready(c, {"docs": [{"path": "scans/notice.pdf"}], "ocr": False})
    assert view["status"] == "READY" and view["errors"] == []
    [notice] = view["warnings"]
    assert notice["source"].endswith("notice.pdf")
    assert "page 1" in notice["message"] and "image only" in notice["message"]

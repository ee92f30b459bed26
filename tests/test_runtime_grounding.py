"""Runtime mode (the client drives the REPL and calls FINAL): its final answer is checked
against what the run read, like every strategy's answer, and the envelope says so
(`final.grounded` on the step, `meta.grounded` on the execution). Real uvicorn server, real
pydantic-monty sandbox."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from api_support import auth, live_api, new_key

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.providers.fake import FakeProvider

NOTICE = ("Invoice 2291 from Harbour Supplies is due on 14 March.\n"
          "Invoice 2292 from Kestrel Print is due on 2 April.\n")
FIRST_LINE = len(NOTICE.splitlines()[0])


@pytest.fixture
def client(data_dir) -> Iterator[httpx.Client]:
    runtime = Runtime(data_dir, "local")
    try:
        with live_api(runtime, providers=ProviderPool({"ollama": FakeProvider()})) as base, \
                httpx.Client(base_url=base, headers=auth(new_key(runtime, "acme")),
                             timeout=30) as c:
            yield c
    finally:
        runtime.close()


def _run(c: httpx.Client, question: str | None, code: str) -> tuple[dict, dict]:
    sid = c.post("/v1/sessions", json={"docs": [{"text": NOTICE, "source_name": "due.txt"}]}
                 ).json()["session_id"]
    body = {"preset": "fully-local"} | ({"question": question} if question else {})
    made = c.post(f"/v1/sessions/{sid}/executions/runtime", json=body)
    assert made.status_code == 201, made.text
    eid = made.json()["execution_id"]
    step = c.post(f"/v1/executions/{eid}/steps", json={"code": code})
    assert step.status_code == 200, step.text
    return step.json(), c.get(f"/v1/executions/{eid}").json()


def test_an_answer_the_run_read_is_grounded(client: httpx.Client) -> None:
    step, view = _run(client, "When is invoice 2291 due?",
                      f"line = context[0][0:{FIRST_LINE}]\nFINAL('14 March')")
    assert step["final"]["is_final"] is True and step["final"]["answer"] == "14 March"
    assert step["final"]["grounded"] is True and step["final"]["closest"] == []
    assert view["status"] == "COMPLETED" and view["answer"] == "14 March"
    assert view["meta"]["grounded"] is True
    assert view["meta"]["grounding"]["method"] == "checked"


def test_an_answer_the_run_never_read_is_marked_ungrounded_not_replaced(
        client: httpx.Client) -> None:
    step, view = _run(client, "When is invoice 2291 due?",
                      f"line = context[0][0:{FIRST_LINE}]\nFINAL('9 June')")
    final = step["final"]
    # The client's answer stays its own; the envelope says it is not backed, and why.
    assert final["answer"] == "9 June" and final["grounded"] is False
    assert final["grounding"]["failed"]["missing_values"] == ["9", "june"]
    assert any("14 March" in c["text"] for c in final["closest"])
    assert view["answer"] == "9 June" and view["meta"]["grounded"] is False
    assert view["meta"]["closest"] == final["closest"]


def test_a_neighbours_value_is_not_grounded_for_the_entity_asked(
        client: httpx.Client) -> None:
    """The run read invoice 2291's line; asked about 2292, that date is not its answer."""
    step, view = _run(client, "When is invoice 2292 due?",
                      f"line = context[0][0:{FIRST_LINE}]\nFINAL('14 March')")
    assert step["final"]["grounded"] is False and view["meta"]["grounded"] is False


def test_without_a_question_the_answer_must_still_be_in_what_was_read(
        client: httpx.Client) -> None:
    read, _ = _run(client, None, f"line = context[0][0:{FIRST_LINE}]\nFINAL(line[-9:-1])")
    assert read["final"]["answer"] == "14 March" and read["final"]["grounded"] is True
    unread, _ = _run(client, None, "FINAL('2 April')")  # read nothing at all
    assert unread["final"]["grounded"] is False

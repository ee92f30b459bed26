"""The runner as an OpenAI-compatible model, driven by the official `openai` client against a
real uvicorn server on loopback: list, chat, follow-up (LCM), stream, a wrong key, another
tenant's session, and an answer nothing backs."""

from __future__ import annotations

import httpx
import openai
import pytest
from api_support import auth, live_api, new_key
from serve_support import NOTES, QUESTION, hopper, scripted_runtime, sse_events

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.api.openai_wire import NOT_GROUNDED
from rlm_recursive.errors import ProviderError
from rlm_recursive.lcm import lcm_for
from rlm_recursive.providers.fake import FakeProvider, reply

ITERATIVE = {"rlm": {"strategy": "iterative"}}


@pytest.fixture
def rt(data_dir):
    runtime = scripted_runtime(data_dir)
    yield runtime
    runtime.close()


@pytest.fixture
def served(rt):
    """(base URL, acme's key, acme's session id) with the hopper as the model."""
    key = new_key(rt, "acme")
    with live_api(rt, providers=ProviderPool({"fake": FakeProvider(script=hopper)})) as base:
        made = httpx.post(f"{base}/v1/sessions", headers=auth(key), json={
            "name": "notes", "docs": [{"text": NOTES, "source_name": "notes.txt"}]})
        assert made.status_code == 201, made.text
        yield base, key, made.json()["session_id"]


def _client(base: str, key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{base}/v1", api_key=key, max_retries=0, timeout=60)


def test_models_lists_each_session_alone_and_under_every_preset(served, rt):
    base, key, sid = served
    with _client(base, key) as client:
        ids = [m.id for m in client.models.list()]
        one = client.models.retrieve(f"rlm/scripted/{sid}")
    assert ids[0] == f"rlm/{sid}"
    assert set(ids) == {f"rlm/{sid}", *(f"rlm/{p}/{sid}" for p in rt.catalog.presets)}
    assert one.id == f"rlm/scripted/{sid}" and one.object == "model"
    assert one.owned_by == "rlm-recursive" and one.created > 1_700_000_000


def test_chat_answers_with_sources_and_a_follow_up_continues_the_conversation(served, rt):
    base, key, sid = served
    model = f"rlm/scripted/{sid}"
    with _client(base, key) as client:
        first = client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": QUESTION}], extra_body=ITERATIVE)
        content = first.choices[0].message.content
        follow_up = client.chat.completions.create(model=model, extra_body=ITERATIVE, messages=[
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": QUESTION},
            {"role": "assistant", "content": content},
            {"role": "user", "content": "And the alarm code of the Harbour building?"}])
    assert first.object == "chat.completion" and first.model == model
    assert first.choices[0].finish_reason == "stop"
    assert first.choices[0].message.role == "assistant"
    assert content.startswith("4821-K\n\nSources:\n[1] inline:notes.txt, characters "), content
    citations = first.citations  # our extension field, kept by the client
    assert citations and all(c["checksum"].startswith("sha256:") for c in citations)
    assert citations[0]["session_id"] == sid and citations[0]["tenant_id"] == "acme"
    assert first.rlm["grounded"] is True and first.usage.prompt_tokens > 0
    # The follow-up joined the first turn's conversation: four messages in one LCM thread.
    # (The system message is the client's, not the conversation's.)
    conversation = first.rlm["conversation_id"]
    assert conversation is not None and follow_up.rlm["conversation_id"] == conversation
    said = [(m.role, m.content) for m in lcm_for(rt.store).store.messages(conversation)
            if m.role in ("user", "assistant")]
    assert [r for r, _ in said] == ["user", "assistant", "user", "assistant"]
    assert said[0][1] == QUESTION and said[2][1].startswith("And the alarm code")


def test_a_history_from_elsewhere_becomes_a_new_conversation_holding_it(served, rt):
    base, key, sid = served
    with _client(base, key) as client:
        reply_ = client.chat.completions.create(model=f"rlm/scripted/{sid}", extra_body=ITERATIVE,
                                                messages=[
            {"role": "user", "content": "Who runs Falcon?"},
            {"role": "assistant", "content": "The Lisbon office."},
            {"role": "user", "content": QUESTION}])
    said = [(m.role, m.content) for m in
            lcm_for(rt.store).store.messages(reply_.rlm["conversation_id"])
            if m.role in ("user", "assistant")]
    assert said[:3] == [("user", "Who runs Falcon?"), ("assistant", "The Lisbon office."),
                        ("user", QUESTION)]


def test_stream_sends_chunks_progress_comments_and_done(served):
    base, key, sid = served
    model = f"rlm/scripted/{sid}"
    with _client(base, key) as client:
        whole = client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": QUESTION}], extra_body=ITERATIVE)
        chunks = list(client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": QUESTION}], stream=True,
            stream_options={"include_usage": True}, extra_body=ITERATIVE))
    assert all(c.object == "chat.completion.chunk" and c.model == model for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == whole.choices[0].message.content
    finishing = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert len(finishing) == 1 and finishing[0].choices[0].finish_reason == "stop"
    assert finishing[0].citations and finishing[0].rlm["grounded"] is True
    assert chunks[-1].choices == [] and chunks[-1].usage.total_tokens > 0
    # On the wire: progress as comments (ignored by the client above), then [DONE].
    with httpx.stream("POST", f"{base}/v1/chat/completions", headers=auth(key), timeout=60,
                      json={"model": model, "stream": True, **ITERATIVE,
                            "messages": [{"role": "user", "content": QUESTION}]}) as raw:
        assert raw.headers["content-type"].startswith("text/event-stream")
        assert raw.headers["x-rlm-execution-id"].startswith("exec_")
        events = sse_events(list(raw.iter_lines()))
    comments = [e["comment"] for e in events if "comment" in e]
    assert any("hop 2/3: searching 'Lisbon'" in c for c in comments), comments
    assert all(c.startswith("rlm-progress {") for c in comments if not c.startswith("ping"))
    assert events[-1] == {"data": "[DONE]"}


def test_a_wrong_key_is_401_in_openais_error_shape(served):
    base, _, sid = served
    with _client(base, "rlm_not_a_key") as client, \
            pytest.raises(openai.AuthenticationError) as raised:
        client.chat.completions.create(model=f"rlm/{sid}",
                                       messages=[{"role": "user", "content": "hi"}])
    assert raised.value.status_code == 401 and raised.value.code == "unauthorized"
    assert raised.value.type == "authentication_error" and raised.value.message


def test_another_tenants_session_is_404_as_is_an_unknown_model(served, rt):
    base, _, sid = served
    other = new_key(rt, "globex")
    with _client(base, other) as client:
        assert [m.id for m in client.models.list()] == []
        with pytest.raises(openai.NotFoundError) as chat:
            client.chat.completions.create(model=f"rlm/{sid}",
                                           messages=[{"role": "user", "content": "hi"}])
        with pytest.raises(openai.NotFoundError) as retrieve:
            client.models.retrieve(f"rlm/{sid}")
        with pytest.raises(openai.NotFoundError) as unknown:
            client.chat.completions.create(model="gpt-4o",
                                           messages=[{"role": "user", "content": "hi"}])
    assert chat.value.code == retrieve.value.code == unknown.value.code == "not_found"
    assert "GET /v1/models" in unknown.value.message


def test_bad_requests_are_openai_shaped_400s_or_422s(served):
    base, key, sid = served
    with _client(base, key) as client:
        with pytest.raises(openai.UnprocessableEntityError) as last_not_user:
            client.chat.completions.create(model=f"rlm/{sid}", messages=[
                {"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}])
        with pytest.raises(openai.UnprocessableEntityError) as image:
            client.chat.completions.create(model=f"rlm/{sid}", messages=[
                {"role": "user", "content": [{"type": "image_url",
                                              "image_url": {"url": "data:,"}}]}])
    assert last_not_user.value.code == image.value.code == "invalid_args"
    assert last_not_user.value.type == "invalid_request_error"


def test_an_answer_nothing_backs_does_not_read_as_a_confident_one(rt):
    key = new_key(rt, "acme")
    inventor = FakeProvider(script=lambda request: reply("The code is 9999-Z."))
    with live_api(rt, providers=ProviderPool({"fake": inventor})) as base:
        made = httpx.post(f"{base}/v1/sessions", headers=auth(key), json={
            "docs": [{"text": "Minutes of the garden committee. Roses were pruned.\n"}]})
        with _client(base, key) as client:
            answer = client.chat.completions.create(
                model=f"rlm/scripted/{made.json()['session_id']}",
                messages=[{"role": "user", "content": "What is the vault code?"}],
                extra_body={"rlm": {"strategy": "agent"}})
    content = answer.choices[0].message.content
    assert answer.rlm["grounded"] is False
    assert content.startswith(NOT_GROUNDED), content


def test_a_failed_run_is_an_openai_error_before_and_during_a_stream(rt):
    key = new_key(rt, "acme")

    def down(request):
        raise ProviderError("the model server is down")

    with live_api(rt, providers=ProviderPool({"fake": FakeProvider(script=down)})) as base:
        made = httpx.post(f"{base}/v1/sessions", headers=auth(key),
                          json={"docs": [{"text": NOTES}]})
        model = f"rlm/scripted/{made.json()['session_id']}"
        question = [{"role": "user", "content": QUESTION}]
        with _client(base, key) as client:
            with pytest.raises(openai.InternalServerError) as whole:
                client.chat.completions.create(model=model, messages=question,
                                               extra_body=ITERATIVE)
            stream = client.chat.completions.create(model=model, messages=question,
                                                    stream=True, extra_body=ITERATIVE)
            with pytest.raises(openai.APIError) as streamed:
                list(stream)
    assert whole.value.status_code == 502 and whole.value.code == "provider_error"
    assert "down" in whole.value.message
    # The stream had begun (200): the error arrives as OpenAI's API sends it, a data line.
    assert streamed.value.code == "provider_error" and streamed.value.type == "server_error"


def _slow_model() -> FakeProvider:
    async def think_for_a_minute(request):
        import asyncio

        await asyncio.sleep(60)
        return reply("too late")

    return FakeProvider(script=think_for_a_minute)


def _ended(base: str, key: str, execution_id: str) -> dict:
    import time

    deadline = time.monotonic() + 15
    while (view := httpx.get(f"{base}/v1/executions/{execution_id}",
                             headers=auth(key)).json())["status"] == "RUNNING":
        assert time.monotonic() < deadline, view
        time.sleep(0.1)
    return view


@pytest.mark.parametrize("stream", [True, False])
def test_a_client_that_leaves_cancels_its_run(rt, stream):
    """A closed tab or "stop generating" ends the run instead of letting it spend on."""
    key = new_key(rt, "acme")
    with live_api(rt, providers=ProviderPool({"fake": _slow_model()})) as base:
        made = httpx.post(f"{base}/v1/sessions", headers=auth(key),
                          json={"docs": [{"text": NOTES}]})
        body = {"model": f"rlm/scripted/{made.json()['session_id']}", "stream": stream,
                "messages": [{"role": "user", "content": QUESTION}], **ITERATIVE}
        if stream:
            with httpx.stream("POST", f"{base}/v1/chat/completions", headers=auth(key),
                              json=body, timeout=30) as response:
                execution_id = response.headers["x-rlm-execution-id"]
                next(response.iter_lines())  # the first chunk came: the run is under way
        else:
            with pytest.raises(httpx.ReadTimeout):
                httpx.post(f"{base}/v1/chat/completions", headers=auth(key), json=body,
                           timeout=httpx.Timeout(30, read=1.5))
            execution_id = rt.store.db.execute(
                "SELECT id FROM executions ORDER BY created_at DESC").fetchone()[0]
        view = _ended(base, key, execution_id)
    assert view["status"] == "FAILED" and view["error"]["code"] == "cancelled", view

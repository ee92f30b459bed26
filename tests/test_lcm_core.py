"""LCM acceptance criteria 1-4 (seed 002) on fixture conversations, on each backend: a real
SQLite file on disk and a real PostgreSQL server."""

from __future__ import annotations

from pathlib import Path

import pytest
from lcm_fixtures import TURN3_FACT, RawDatabase, build_conversation, small_config

from rlm_recursive.errors import Conflict
from rlm_recursive.lcm import Lcm, LcmConfig

BIG = 10**9


@pytest.fixture(autouse=True)
def backend(database_url: str | None) -> str | None:
    """Every test here runs twice: on SQLite, then on PostgreSQL (RLM_DATABASE_URL)."""
    return database_url


@pytest.mark.parametrize(("turns", "seed"), [(50, 1), (60, 7), (120, 3)])
async def test_compaction_reduces_assembled_tokens_by_at_least_30_percent(
    tmp_path: Path, turns: int, seed: int,
) -> None:
    lcm, cid, _ = build_conversation(tmp_path, turns, seed=seed)
    before = lcm.assembler.assemble(cid, BIG, system="You are helpful.").token_estimate
    result = await lcm.compaction.compact(cid)
    after = lcm.assembler.assemble(cid, BIG, system="You are helpful.").token_estimate
    assert result.leaf_ids, "nothing was compacted"
    assert after <= 0.7 * before, (before, after)
    # The fresh tail stays raw and in order.
    items = lcm.store.get_context_items(cid)
    tail = [i for i in items if i.item_type == "message"][-8:]
    assert [i.seq for i in tail] == list(range(turns - 7, turns + 1))


async def test_compaction_with_the_default_knobs_also_reduces(tmp_path: Path) -> None:
    lcm, cid, _ = build_conversation(tmp_path, 120, config=LcmConfig())
    before = lcm.assembler.assemble(cid, BIG).token_estimate
    await lcm.compaction.compact(cid)
    assert lcm.assembler.assemble(cid, BIG).token_estimate <= 0.7 * before


async def test_every_summary_expands_to_its_canonical_sources_byte_for_byte(
    tmp_path: Path,
) -> None:
    lcm, cid, texts = build_conversation(tmp_path, 80,
                                         config=small_config(max_expand_tokens=BIG))
    result = await lcm.compaction.compact(cid)
    assert result.leaf_ids and result.condensed_ids
    for sid in result.summary_ids:
        expanded = lcm.retrieval.expand(sid, depth=10, include_raw=True, token_cap=BIG)
        assert not expanded["truncated"]
        seqs = [m["seq"] for m in expanded["messages"]]
        assert seqs == sorted(seqs) and seqs == list(range(seqs[0], seqs[-1] + 1))
        for m in expanded["messages"]:
            assert m["content"].encode() == texts[m["seq"] - 1].encode()
    # Raw context + sources of context summaries = every message, exactly once, in order.
    covered: list[int] = []
    for item in lcm.store.get_context_items(cid):
        if item.item_type == "message":
            covered.append(item.seq or 0)
        else:
            covered += [m.seq for m in lcm.retrieval.source_messages(item.summary_id or "")]
    assert covered == list(range(1, len(texts) + 1))


async def test_expand_respects_the_token_cap_and_says_so(tmp_path: Path) -> None:
    lcm, cid, _ = build_conversation(tmp_path, 60)
    leaf = (await lcm.compaction.compact(cid)).leaf_ids[0]
    full = lcm.retrieval.expand(leaf, include_raw=True, token_cap=BIG)
    capped = lcm.retrieval.expand(leaf, include_raw=True, token_cap=full["estimated_tokens"] - 1)
    assert not full["truncated"] and capped["truncated"]
    assert capped["estimated_tokens"] < full["estimated_tokens"]
    assert len(capped["messages"]) < len(full["messages"])


async def test_grep_finds_a_turn_3_fact_after_compaction_in_raw_and_summary_scope(
    tmp_path: Path,
) -> None:
    lcm, cid, _ = build_conversation(tmp_path, 60, config=small_config(max_expand_tokens=BIG))
    await lcm.compaction.compact(cid)
    assert all(i.seq != 3 for i in lcm.store.get_context_items(cid) if i.seq)
    for mode, query in [("full_text", "Rotterdam container"), ("regex", r"MSCU-\d{7}")]:
        raw = lcm.retrieval.grep(cid, query, mode=mode, scope="messages")["matches"]
        assert raw[0]["id"] == "msg_3" and raw[0]["summarised_by"]
        summaries = lcm.retrieval.grep(cid, query, mode=mode, scope="summaries")["matches"]
        assert summaries and "msg_3" in summaries[0]["source_ids"]
        both = lcm.retrieval.grep(cid, query, mode=mode, scope="both")["matches"]
        assert {m["kind"] for m in both} == {"message", "summary"}
    # and the summary leads back to the exact original
    sid = lcm.retrieval.grep(cid, "Rotterdam", scope="summaries")["matches"][0]["id"]
    described = lcm.retrieval.describe(sid)
    assert described["kind"] == "summary" and described["source_messages"]["count"] >= 1
    top = sid if described["parent"] is None else described["parent"]
    texts = [m["content"] for m in lcm.retrieval.expand(top, depth=5, token_cap=BIG)["messages"]]
    assert any(TURN3_FACT in t for t in texts)


async def test_fresh_tail_is_never_compacted_and_rows_never_deleted(tmp_path: Path) -> None:
    lcm, cid, _texts = build_conversation(tmp_path, 30, config=small_config(fresh_tail_count=25))
    result = await lcm.compaction.compact(cid)
    assert len(lcm.store.messages(cid)) == 30
    sources = {m.seq for s in result.leaf_ids for m in lcm.retrieval.source_messages(s)}
    assert sources and max(sources) <= 5


async def test_every_run_records_a_compaction_part(tmp_path: Path) -> None:
    lcm, cid, _ = build_conversation(tmp_path, 40)
    result = await lcm.compaction.compact(cid)
    parts = [p for m in lcm.store.messages(cid) for p in lcm.store.message_parts(m.message_id)
             if p["part_type"] == "compaction"]
    assert len(parts) == len(result.summary_ids)
    assert all(p["metadata"]["compaction_id"] == result.compaction_id for p in parts)
    assert {p["metadata"]["summary_id"] for p in parts} == set(result.summary_ids)
    assert all(p["is_synthetic"] == 1 for p in parts)


async def test_a_held_lease_is_a_retryable_conflict(tmp_path: Path) -> None:
    lcm, cid, _ = build_conversation(tmp_path, 30)
    other = Lcm(tmp_path, small_config())
    other.store.acquire_lock(cid, "someone-else", ttl_s=60)
    with pytest.raises(Conflict) as info:
        await lcm.compaction.compact(cid)
    assert info.value.retryable and info.value.code == "conflict"
    other.store.release_lock(cid, "someone-else")
    assert (await lcm.compaction.compact(cid)).leaf_ids


async def test_threshold_compaction_stops_under_the_threshold(tmp_path: Path) -> None:
    lcm, cid, _ = build_conversation(tmp_path, 60)
    total = lcm.assembler.assemble(cid, BIG).token_estimate
    budget = int(total / 0.9)
    decision = lcm.compaction.evaluate(cid, budget)
    assert decision.should_compact and decision.reason == "threshold"
    result = await lcm.compaction.compact(cid, reason="threshold", budget_tokens=budget)
    assert result.tokens_after <= 0.75 * budget
    assert not lcm.compaction.evaluate(cid, budget).should_compact
    manual = await Lcm(tmp_path, small_config()).compaction.compact(cid)
    assert manual.leaf_ids  # threshold compaction left eligible windows alone


def test_assembler_keeps_system_fresh_turns_and_chronological_order(tmp_path: Path) -> None:
    lcm, cid, _texts = build_conversation(tmp_path, 20)
    out = lcm.assembler.assemble(cid, 400, system="S" * 30)
    seqs = [i.seq for i in out.items]
    assert out.fits and out.system_tokens > 0
    assert seqs == list(range(21 - len(seqs), 21)) and 0 < len(seqs) < 20
    assert out.token_estimate <= 400 and len(out.omitted) == 20 - len(seqs)
    again = lcm.assembler.assemble(cid, 400, system="S" * 30)
    assert again == out


async def test_assembler_prefers_relevant_summaries(tmp_path: Path) -> None:
    lcm, cid, _ = build_conversation(tmp_path, 60, config=small_config(condense_fanout=50))
    await lcm.compaction.compact(cid)
    items = lcm.store.get_context_items(cid)
    tail_tokens = sum(i.token_count for i in items if i.item_type == "message")
    budget = tail_tokens + 200  # room for about one summary
    out = lcm.assembler.assemble(cid, budget, query="Which container for Rotterdam?")
    chosen = [i for i in out.items if i.item_type == "summary"]
    assert chosen and "Rotterdam" in chosen[0].content
    plain = lcm.assembler.assemble(cid, budget)
    newest = [i for i in items if i.item_type == "summary"][-1]
    assert newest.summary_id in [i.summary_id for i in plain.items]


def test_large_content_becomes_a_file_reference(tmp_path: Path) -> None:
    lcm = Lcm(tmp_path, small_config(large_file_tokens=100))
    cid = lcm.store.create_conversation("ses_x").conversation_id
    big = "line of a log file with id 42\n" * 200
    message = lcm.append(cid, "tool", big, file_name="app.log")
    assert message.content.startswith("[file_") and len(message.content) < 1000
    file_id = message.content[1:].split(":", 1)[0]
    described = lcm.retrieval.describe(file_id)
    assert described["kind"] == "file" and described["byte_size"] == len(big.encode())
    assert "200 lines" in described["exploration_summary"].replace("201", "200")
    assert lcm.files.read(file_id) == big
    assert lcm.store.message_parts(message.message_id)[0]["part_type"] == "file"


# --- integrity: each invariant violation, injected, is detected -------------------------

@pytest.fixture
async def compacted(tmp_path: Path) -> tuple[Lcm, int]:
    lcm, cid, _ = build_conversation(tmp_path, 60)
    await lcm.compaction.compact(cid)
    assert lcm.integrity.run().ok and lcm.integrity.run(cid).ok
    return lcm, cid


def _kinds(lcm: Lcm, cid: int) -> dict[int, set[str]]:
    report = lcm.integrity.run(cid)
    found: dict[int, set[str]] = {}
    for v in report.violations:
        found.setdefault(v.invariant, set()).add(v.kind)
    plan = lcm.integrity.plan_repairs(report)
    assert len(plan["actions"]) == len(report.violations)
    assert not any(a["destructive"] for a in plan["actions"])
    return found


def test_detects_a_summary_without_source(tmp_path: Path, compacted: tuple[Lcm, int]) -> None:
    lcm, cid = compacted
    leaf = lcm.store.summaries(cid)[0].summary_id
    RawDatabase(tmp_path).execute("DELETE FROM summary_messages WHERE summary_id = ?", (leaf,))
    assert _kinds(lcm, cid) == {1: {"summary_without_source"}}


def test_detects_a_dangling_context_item(tmp_path: Path, compacted: tuple[Lcm, int]) -> None:
    lcm, cid = compacted
    RawDatabase(tmp_path).execute("UPDATE context_items SET summary_id = 'sum_gone' WHERE "
                           "item_type = 'summary'")
    assert _kinds(lcm, cid) == {2: {"dangling_context_item"}}


def test_detects_duplicate_ordinals(tmp_path: Path, compacted: tuple[Lcm, int]) -> None:
    lcm, cid = compacted
    conn = RawDatabase(tmp_path)
    conn.drop_constraints("context_items")
    conn.execute("UPDATE context_items SET ordinal = (SELECT MAX(ordinal) FROM context_items) "
                 "WHERE ordinal = (SELECT MIN(ordinal) FROM context_items)")
    assert _kinds(lcm, cid) == {3: {"duplicate_context_ordinal"}}
    conn.drop_constraints("message_parts")
    conn.execute("INSERT INTO message_parts SELECT * FROM message_parts LIMIT 1")
    assert _kinds(lcm, cid)[3] == {"duplicate_context_ordinal", "duplicate_part_ordinal"}


def test_detects_a_deleted_canonical_message(tmp_path: Path, compacted: tuple[Lcm, int]) -> None:
    lcm, cid = compacted
    tail = [i for i in lcm.store.get_context_items(cid) if i.item_type == "message"][-1]
    conn = RawDatabase(tmp_path)
    # The newest message: no lineage points at it, only the append counter remembers it.
    conn.execute("DELETE FROM context_items WHERE message_id = ?", (tail.message_id,))
    conn.execute("DELETE FROM message_parts WHERE message_id = ?", (tail.message_id,))
    conn.execute("DELETE FROM messages WHERE message_id = ?", (tail.message_id,))
    assert _kinds(lcm, cid) == {4: {"canonical_message_missing"}}


def test_detects_a_deleted_part_and_broken_lineage(
    tmp_path: Path, compacted: tuple[Lcm, int],
) -> None:
    lcm, cid = compacted
    lcm.store.create_message_parts(1, [{"part_type": "text", "text_content": "a"},
                                       {"part_type": "text", "text_content": "b"}])
    conn = RawDatabase(tmp_path)
    conn.execute("DELETE FROM message_parts WHERE message_id = 1 AND ordinal = 0")
    conn.execute("DELETE FROM messages WHERE seq = 2")
    found = _kinds(lcm, cid)
    assert found[4] == {"canonical_part_missing", "canonical_message_missing"}
    assert found[1] == {"lineage_to_missing_message"}


async def test_sub_agent_expansion_returns_a_distilled_answer_with_cited_ids(
    tmp_path: Path,
) -> None:
    lcm, cid, _ = build_conversation(tmp_path, 60)
    await lcm.compaction.compact(cid)
    sid = lcm.retrieval.grep(cid, "Rotterdam", scope="summaries")["matches"][0]["id"]
    shown: list[str] = []

    async def answerer(question: str, text: str) -> str:
        shown.append(text)
        line = next(line for line in text.splitlines() if "Rotterdam" in line)
        return f"{line.split('] ', 1)[1].split('.')[0]} {line.split(']')[0]}]"

    out = await lcm.retrieval.ask([sid], "Which container?", answerer, token_cap=300)
    assert "MSCU-4471902" in out["answer"] and "[msg_3]" in out["answer"]
    assert sid in out["cited_ids"] and "msg_3" in out["cited_ids"]
    # Bounded: the sub-agent saw at most the cap, the caller only the distilled answer.
    assert len(shown[0]) <= 300 * 3 + 200 and "answer" in out and "messages" not in out

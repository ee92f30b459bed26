"""End to end on the real embedded SmolLM2-135M: one small run per runtime-planned strategy."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys

import pytest
from strategy_support import load

from rlm_recursive.agent.citations import Citation, verify_citation
from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.bench.multihop import make_task
from rlm_recursive.bench.oolong import FRUITS

pytest.importorskip("llama_cpp", reason="the `local` extra is not installed")
pytestmark = pytest.mark.slow

EMBEDDED = QueryOptions(provider="embedded", max_sub_calls=200)


@pytest.fixture
def rt(tmp_path):
    runtime = Runtime(tmp_path / "store")
    yield runtime
    runtime.close()


def test_the_readmes_quickstart_answers_from_the_example_folder(tmp_path):
    """The README's first command, as a new user runs it: no flags, the shipped examples."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {k: v for k, v in os.environ.items() if k != "OLLAMA_HOST"}
    env["OLLAMA_HOST"] = "http://127.0.0.1:9"  # nothing listens: auto falls back to embedded
    proc = subprocess.run(
        [sys.executable, "-m", "rlm_recursive", "--data-dir", str(tmp_path / "data"), "query",
         "What is the door keypad code for the chlorine room during an emergency?",
         os.path.join(root, "examples"), "--json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert "7316" in result["answer"] and result["grounded"] is True, result["answer"]
    assert any(c["source"].endswith("03-alarms.md") for c in result["citations"])


def test_cli_query_how_many_counts_exactly_with_no_flags(tmp_path):
    rng = random.Random(4)
    lines = [f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z level={rng.choice(['INFO', 'ERROR'])} "
             f"service={rng.choice(['billing', 'auth'])} msg=\"sent to billing\""
             for i in range(400)]
    gold = sum("level=ERROR service=billing " in line for line in lines)
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "app.log").write_text("\n".join(lines[:200]) + "\n")
    (logs / "app.1.log").write_text("\n".join(lines[200:]) + "\n")
    env = {k: v for k, v in os.environ.items() if k != "OLLAMA_HOST"}
    env["OLLAMA_HOST"] = "http://127.0.0.1:9"  # nothing listens: auto falls back to embedded
    proc = subprocess.run(
        [sys.executable, "-m", "rlm_recursive", "--data-dir", str(tmp_path / "data"), "query",
         "How many log lines have level ERROR from the billing service?", "logs", "--json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["strategy"] == "count" and result["model"] == "smollm2-135m"
    assert result["answer"].split()[0] == str(gold)
    assert result["usage"]["model_calls"] == 0  # the plan comes from the question's words
    assert 0 < len(result["citations"]) <= 5
    assert all("level=ERROR" in c_text for c_text in _cited(tmp_path / "data", result))


def _cited(data, result) -> list[str]:
    runtime = Runtime(data)
    try:
        checks = [verify_citation(runtime.store, result["session_id"], Citation(**c))
                  for c in result["citations"]]
    finally:
        runtime.close()
    assert all(check["valid"] for check in checks)
    return [check["text"] for check in checks]


async def test_iterative_follows_a_two_hop_chain(rt):
    task = make_task(random.Random(0), 2, 12_000)
    sid = load(rt, task.documents[0][1])
    result = await run_query(rt, sid, task.question, EMBEDDED, providers=ProviderPool())
    assert result.strategy == "iterative"
    assert result.usage["model_calls"] <= 4
    assert task.score(result.answer) == 1.0, result.answer
    texts = [verify_citation(rt.store, sid, c) for c in result.citations]
    assert all(t["valid"] for t in texts)
    assert any(task.gold in t["text"] for t in texts)


async def test_classify_judges_every_note_once_in_few_calls(rt):
    rng = random.Random(2)
    notes = [f"Note {i + 1}: bought " + (f"some {rng.choice(FRUITS)}" if rng.random() < 0.3
                                         else f"a {rng.choice(['lamp', 'hammer', 'scarf'])}")
             + " today." for i in range(60)]
    sid = load(rt, "\n".join(notes) + "\n")
    result = await run_query(rt, sid, "How many of the notes mention a fruit?", EMBEDDED,
                             providers=ProviderPool())
    assert result.strategy == "classify"
    seen = re.search(r"items seen (\d+) / items total (\d+), (\d+) model calls", result.answer)
    assert seen and seen.group(1) == seen.group(2) == "60", result.answer
    assert int(seen.group(3)) <= 3  # at most one call per 20 items
    said_yes = int(result.answer.split()[0])
    assert said_yes == len(result.citations)  # every item judged yes is cited
    assert all(verify_citation(rt.store, sid, c)["valid"] for c in result.citations)


async def test_plain_words_over_a_bracketed_log_count_exactly_with_no_model_call(rt):
    rng = random.Random(7)
    rows = [(rng.choice(["INFO", "ERROR", "WARN"]), rng.choice(["mailer", "lab-results", "auth"]))
            for _ in range(3000)]
    text = "".join(f"2023-04-0{1 + i % 9} 10:00:{i % 60:02d},000 {lv} [{svc}] sent to mailer\n"
                   for i, (lv, svc) in enumerate(rows))
    sid = load(rt, text)
    gold = sum(r == ("ERROR", "lab-results") for r in rows)
    result = await run_query(rt, sid, "How many ERROR lines are from the lab-results service?",
                             EMBEDDED, providers=ProviderPool())
    assert result.strategy == "count" and result.usage["model_calls"] == 0
    assert result.answer.split()[0] == str(gold)


async def test_an_account_number_is_looked_up_not_counted(rt):
    text = ("Acme Ltd holds account number 4471-220-19 at Northbank. " + "Filler line. " * 40
            + "\n") * 3
    sid = load(rt, text)
    result = await run_query(rt, sid, "What is the account number of Acme Ltd?", EMBEDDED,
                             providers=ProviderPool())
    assert result.strategy == "search"
    assert "counted" not in result.answer


async def test_classify_stops_at_its_time_budget_with_a_partial_count(rt):
    notes = [f"Note {i + 1}: bought a {'plum' if i % 4 == 0 else 'lamp'} today."
             for i in range(600)]
    sid = load(rt, "\n".join(notes) + "\n")
    options = EMBEDDED.model_copy(update={"classify_budget_s": 15.0})
    result = await run_query(rt, sid, "How many of the notes mention a fruit?", options,
                             providers=ProviderPool())
    assert result.strategy == "classify"
    seen = re.search(r"items seen (\d+) / items total (\d+)", result.answer)
    assert seen and int(seen.group(1)) < int(seen.group(2)) == 600, result.answer
    assert "PARTIAL" in result.answer


async def test_a_fact_beside_its_neighbours_comes_back_from_the_entitys_line(rt):
    """The runtime finds the line naming the patient and keeps its copy of the answer:
    SmolLM2's own answer is kept only when it states that line's values and no others."""
    board = ("Ward 6 night handover\n\n"
             "Bed 1 — Mr Keane, 78. Heparin infusion at 1,100 units/hr; APTT due 10:00.\n"
             "Bed 7 — Mrs Whitlock, 70. Heparin infusion at 900 units/hr; latex allergy.\n"
             "Bed 8 — Mr Achterberg, 67. Pacing wire in situ, rate set at 70 bpm.\n")
    sid = load(rt, "Filler about the weather and the hills. " * 300, board)
    result = await run_query(rt, sid, "What rate is the heparin running at for Mrs Whitlock?",
                             EMBEDDED, providers=ProviderPool())
    assert result.strategy == "search" and result.grounded
    assert "900" in result.answer and "1,100" not in result.answer
    for citation in result.citations:
        assert verify_citation(rt.store, sid, citation)["valid"]


async def test_negated_counts_and_averages_are_computed_with_no_model_call(rt):
    rows = ["booking\tnights\tchannel\tstatus"] + [
        f"B-{i}\t{i % 5 + 1}\t{('agency', 'direct')[i % 2]}\t"
        f"{('confirmed', 'cancelled', 'confirmed', 'no-show')[i % 4]}" for i in range(40)]
    sid = load(rt, "\n".join(rows) + "\n")
    counted = await run_query(rt, sid, "How many bookings are not confirmed?", EMBEDDED,
                              providers=ProviderPool())
    assert counted.strategy == "count" and counted.usage["model_calls"] == 0
    assert counted.answer.split()[0] == str(sum(i % 4 in (1, 3) for i in range(40)))
    mean = await run_query(rt, sid, "What is the average nights of the direct bookings?",
                           EMBEDDED, providers=ProviderPool())
    direct = [i % 5 + 1 for i in range(40) if i % 2]
    assert mean.answer.split()[0] == f"{sum(direct) / len(direct):g}"
    assert mean.usage["model_calls"] == 0 and mean.grounded

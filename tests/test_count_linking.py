"""Count plans without the question's own verb: "jobs that finished with state=rejected" is a
state condition, not also "finish" (one rejected job's note says "finishing"); "talks that
run longer than 50 minutes" compares running times written `01:05:10`; a file word ends
the collection's words ("in the archive | run longer"). The documents are written here; the
expected numbers come from the records written. No model call."""

from __future__ import annotations

import json
import random

from rlm_recursive.agent.counting.linking import linking_verbs_dropped
from rlm_recursive.agent.routing import count_draft
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.tally import FieldFilter, TallyPlan, select
from rlm_recursive.corpus.word_stems import words


def _queue_log(n: int = 40, seed: int = 3) -> tuple[str, int]:
    rng = random.Random(seed)
    lines, rejected = [], 0
    for i in range(n):
        state = rng.choice(("done", "done", "rejected", "queued"))
        note = "ok"
        if state == "rejected":
            rejected += 1
            note = "finishing step skipped" if rejected == 1 else "quota exceeded"
        lines.append(f'ts=2031-04-0{1 + i % 9}T0{i % 10}:00:00Z job=Q{i:03d} '
                     f'state={state} ({note})')
    return "\n".join(lines) + "\n", rejected


def _count(question: str, docs: list[tuple[str, str]]) -> tuple[int, object]:
    layout = read_layout(docs, {doc_id: doc_id for doc_id, _ in docs})
    draft = count_draft(question, layout)
    return len(list(select(layout.records, draft.plan))), draft


def _plan_with(phrase: str) -> TallyPlan:
    return TallyPlan(filters=[FieldFilter(field="state", value="rejected")], phrases=[phrase])


def test_the_verb_before_a_field_condition_is_no_phrase() -> None:
    text, rejected = _queue_log()
    layout = read_layout([("queue.log", text)], {"queue.log": "queue.log"})
    question = "how many jobs in the queue log finished with state=rejected?"
    ws = words(question)
    field_at = {ws.index("state"), ws.index("rejected")}
    plan = _plan_with("finished")
    assert len(list(select(layout.records, plan))) == 1  # "finishing step skipped"
    assert linking_verbs_dropped(plan, question, layout, field_at, set()) == []
    assert len(list(select(layout.records, _plan_with("finished").model_copy(
        update={"phrases": []})))) == rejected
    # Not a verb before the condition ("a finishing step"): the phrase stays.
    other = "how many finished jobs have state=rejected?"
    ws = words(other)
    assert linking_verbs_dropped(plan, other, layout, {ws.index("state"), ws.index("rejected")},
                                 set()) == ["finished"]


def test_a_verb_most_selected_records_write_stays_a_condition() -> None:
    # Every rejected job but one says "escalated": the verb sets those apart.
    lines = [f"job=R{i} state=rejected ({'escalated to duty' if i else 'left quiet'})"
             for i in range(6)] + [f"job=D{i} state=done (fine)" for i in range(6)]
    layout = read_layout([("jobs.log", "\n".join(lines) + "\n")])
    question = "how many jobs were escalated with state=rejected?"
    ws = words(question)
    plan = _plan_with("escalated")
    kept = linking_verbs_dropped(plan, question, layout, {ws.index("state"),
                                                          ws.index("rejected")}, set())
    assert kept == ["escalated"]
    assert len(list(select(layout.records, plan))) == 5


def _talks() -> tuple[str, int, int]:
    rng = random.Random(11)
    rows, longer, shorter = [], 0, 0
    for i in range(14):
        seconds = rng.randint(20 * 60, 80 * 60)
        longer += seconds > 50 * 60
        shorter += seconds <= 30 * 60
        clock = f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
        rows.append(json.dumps({"talk": f"Session {i}", "room": rng.choice("ABC"),
                                "duration": clock}))
    return "\n".join(rows) + "\n", longer, shorter


def test_running_times_compared_with_minutes() -> None:
    text, longer, shorter = _talks()
    docs = [("talks-archive.jsonl", text)]
    total, draft = _count("How many talks kept in the archive run longer than 50 minutes?",
                          docs)
    assert [c.describe() for c in draft.plan.compare] == ["duration>50 min"]  # type: ignore[attr-defined]
    assert draft.plan.phrases == [] and draft.plan.docs == []  # type: ignore[attr-defined]
    assert total == longer
    total, _ = _count("How many talks last 30 minutes or shorter?", docs)
    assert total == shorter


def test_minutes_and_seconds_alone_are_no_running_time() -> None:
    # "47:05" may be minutes and seconds or hours and minutes: no comparison is made.
    rows = [json.dumps({"track": f"T{i}", "duration": f"{40 + i}:05"}) for i in range(8)]
    _, draft = _count("How many tracks run longer than 45 minutes?",
                      [("tracks.jsonl", "\n".join(rows) + "\n")])
    assert draft.plan.compare == []  # type: ignore[attr-defined]

"""The hand-written bench: its parts load, stay apart, and score as documented."""

from __future__ import annotations

from rlm_recursive.bench import written


def test_parts_load_with_their_documents_and_never_share_one():
    names = {}
    for part in written.PARTS:
        tasks = written.make_tasks(0, [part], list(written.FAMILIES), 200_000)
        questions = written.load_questions(part)
        assert len(tasks) == len(questions) >= 20
        assert {q["family"] for q in questions} >= set(written.FAMILIES) - {"classify"}
        names[part] = {name for t in tasks for name, _ in t.documents} - {"background.txt"}
        # A folder question sees every document of its part, padded to the length asked.
        folder = next(t for t in tasks if len(t.documents) > 2)
        assert 200_000 <= folder.length < 201_000
    for held in ("heldout", "heldout2"):
        assert not names["dev"] & names[held]
        dev = {q["question"] for q in written.load_questions("dev")}
        assert not dev & {q["question"] for q in written.load_questions(held)}


def _task(part: str, question: str):
    return next(t for t in written.make_tasks(0, [part], list(written.FAMILIES), 1000)
                if t.question == question)


def test_scores_follow_the_family():
    fact = _task("dev", "What will reception's direct line be?")
    assert fact.score("It becomes 01632 960 455.") == 1.0
    assert fact.score("01632 960 455 or 01632 960 457") == 0.0  # names the neighbour too
    assert fact.score("Not found in the loaded documents.") == 0.0
    total = _task("dev", "What is the total weight_kg of shipments from Rotterdam?")
    assert total.score("8,870 — computed exactly by code") == 1.0
    assert total.score("8,900") == 0.0
    count = _task("dev", "How many shipments are not delivered?")
    assert count.score("5 — counted") == 1.0 and count.score("6") == 0.75
    missing = _task("dev", "Which carrier handles shipment SH-1020?")
    assert missing.score("Not found in the loaded documents.") == 1.0
    assert missing.score("Not found, but maybe Maersk") == 0.0

"""The hand-written bench: its parts load, stay apart, and score as documented."""

from __future__ import annotations

import re

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
    for held in (part for part in written.PARTS if part != "dev"):
        assert not names["dev"] & names[held]
        dev = {q["question"] for q in written.load_questions("dev")}
        assert not dev & {q["question"] for q in written.load_questions(held)}


def _loose(text: str, spaces: str = " ") -> str:
    """Case aside, runs of spaces as one (or, with spaces="", no spaces and no commas)."""
    text = re.sub(r"\s+", spaces, text.lower())
    return text if spaces else text.replace(",", "")


def test_every_question_names_its_documents_and_a_gold_value_they_hold():
    """A fact's gold value is written in the documents it is asked over (spaces and
    thousands separators aside); computed and unanswerable questions carry what their
    scorer needs."""
    for part in written.PARTS:
        questions = written.load_questions(part)
        tasks = written.make_tasks(0, [part], list(written.FAMILIES), 1000)
        assert [t.question for t in tasks] == [q["question"] for q in questions]
        for q, task in zip(questions, tasks, strict=True):
            where = (part, q["question"])
            assert q["family"] in written.FAMILIES, where
            if q["family"] == "unanswerable":
                assert q["gold"] is None and q["others"], where
            elif q["family"] in ("count", "classify"):
                assert isinstance(q["gold"], int | float), where
            else:
                text = "\n".join(t for name, t in task.documents if name != "background.txt")
                gold = str(q["gold"])
                assert (_loose(gold) in _loose(text)
                        or _loose(gold, "") in _loose(text, "")), where


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


def test_a_value_inside_a_longer_number_is_not_said():
    from rlm_recursive.bench.suite import value_score
    score = value_score("1700 units per hour", ["700 units per hour", "2,100 units per hour"])
    assert score("The infusion for bed 4B is set at 1700 units per hour.") == 1.0
    assert score("1700 or 700 units per hour") == 0.0
    assert value_score("700 units", [])("set at 1700 units") == 0.0


def test_an_unanswerable_distractor_inside_a_longer_number_is_not_named():
    """"no item of the 565" does not name the distractor "6"; "6 replicas" does."""
    scorer = written._unanswerable_score(["6", "Leixões"])
    assert scorer("Not found: no item of the 565 in 9 document(s) matches.") == 1.0
    assert scorer("Not found, though staging may run 6 replicas.") == 0.0
    assert scorer("Not found in the loaded documents; see LEIXÕES.") == 0.0


def test_a_value_after_a_word_ending_in_a_digit_is_named():
    """Spaces dropped, "cmake:amd64 3.25.1-1" reads "amd643.25.1-1": the answer still names
    the version; a longer number still does not name its tail."""
    from rlm_recursive.bench.suite import names_value

    assert names_value("2026-10-16 23:03:58 install cmake:amd64 3.25.1-1", "3.25.1-1")
    assert names_value("Tel 01632 960 418", "01632 960 418")
    assert not names_value("1700 units per hour", "700 units per hour")
    assert not names_value("cmake:amd64", "4")


def test_a_value_of_a_few_letters_is_named_only_as_a_word():
    """A drive letter "S" is not named by the "s" of "documents": "not found" is right."""
    from rlm_recursive.bench.suite import names_value

    assert not names_value("Not found in the loaded documents.", "S")
    assert names_value("Mapped to S: on logon", "S")

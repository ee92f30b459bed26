"""Blocks and their header lines (`corpus.blocks`), and what extraction makes of them.

Our own documents in block layouts: pipe-segment lab messages whose patient segment names
who the result lines are about, a commit history whose `Author:` line names who wrote the
message under it, calendar events whose summary names what the description is about,
numbered caption cues, a job file whose comments introduce the line under them. Tables,
one-line log entries and settings files are not blocks.
"""

from __future__ import annotations

import pytest
from fact_support import FILLER, knows_nothing
from strategy_support import ask, load, small_runtime

from rlm_recursive.agent.citations import verify_citation
from rlm_recursive.agent.grounding import NOT_FOUND
from rlm_recursive.corpus.blocks import block_at, blocks, header_text, shape
from rlm_recursive.corpus.evidence import best_units, split_units
from rlm_recursive.corpus.sections import headings, scopes_for


def _message(stamp: str, patient: str, born: str, panel: str, results: list[str],
             note: str = "") -> str:
    lines = [f"HDR|LABSYS|NORTHFIELD|{stamp}|MSG{stamp[-4:]}",
             f"PAT|1||K{born}||{patient}||{born}|U",
             f"REQ|1|ORD{stamp[-4:]}|{panel}|||DR^OYELARAN^TUNDE",
             *(f"RES|{i + 1}|NM|{r}" for i, r in enumerate(results))]
    return "\n".join(lines + ([f"CMT|1|{note}"] if note else [])) + "\n"


LAB = (_message("202503011015", "FERREIRA^INES^MARTA^^MRS", "19700412", "GLU^GLUCOSE PANEL",
                ["GLU^Glucose^LOC||6.4|mmol/L|3.5-7.8|N", "HBA1C^HbA1c^LOC||51|mmol/mol|<42|H"],
                "Fasting sample, received on ice.")
       + _message("202503011042", "KOWALSKI^PIOTR^^^MR", "19581103", "GLU^GLUCOSE PANEL",
                  ["GLU^Glucose^LOC||9.1|mmol/L|3.5-7.8|H"], "Repeat advised.")
       + _message("202503011107", "ABARA^CHIDI^^^MR", "19910220", "LIP^LIPID PROFILE",
                  ["CHOL^Cholesterol^LOC||5.8|mmol/L|<5.0|H", "HDL^HDL^LOC||1.1|mmol/L|>1.0|N"]))

COMMITS = "".join(
    f"commit {sha}\nAuthor: {who}\nDate:   {when}\n\n    {title}\n\n    {body}\n\n"
    f" {path} | {n} ++-\n 1 file changed, {n - 1} insertions(+), 1 deletion(-)\n\n"
    for sha, who, when, title, body, path, n in (
        ("7c1f0e9a4b2d6e8f0a1c3b5d7e9f1a2b3c4d5e6f", "Ngozi Adeyemi <ngozi@example.org>",
         "Fri Mar 7 16:20:11 2025 +0000", "Client: longer default timeout",
         "Set the default request timeout to 45 seconds for slow mirrors.",
         "src/client.py", 3),
        ("3a9e2d7c5b1f4e8a0c6d2b9f7e1a3c5d7b9e0f2a", "Hamish Lowther <hamish@example.org>",
         "Tue Mar 4 09:02:45 2025 +0000", "Tidy the retry loop",
         "No behaviour change; the retry count stays at 5.", "src/retry.py", 4),
        ("e5b8c1d4a7f0e3b6c9d2a5f8e1b4c7d0a3f6e9b2", "Ngozi Adeyemi <ngozi@example.org>",
         "Mon Mar 3 11:40:02 2025 +0000", "Client: first cut of timeouts",
         "Set the default connect timeout to 10 seconds.", "src/client.py", 6),
    ))

CALENDAR = "BEGIN:VCALENDAR\nVERSION:2.0\nX-WR-CALNAME:St Bride's church hall\n" + "".join(
    f"BEGIN:VEVENT\nUID:{uid}@stbrides.example.org\nDTSTART:{start}\nSUMMARY:{summary}\n"
    f"ORGANIZER;CN={who}:mailto:{mail}@example.org\nDESCRIPTION:{description}\n"
    "STATUS:CONFIRMED\nEND:VEVENT\n"
    for uid, start, summary, who, mail, description in (
        ("a1", "20250308T090000", "Scout group jumble sale", "Dev Raman", "scouts",
         "Caretaker on duty: Rhona Blake. Tables from the store."),
        ("a2", "20250308T190000", "Ceilidh for the food bank", "Aoife Byrne", "foodbank",
         "Caretaker on duty: Gareth Pugh. Judging the cake stall: Nia Roberts."),
        ("a3", "20250309T140000", "Parish council surgery", "Lena Ortiz", "council",
         "Side room only. No fee."),
    )) + "END:VCALENDAR\n"

CUES = "".join(f"{i}\n00:00:{i * 5:02d},000 --> 00:00:{i * 5 + 4:02d},500\n{text}\n\n"
               for i, text in enumerate((
                   "[ANNA] Morning. Two things for the east yard today.",
                   "Forklifts keep to the painted lane,\nno exceptions.",
                   "The eye-wash station has moved next to door 6.",
                   "Questions to me or to Joe.",
               ), start=1))

JOBS = ("MAILTO=ops@example.org\n\n"
        "# Rotate the nginx logs, keep a week.\n"
        "15 1 * * * /usr/local/bin/rotate --keep 7 /var/log/nginx\n"
        "# Push the night's exports to the archive box.\n"
        "40 2 * * * /usr/local/bin/push_exports --to archive-02:/srv/exports\n"
        "# Refresh the search index.\n"
        "5 3 * * * /usr/local/bin/reindex --full\n")


def test_a_lines_shape_is_its_first_token_with_values_made_generic():
    assert shape("RES|2|NM|HBA1C") == "RES|"
    assert shape("commit 7c1f0e9a4b2d6e8f0a1c3b5d7e9f1a2b3c4d5e6f") == "commit h"
    assert shape("BEGIN:VEVENT") == "BEGIN:VEVENT"
    assert shape("12") == shape("3") == "9"
    assert shape("   ") == ""


def test_pipe_messages_are_blocks_whose_patient_segment_is_a_header_line():
    found = blocks(LAB)
    assert len(found) == 3
    second = header_text(LAB, found[1])
    # Segments once in every message are its header; results and remarks are its body.
    assert "KOWALSKI^PIOTR" in second and "REQ|" in second
    assert "RES|" not in second and "CMT|" not in second
    at = LAB.index("9.1")
    assert block_at(LAB, at) == found[1]
    assert LAB[found[1].start:found[1].end].endswith("Repeat advised.")


def test_commits_events_cues_and_commented_jobs_are_blocks():
    commits = blocks(COMMITS)
    assert len(commits) == 3
    assert "Author: Hamish Lowther" in header_text(COMMITS, commits[1])
    assert "retry count" not in header_text(COMMITS, commits[1])
    # A calendar's events end at their closing line; the calendar's own lines are none.
    events = blocks(CALENDAR)
    assert len(events) == 3 and "SUMMARY:Ceilidh for the food bank" in header_text(
        CALENDAR, events[1])
    assert CALENDAR[events[1].start:events[1].end].endswith("END:VEVENT")
    assert not any(b.start <= CALENDAR.index("X-WR-CALNAME") < b.end for b in events)
    assert len(blocks(CUES)) == 4
    # A comment right above a job introduces it: it belongs to the job's block.
    jobs = blocks(JOBS)
    second = next(b for b in jobs if "push_exports" in JOBS[b.start:b.end])
    assert JOBS[second.start:second.end].startswith("# Push the night's exports")


@pytest.mark.parametrize("text", [
    # A CSV table: its rows are records of their own.
    "id,site,status\n" + "".join(f"{i},Leeds {i},open\n" for i in range(8)),
    # One log line per entry: each is followed by its like.
    "".join(f"2025-03-0{i} 10:00:0{i} ERROR [mailer] retry {i}\n" for i in range(1, 8)),
    # A settings file repeats its keys in every section: a key is never a marker.
    "".join(f"[db.{n}]\nhost = {n}.example.org\nport = 54{i}2\n\n"
            for i, n in enumerate(("main", "replica", "audit"))),
    # Prose.
    "The hall opens at nine. The caretaker locks up at ten.\n\nThe bar closes at eleven.\n",
])
def test_tables_logs_settings_and_prose_are_not_blocks(text):
    assert blocks(text) == ()


def test_a_block_header_is_the_heading_of_its_body_and_the_title_stays_above_it():
    policy = ("HARBOUR SAILING CLUB\n\n"
              "1. MEMBERSHIP\n1.1 Full members may vote.\n1.2 Cadets may not vote.\n\n"
              "2. MOORINGS\n2.1 A mooring costs 340 pounds a season.\n2.2 Fees are due in"
              " March.\n\n3. SAFETY\n3.1 Buoyancy aids are worn afloat.\n")
    over = [h for h in headings(policy) if h[0] <= policy.index("340")][-1]
    assert "HARBOUR SAILING CLUB" in over[2] and "2. MOORINGS" in over[2]
    at = LAB.index("RES|1|NM|GLU^Glucose^LOC||9.1")
    scopes = scopes_for(LAB, at, at + 40)
    assert "KOWALSKI" in scopes[0][1] and "FERREIRA" not in scopes[0][1]


def test_under_a_header_the_line_that_says_what_is_asked_answers_not_the_remark():
    start = LAB.rindex("HDR|", 0, LAB.index("KOWALSKI"))
    end = LAB.index("HDR|", start + 1)
    units = split_units([LAB[start:end]], [scopes_for(LAB, start, end)])
    best = best_units("glucose result for piotr kowalski?", units, 3)
    assert best and "9.1" in best[0][1].text
    # "Repeat advised." is under the same header but says nothing asked.
    assert all("Repeat advised" not in u.text for _, u in best)


@pytest.fixture
def rt(tmp_path, monkeypatch):
    return small_runtime(tmp_path, monkeypatch)


@pytest.mark.parametrize(("text", "question", "holds", "not_holds", "header"), [
    (LAB, "What was Piotr Kowalski's glucose?", "9.1", "6.4", "KOWALSKI^PIOTR"),
    (LAB, "What was Ines Ferreira's HbA1c?", "51", "6.4", "FERREIRA^INES"),
    (COMMITS, "What did Hamish Lowther leave the retry count at?", "5", "45",
     "Hamish Lowther"),
    (CALENDAR, "Who is the caretaker for the food bank ceilidh?", "Gareth Pugh",
     "Rhona Blake", "SUMMARY:Ceilidh for the food bank"),
    # Not the one field of the event that holds a name (its organiser's).
    (CALENDAR, "who is judging the food bank ceilidh's cake stall", "Nia Roberts",
     "Aoife Byrne", "SUMMARY:Ceilidh for the food bank"),
])
async def test_a_value_in_a_blocks_body_answers_for_what_its_header_names(
        rt, text, question, holds, not_holds, header):
    sid = load(rt, FILLER, text)
    result, _ = await ask(rt, sid, question, "search", knows_nothing)
    assert holds in result.answer and not_holds not in result.answer
    assert result.grounded
    cited = [verify_citation(rt.store, sid, c) for c in result.citations]
    assert all(c["valid"] for c in cited)
    assert any(header in c["text"] for c in cited)  # the header is cited with the line


@pytest.mark.parametrize(("text", "question"), [
    (LAB, "What was Chidi Abara's glucose?"),  # his message has no glucose line
    (CALENDAR, "Who is the caretaker for the parish council surgery?"),
])
async def test_a_value_under_another_blocks_header_is_not_found(rt, text, question):
    sid = load(rt, FILLER, text)
    result, _ = await ask(rt, sid, question, "search", knows_nothing)
    assert result.answer == NOT_FOUND and result.grounded is False

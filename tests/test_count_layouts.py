"""Counting over layouts whose records span lines or carry their fields by position: calendar
and card components (`BEGIN:VEVENT` ... `END:VEVENT`, `NAME;PARAM=x:value`), pipe segments
(`OBX|1|...|A|`), crontab jobs (commented out or not) and subtitle cues. Files are written
here in other wordings than any benchmark's; no model is asked."""

from __future__ import annotations

import random

import pytest
from strategy_support import ask, load_named, no_model, small_runtime

from rlm_recursive.agent.counting.draft import count_draft
from rlm_recursive.agent.routing import route
from rlm_recursive.corpus.contentlines import component_records, content_fields
from rlm_recursive.corpus.crontab import crontab_records
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.segments import segment_fields
from rlm_recursive.corpus.tally import tally

_ROOMS = ("Treatment Room 2", "Gym", "Hydro pool")
_STATES = ("CONFIRMED", "CONFIRMED", "CANCELLED", "TENTATIVE")


def _fold(line: str) -> str:
    """RFC 5545 folding: 75 characters, continued on lines that begin with a space."""
    parts = [line[:75]] + [" " + line[i:i + 74] for i in range(75, len(line), 74)]
    return "\r\n".join(parts)


def _calendar(seed: int, n: int = 24) -> tuple[str, list[dict[str, str]]]:
    rng = random.Random(seed)
    events = [{"room": rng.choice(_ROOMS), "status": rng.choice(_STATES),
               "alarm": rng.random() < 0.5, "who": rng.choice(["Ines Maalouf", "Tom Reddy"])}
              for _ in range(n)]
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Riverside Physio//Diary 2//EN"]
    for i, e in enumerate(events):
        lines += ["BEGIN:VEVENT", f"UID:appt-{i}@riverside.example",
                  f"DTSTART:202612{1 + i % 28:02d}T0900{i % 6}0Z",
                  f"SUMMARY:Session {i}",
                  f"LOCATION:{e['room']}\\, Riverside Health Centre\\, Leeds",
                  f"ATTENDEE;ROLE=REQ-PARTICIPANT;CN={e['who']}:mailto:desk@riverside.example",
                  _fold("DESCRIPTION:" + "Bring loose clothing and your exercise sheet; "
                        "arrive ten minutes early so the desk can check you in. " * 2),
                  f"STATUS:{e['status']}"]
        if e["alarm"]:  # a nested component: part of its event, not an event of its own
            lines += ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder",
                      "TRIGGER:-PT30M", "END:VALARM"]
        lines.append("END:VEVENT")
    lines.append("END:VCALENDAR")
    return "\r\n".join(lines) + "\r\n", events


def _lab_feed(seed: int, n: int = 12) -> tuple[str, list[tuple[str, list[str]]]]:
    rng = random.Random(seed)
    patients = ["BRANNIGAN^THEO^J", "OYELARAN^FUNMI", "BRANNIGAN^ROSA"]
    messages = []
    out = []
    for i in range(n):
        who = rng.choice(patients)
        flags = [rng.choice(["N", "N", "A", "HH", "LL"]) for _ in range(rng.randint(2, 5))]
        messages.append((who, flags))
        out += [f"MSH|^~\\&|LIS|NORTHLAB|EPR|GEN|2026120{i % 9}0800||ORU^R01|M{9000 + i}|P|2.5",
                f"PID|1||{7000 + i}^^^GEN^MR||{who}||19800101|U"]
        out += [f"OBX|{k + 1}|NM|GLU^Glucose^L||{5 + k}|mmol/L|3.9-7.8|{flag}|||F"
                for k, flag in enumerate(flags)]
    return "\r".join(out) + "\r", messages


_CRONTAB = """\
# root crontab on build-07 (mirror of /etc/cron.d kept for the change board)
# min hour dom mon dow  command
MAILTO=builds@example.org
SHELL=/bin/sh

# Rotate the artefact cache. Owner: 3 people on the build rota.
15 2 * * *   /usr/local/bin/cache-rotate --keep 7
# Nightly image build
0 1 * * 1-5  /usr/local/bin/build-images --all
# Paused while the registry moves (ticket OPS-88):
# 30 3 * * *  /usr/local/bin/registry-gc --dry-run
@reboot      /usr/local/bin/warm-cache
#@weekly     /usr/local/bin/full-reindex
*/10 * * * * /usr/local/bin/heartbeat
"""

_TALK = """\
1
00:00:01,000 --> 00:00:04,500
[CHAIR] Welcome to the town hall. Any questions, hold them to the end.

2
00:00:05,000 --> 00:00:31,783
[CHAIR] First the budget, then the library hours.

3
00:00:32,000 --> 00:00:40,000
Questions first, then the vote. Three items tonight.

4
00:00:41,000 --> 00:00:48,000
[AUDIENCE] Why are the library hours shorter on Saturdays?

5
00:00:49,000 --> 00:00:55,000
[CHAIR] Staffing. We are recruiting two assistants.

6
00:00:56,000 --> 00:01:03,000
[AUDIENCE] Will the car park stay free after six?

7
00:01:04,000 --> 00:01:09,000
[AUDIENCE] (inaudible)

8
00:01:10,000 --> 00:01:15,000
[CHAIR] That is all for tonight. Thank you.
"""

_NOTES = ("Match results and notices, week 48\n\nResults are posted on Mondays. "
          "The cup draw is on Friday.\n\nTwo pitches are closed for reseeding.\n")


@pytest.fixture
def corpus() -> tuple[dict[str, str], list[dict[str, str]], list]:
    calendar, events = _calendar(5)
    feed, messages = _lab_feed(5)
    files = {"riverside_physio_diary.ics": calendar, "northlab_results_feed.hl7": feed,
             "build07_root_crontab.txt": _CRONTAB, "town_hall_captions.srt": _TALK,
             "league_results_notices.txt": _NOTES}
    return files, events, messages


def _layout(files: dict[str, str]):
    return read_layout(list(files.items()), {name: name for name in files})


def _count(question: str, files: dict[str, str]) -> tuple[str, int]:
    layout = _layout(files)
    draft = count_draft(question, layout)
    _, total = tally(layout, draft.plan)
    return route(question, layout)[0], total


def test_content_lines_unfold_and_name_parameters() -> None:
    text, events = _calendar(1, 6)
    records = component_records(text)
    assert records is not None and len(records) == 6  # VALARMs stay inside their events
    fields = records[0][2]
    assert fields["LOCATION"] == f"{events[0]['room']}, Riverside Health Centre, Leeds"
    assert fields["ATTENDEE.CN"] == events[0]["who"]
    assert fields["DESCRIPTION"].count("exercise sheet") == 2  # the folded lines rejoined
    assert content_fields("Tea at four: bring cake") is None
    assert component_records("BEGIN:NOTE\nTEXT:one\nEND:NOTE\n") is None  # one is no list


def test_segments_are_numbered_by_position() -> None:
    fields = segment_fields("OBX|2|NM|K^Potassium^L||6.1|mmol/L|3.5-5.3|H|||F")
    assert fields is not None and fields["OBX-8"] == "H" and fields["OBX-5"] == "6.1"
    header = segment_fields("MSH|^~\\&|LIS|NORTHLAB")
    assert header is not None and header["MSH-2"] == "^~\\&"  # field 1 is the separator
    assert segment_fields("Total | 12 | 14") is None


def test_crontab_jobs_commented_out_are_still_jobs() -> None:
    records = crontab_records(_CRONTAB)
    assert records is not None
    states = [fields["state"] for _, _, fields in records]
    assert states.count("commented out") == 2 and states.count("active") == 4
    # A job's record holds the comment above it (what it is for).
    first = _CRONTAB[records[0][0]:records[0][1]]
    assert first.startswith("# Rotate the artefact cache") and "cache-rotate" in first
    assert crontab_records("Meeting at 10 30 on 1 2 3\nnotes only\n") is None


def test_calendar_events_are_counted_by_their_fields(corpus) -> None:
    files, events, _ = corpus
    cancelled = sum(e["status"] == "CANCELLED" for e in events)
    tentative = sum(e["status"] == "TENTATIVE" for e in events)
    gym = sum(e["room"] == "Gym" for e in events)
    assert _count("how many physio appointments were cancelled", files) == ("count", cancelled)
    assert _count("How many bookings in the physio diary are still tentative?",
                  files) == ("count", tentative)
    # The events never say "appointment": the counted noun names the unit, not a condition.
    assert _count("How many appointments in the physio diary are in the Gym?",
                  files) == ("count", gym)


def test_a_code_in_parentheses_is_the_value_its_words_gloss(corpus) -> None:
    files, _, messages = corpus
    abnormal = sum(flags.count("A") for _, flags in messages)
    assert _count("How many separate glucose readings are marked abnormal (A)?",
                  files) == ("count", abnormal)
    disabled = ("count", 2)
    assert _count("how many jobs in the build07 crontab are switched off (commented out)",
                  files) == disabled
    assert _count("How many cron jobs are disabled in the root crontab?", files) == disabled


def test_a_title_word_that_names_the_wrong_document_is_let_go(corpus) -> None:
    files, _, messages = corpus
    theo = sum(who == "BRANNIGAN^THEO^J" for who, _ in messages)
    # "results" is in the league notices' name, but only the lab feed names Theo Brannigan:
    # one PID segment per message.
    assert _count("how many result messages did the lab send for Theo Brannigan",
                  files) == ("count", theo)


def test_speaker_cues_and_timestamps_before_a_noun(corpus) -> None:
    files, _, _ = corpus
    # "31,783" ends a timestamp; "Questions first" on the next line states no count.
    assert _count("how many questions came from the audience during the town hall",
                  files) == ("count", 3)


def test_words_never_together_in_one_record_are_a_judgement(corpus) -> None:
    files, _, _ = corpus
    layout = _layout(files)
    assert route("How many town hall captions are about car park charges?", layout)[0] == (
        "classify")


async def test_the_count_strategy_answers_without_the_model(tmp_path, monkeypatch,
                                                            corpus) -> None:
    files, events, _ = corpus
    rt = small_runtime(tmp_path, monkeypatch)
    sid = load_named(rt, files)
    result, _ = await ask(rt, sid, "how many physio appointments were cancelled", "auto",
                          no_model)
    cancelled = sum(e["status"] == "CANCELLED" for e in events)
    assert result.strategy == "count" and result.answer.startswith(f"{cancelled} ")


def test_a_number_stated_in_prose_or_a_duration_is_looked_up(corpus) -> None:
    files, _, _ = corpus
    notes = {"reserve_notes.txt": "Spring survey. The warden counted 312\nnesting terns on "
             "the spit, up on last year.\n\nThe hide reopens in May.\n"}
    assert route("How many nesting terns did the warden count?", _layout(notes))[0] == "search"
    # A rate is no count of anything ("12.50 per question").
    priced = {"quiz.txt": "Quiz night\n\nEntry costs 12.50 per question sheet.\n\n" + "\n\n".join(
        f"Question {i}: name the capital of country {i}." for i in range(1, 8))}
    assert route("How many questions did the quiz master ask?", _layout(priced))[0] != "search"
    assert route("How many pump hours has the standby generator logged?",
                 _layout(files))[0] == "search"


def _cash_book(seed: int) -> tuple[str, int]:
    rng = random.Random(seed)
    shops = ["HARBOUR STORES", "QUAYSIDE FUELS", "PENROSE PHARMACY"]
    lines = ["PENROSE ROWING CLUB - CASH BOOK, MARCH", "", "DAY  REF   PAYEE"
             "                  SPENT     RECEIVED", "-" * 60]
    harbour = 0
    for day in range(1, 21):
        shop = rng.choice(shops)
        harbour += shop == "HARBOUR STORES"
        lines.append(f"{day:02d}   C{100 + day}  {shop:<22}{rng.randint(5, 90):>6}.00")
    lines += ["-" * 60, "", "Checked by the treasurer. Receipts are in the red folder."]
    return "\n".join(lines) + "\n", harbour


def test_rows_of_a_plain_text_table_are_counted_one_by_one() -> None:
    book, harbour = _cash_book(3)
    fixtures = ("Fixtures, week 12\n" + "-" * 30 + "\n"
                "Penrose A   2 - 1   Truro B      [Quay Field]\n"
                "Falmouth    P - P   Penrose B    [Dell Road]\n"
                "    POSTPONED - frozen pitch.\n"
                "Truro A     0 - 0   Helston      [Truro Rec]\n"
                "Helston B   P - P   Penrose A    [Helston Park]\n"
                "    POSTPONED - no referee.\n")
    files = {"cash_book_march.txt": book, "fixtures_week12.txt": fixtures}
    assert _count("How many payments went to Harbour Stores?", files) == ("count", harbour)
    assert _count("how many fixtures were postponed", files) == ("count", 2)
    # "in the Penrose history" of a corpus that is that one history names it, no condition.
    alone = {"penrose_history.txt": fixtures}
    assert _count("How many fixtures in the Penrose history were postponed?", alone) == (
        "count", 2)
    # Prose typed with two spaces after a full stop is no table.
    prose = {"memo.txt": "The boat shed opens at six.  Bring keys.  Lock up after.\n"
             "Oars go on the rack.  Blades up.  Check the gate.\n"
             "Life jackets dry in the loft.  Count them.  Report gaps.\n\n"
             "Second notice.  The slipway is closed.  Use the pontoon.\n"
             "Ask the bosun.  She has the rota.  Sign it.\n"}
    assert len(_layout(prose).records) == 2  # two paragraphs, not five rows


def _passbook(seed: int) -> tuple[str, int]:
    rng = random.Random(seed)
    rows, wanted = [], 0
    for i in range(30):
        month = rng.choice(["MAR", "APR"])
        kind = rng.choice(["SO", "CP", "CP"])
        wanted += (month, kind) == ("APR", "SO")
        rows.append(f"{1 + i % 28:02d}{month}  {kind}   PAYEE NUMBER {i:<10}  "
                    f"{rng.randint(3, 99):>5}.00  {rng.randint(100, 999):>6}.00")
    text = ("KESTREL MUTUAL - PASSBOOK\n\nDATE   TYPE  DETAILS              OUT     BALANCE\n"
            + "-" * 50 + "\n" + "\n".join(rows) + "\n" + "-" * 50 + "\n\n"
            "Key:  SO Standing Order   CP Card Payment\n")
    return text, wanted


def test_a_month_and_a_code_the_document_defines() -> None:
    book, wanted = _passbook(4)
    files = {"kestrel_passbook.txt": book}
    assert _count("How many standing orders went out in April?", files) == ("count", wanted)
    # A month no record's date falls in is no condition the text can meet.
    layout = _layout(files)
    assert count_draft("How many standing orders went out in June?", layout).unknown


def _history(seed: int) -> tuple[str, list[tuple[str, bool]]]:
    """A `git log --stat` of a small project: header, indented message, changed files."""
    rng = random.Random(seed)
    people = [("Aino Lehto", "aino@fjord.example"), ("Kofi Mensah", "kofi@fjord.example")]
    commits, out = [], []
    for i in range(9):
        name, mail = rng.choice(people)
        fix = rng.random() < 0.4
        subject = f"Fix crash when the tide table {i} is empty" if fix else f"Add export {i}"
        commits.append((name, fix))
        out += [f"commit {rng.getrandbits(160):040x}", f"Author: {name} <{mail}>",
                f"Date:   Mon Oct {i + 1} 10:0{i}:00 2026 +0200", "", f"    {subject}", "",
                f"    Details of change {i}, reviewed on the list.", "",
                f" src/fjord/mod{i}.py | {i + 2} +{'+' * i}-",
                " 1 file changed, 3 insertions(+), 1 deletion(-)", ""]
    return "\n".join(out), commits


def test_a_commit_is_one_record_with_its_message_and_stat() -> None:
    log, commits = _history(2)
    files = {"fjord_history.txt": log}
    layout = _layout(files)
    assert len(layout.records) == len(commits)
    assert {r.fields["Author"].split(" <")[0] for r in layout.records} == {c[0] for c in commits}
    kofi = sum(name == "Kofi Mensah" for name, _ in commits)
    assert _count("how many commits did Kofi Mensah make", files) == ("count", kofi)
    fixes = sum(fix for _, fix in commits)
    assert _count("How many commits in the fjord history fix a crash?", files) == (
        "count", fixes)

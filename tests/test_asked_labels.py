"""A labelled value answers only what its label says (fake provider; real SQLite, tantivy
and parsers). A `key: value` line, a record's column or a letter's aligned `Label:  value`
line holds a real value of the cited text, so the value check passes; when the label is
not the thing asked ("MAX_POOL_SIZE" for the max retries, the "Desk" cell for a card PIN,
"Applicant" for a closing date), the answer is "not found", never an exit-0 quote."""

from __future__ import annotations

import re

import pytest
from strategy_support import ask, load

from rlm_recursive.agent.answers.clauses import labelled_as_asked
from rlm_recursive.agent.grounding import NOT_FOUND
from rlm_recursive.corpus.asked import asked_label, label_says, qualifiers
from rlm_recursive.corpus.units import stems
from rlm_recursive.providers.fake import reply

FILLER = "".join(f"Entry {i}: the reading room was quiet and the heating stayed on.\n\n"
                 for i in range(50))
COMPOSE = ("# orchard-sync stack, staging host\n"
           "services:\n"
           "  sync:\n"
           "    image: orchard/sync:2.3.1\n"
           "    environment:\n"
           "      MAX_POOL_SIZE: \"16\"\n"
           "      QUEUE_NAME: \"orchard-jobs\"\n"
           "      POLL_SECONDS: \"30\"\n"
           "      LOG_FORMAT: \"json\"\n"
           "    labels:\n"
           "      cost_centre: \"CC-0912\"\n"
           "      owner: \"data-platform\"\n")
WORKERS = ("Worker: orchard-sync\nMax pool size: 16\nPoll interval: 30 s\n"
           "Queue: orchard-jobs\n\n"
           "Worker: orchard-report\nMax pool size: 4\nPoll interval: 300 s\n"
           "Queue: orchard-reports\n")
LOANS = ('"Member";"Title";"Due";"Desk";"Reason";"Outcome"\n'
         '"Arlo Finch";"The Salt Path";"02/03/2026";"Desk 2";"Card check";'
         '"Done"\n'
         '"Bea Lomax";"Wolf Hall";"04/03/2026";"Desk 5";"Renewal";"Renewed to April"\n'
         '"Cyril Dunn";"Middlemarch";"09/03/2026";"Desk 2";"Return";"Fine waived"\n')
LETTER = ("Harrowgate Borough Council - Planning Services\n\n"
          "Application no:      HB/26/0417\n"
          "Applicant:           Millbrook Homes Ltd (agent: Ms Tara Quinn)\n"
          "Site:                Land east of Millbrook Lane\n"
          "Proposal:            14 dwellings with access road\n\n"
          "Dear neighbour,\n\nYou are invited to comment on the application above. "
          "Comments may be made in writing or online.\n")


def _first_line(request):
    """A small model's habit: the first line it was shown, whatever was asked."""
    body = request.messages[-1].content
    match = re.search(r"\[Excerpt 1\]\n(.*)", body)
    return reply(match.group(1) if match else "NOT FOUND")


@pytest.fixture
def small_rt(tmp_path, monkeypatch):
    from strategy_support import small_runtime
    return small_runtime(tmp_path, monkeypatch, num_ctx=8192)


@pytest.mark.parametrize(("doc", "question", "wrong"), [
    (COMPOSE, "max retries the sync service may attempt", "16"),
    (WORKERS, "max retries for the orchard-sync worker", "16"),
    (LOANS, "what was Arlo Finch's card PIN", "Desk 2"),
    (LETTER, "Closing date for objections to the Millbrook Lane application?", "Millbrook Homes"),
])
async def test_a_value_under_another_label_is_not_found(small_rt, doc, question, wrong):
    sid = load(small_rt, FILLER, doc)
    result, _ = await ask(small_rt, sid, question, "search", _first_line)
    assert wrong not in result.answer
    assert result.answer == NOT_FOUND and result.grounded is False


@pytest.mark.parametrize(("doc", "question", "right"), [
    (COMPOSE, "what's the cost centre of the orchard sync service", "CC-0912"),
    (LOANS, "Which desk did Bea Lomax borrow Wolf Hall from?", "Desk 5"),
    (LETTER, "What is the proposal in application HB/26/0417?", "14 dwellings"),
])
async def test_a_value_under_the_asked_label_is_answered(small_rt, doc, question, right):
    sid = load(small_rt, FILLER, doc)
    result, _ = await ask(small_rt, sid, question, "search", _first_line)
    assert right in result.answer and result.grounded


@pytest.mark.parametrize(("question", "label"), [
    ("max replicas the api can scale to", ("replica",)),
    ("What's the microchip number of Pepper?", ("microchip",)),
    ("which mobile carrier was blocking the codes", ("carrier", "mobil")),
    ("what was Mochi's blood glucose result", ("glucos",)),
    ("Deadline to appeal the rating?", ("deadlin",)),
    ("Who signed the letter?", ()),
    ("When does the lease end?", ()),
    ("What number should I ring?", ()),
    ("Who is the duty steward at the plant fair?", ("steward", "duti")),
    ("who supplies the chairs", ()),
    ("orchard: which port does the replica listen on?", ("port",)),
])
def test_the_asked_label_is_the_head_of_the_asked_noun_phrase(question, label):
    assert asked_label(question) == label


def test_a_label_says_the_asked_thing_in_its_own_spelling():
    question = "max replicas the api can scale to"
    assert label_says(question, "maxReplicas: 20")
    assert not label_says(question, "MAX_BATCH_SIZE: 800")
    # A phone number's shape says "phone", whatever its key.
    assert label_says("What is Ida's phone number?", "Tel: 01632 960 455")
    assert not label_says("What is Ida's phone extension?", "Room: Consult 1")


def test_the_cell_holding_the_value_must_be_the_asked_column():
    fields = {"Member": "Arlo Finch", "Desk": "Desk 2", "Fine": "0.00"}
    assert not labelled_as_asked("What is Arlo Finch's card PIN?", "Desk 2", "", fields)
    assert labelled_as_asked("Which desk is Arlo Finch's loan at?", "Desk 2", "", fields)
    # Prose is not checked here; nor is a question that names no thing.
    assert labelled_as_asked("What is the card PIN?", "It is 4471", "It is 4471")
    assert labelled_as_asked("Who has Wolf Hall?", "Member: Bea Lomax", "Member: Bea Lomax")



def test_words_after_a_value_do_not_label_it():
    # "(kennel only)" qualifies the rate; it does not make 31.50 the kennel asked for.
    line = "Rate    : EUR 31.50 per day (kennel only)"
    assert not labelled_as_asked("which kennel was rex in", "EUR 31.50", line)
    assert labelled_as_asked("what daily rate is charged for rex", "EUR 31.50", line)
    # The word right after a count is its noun ("12 cars").
    assert labelled_as_asked("how many cars fit on the boat", "Capacity: 12 cars",
                             "Capacity: 12 cars on deck")


def test_a_cell_holding_columns_of_its_own_is_labelled_by_its_inner_label():
    # "Card No : 5520   Kennel : K7" read as one field: K7's label is Kennel, not Card No.
    fields = {"Card No": "5520          Kennel : K7", "Dog": "REX (collie)"}
    assert labelled_as_asked("which kennel was rex in", "Kennel: K7", "", fields)
    assert not labelled_as_asked("which kennel was rex in", "5520", "", fields)

async def test_a_quote_the_reask_brings_back_is_held_to_the_asked_label_too(small_rt):
    sid = load(small_rt, FILLER, WORKERS)
    result, fake = await ask(small_rt, sid, "max retries for the orchard-sync worker",
                             "search", lambda request: reply("Max pool size: 16"))
    assert len(fake.requests) == 2  # the answer, then grounding's re-ask
    assert result.answer == NOT_FOUND and result.grounded is False


RELEASES = ("# Changes\n\n## 3.2.0\n\n### Security\n- The avatar upload handler let a crafted "
            "name escape the uploads folder. Fixed; tracked as SEC-2025-0117.\n"
            "- Session cookies now set SameSite=Lax.\n\n## 3.1.4\n\n### Fixed\n"
            "- The export button ignored the date filter.\n")


def test_a_code_kind_the_question_asks_for_is_not_an_entity_it_names():
    from rlm_recursive.corpus.evidence import entities

    # "SEC" says which kind of code is asked; the text writes it inside the code itself.
    assert entities("SEC id for the avatar upload escape?") == []
    assert entities("What ERR code did the Halden backup fail with?") == ["halden"]
    # A code the question names as its subject stays one.
    assert "po-7" in entities("Which carrier moves PO-7?")


async def test_a_code_asked_for_by_its_prefix_is_found(small_rt):
    sid = load(small_rt, FILLER, RELEASES)
    result, _ = await ask(small_rt, sid, "SEC id for the avatar upload escape?", "search",
                          _first_line)
    assert "SEC-2025-0117" in result.answer and result.grounded


FAIR = ("EVENT: Spring plant fair\nVENUE: Mill Street church hall\nOPENS: 10:00\n"
        "Duty steward: Gareth Pryce\n")
CONFIG = ('[database.primary]\npassword_env = "ORCHARD_DB_PASSWORD"\nhost = "db.orchard"\n'
          'port = 5432\n\n[database.replica]\npassword_env = "ORCHARD_DB_PASSWORD"\n'
          'host = "db-r.orchard"\nport = 6543\n')


@pytest.mark.parametrize(("doc", "question", "wrong", "right"), [
    (FAIR, "Who is the duty steward at the plant fair?", ["Spring plant fair"], "Gareth Pryce"),
    (CONFIG, "orchard: which port does the replica listen on?",
     ["ORCHARD_DB_PASSWORD", "5432"], "6543"),
])
async def test_a_quoted_line_under_another_label_never_answers_a_role_or_topic_question(
        small_rt, doc, question, wrong, right):
    # The small model quotes the first line; a who-question naming a role, or a question put
    # under a topic ("orchard: ..."), still needs the line's label to say what is asked, and
    # the replica's port is not the primary's (siblings in the text).
    sid = load(small_rt, FILLER, doc)
    result, _ = await ask(small_rt, sid, question, "search", _first_line)
    assert not any(w in result.answer for w in wrong)
    assert result.grounded is False or right in result.answer


def test_a_superlative_the_text_marks_must_be_said_by_the_answer() -> None:
    question = "What handicap applied to the oldest golfer in the medal round?"
    marked = frozenset(stems("Walter Price 81 oldest golfer; fastest round Amy Lo"))
    assert qualifiers(question, marked) == {"oldest"}
    # A text that marks no one as the oldest leaves the word to paraphrase.
    assert qualifiers(question, frozenset(stems("Walter Price age 81 handicap 18"))) == set()

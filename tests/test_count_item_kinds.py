"""The items a judging question means, read from the corpus's structure: a recurring label's
lines, the lines under a recurring heading, a group of records named by its opening word, a
titled table's rows; and which of them the model need judge."""

from __future__ import annotations

import re

import pytest
from strategy_support import ask, load_named, small_runtime, tool_name

from rlm_recursive.agent.counting.item_kinds import gist, items_to_ask, named_kind
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.providers.base import ChatRequest
from rlm_recursive.providers.fake import tool_reply

APPRAISALS = """Northgate Depot - staff appraisals, spring round

==================================================
STAFF: Joan Pike            Grade: B2
Reviews
 Safety: Wears her hi-vis every shift and reports near misses.
 Timekeeping: Clocked in after her shift started on six mornings.
 Manager: Joan is dependable and the drivers trust her completely.

==================================================
STAFF: Omar Haddad          Grade: B1
Reviews
 Safety: Left the forklift keys in the cab twice this quarter.
 Manager: Omar needs to follow the loading plan; two late dispatches this month.

==================================================
STAFF: Lena Kowal           Grade: B2
Reviews
 Timekeeping: Always on the floor before her shift starts.
 Manager: A cheerful, careful worker who trains new starters well.
 Safety: Spotted the cracked pallet racking and had bay 4 closed.

==================================================
STAFF: Bram Oduya           Grade: A3
Reviews
 Safety: Completed the refresher course with full marks.
 Manager: Bram has been an excellent shift lead all season.
"""

SERVERS = """# edge proxy, box lon-3
worker_processes auto;

server {
    listen 80;
    server_name example.test;
    return 301 https://example.test$request_uri;
}

server {
    listen 443 ssl;
    server_name admin.example.test;
    auth_basic "Admins";
    auth_basic_user_file /etc/nginx/admins.htpasswd;
}

server {
    listen 443 ssl;
    server_name shop.example.test;
    location / { proxy_pass http://127.0.0.1:8080; }
}

server {
    listen 8443 ssl;
    server_name metrics.example.test;
    allow 192.0.2.0/24;
    deny all;
}
"""

INCIDENTS = """WESTFIELD LEISURE CENTRE - SITE LOG 2026

POOL CLOSURES
Date        Hours  Reason
----------  -----  ------------------------------------
03/02/2026  2      Heavy snow, staff could not get in
17/03/2026  1      Lifeguard off sick, no cover
09/05/2026  3      Storm damaged the roof vents
22/07/2026  1      Chlorine level too high after dosing

CAFE DELIVERIES
Date        Crates Supplier
----------  -----  ------------------------------------
04/02/2026  12     Hollins Dairy
18/03/2026  8      Baker Street Bread
"""


def _layout(docs: dict[str, str]):
    return read_layout(list(docs.items()), {name: name for name in docs})


def test_a_label_the_question_names_picks_its_lines():
    docs = {"appraisals.txt": APPRAISALS}
    question = "how many staff got a manager remark that is entirely favourable"
    kind = named_kind(question, _layout(docs), list(docs.items()))
    assert kind is not None and kind.name == "Manager"
    assert [r.text.split(":")[0] for r in kind.items] == ["Manager"] * 4


def test_a_recurring_heading_names_every_line_under_it():
    docs = {"appraisals.txt": APPRAISALS}
    question = "how many of the reviews complain about being late for a shift"
    kind = named_kind(question, _layout(docs), list(docs.items()))
    assert kind is not None and kind.name == "reviews" and len(kind.items) == 10
    asked = items_to_ask(question, kind)
    assert asked is not None
    flagged = [r.text for r, a in zip(kind.items, asked, strict=True) if a]
    # Only lines that say "late" or "shift" are put to the model; the rest cannot complain
    # about being late for a shift.
    assert flagged and all(re.search(r"\b(late|shift)", t, re.IGNORECASE) for t in flagged)
    assert any("six mornings" in t for t in flagged)


def test_a_label_that_only_repeats_the_counted_noun_is_not_what_is_judged():
    docs = {"appraisals.txt": APPRAISALS}
    kind = named_kind("how many staff had a safety note about a vehicle or a forklift",
                      _layout(docs), list(docs.items()))
    assert kind is not None and kind.name == "Safety"


@pytest.mark.parametrize(("docs", "question", "name", "size"), [
    # Records opening with one word are the items of the document named; "a password" is
    # said by no block literally, so every block is judged.
    ({"nginx-sites.conf": SERVERS, "notes.txt": "Nothing here.\n"},
     "how many servers are limited to some addresses or ask for a password", "server", 4),
    # A table is named by its title; "staff" is said by one row only: no sign the rows name
    # the cause that way, so all are asked.
    ({"site_log.txt": INCIDENTS},
     "how many pool closures were caused by the weather or by staffing", "POOL CLOSURES", 4),
    # A negated condition: the line that says nothing may be the one that counts.
    ({"appraisals.txt": APPRAISALS},
     "how many manager comments raise no concern about lateness", "Manager", 4),
])
def test_kinds_whose_every_item_is_asked(docs, question, name, size):
    kind = named_kind(question, _layout(docs), list(docs.items()))
    assert kind is not None and kind.name == name and len(kind.items) == size
    assert items_to_ask(question, kind) is None


def test_a_question_naming_no_kind_leaves_the_records():
    docs = {"appraisals.txt": APPRAISALS}
    assert named_kind("how many cats have fleas", _layout(docs), list(docs.items())) is None


def test_the_gist_of_a_long_block_shows_the_lines_of_the_condition_first():
    block = "\n".join(["server {", *[f"    directive_{i} value;" for i in range(20)],
                       "    allow 192.0.2.0/24;", "}"])
    shown = gist(block, {"allow"}, 120)
    assert shown.splitlines()[:2] == ["server {", "allow 192.0.2.0/24;"]


def _judge_by(pattern: str):
    """A 'model' labelling 'yes' each item it is shown that `pattern` finds."""
    def judge(request: ChatRequest):
        assert tool_name(request) == "rlm_item_labels"
        listing = request.messages[-1].content.split("Items:\n", 1)[1]
        return tool_reply("rlm_item_labels", {
            line.split(". ", 1)[0]: "yes" if re.search(pattern, line) else "no"
            for line in listing.splitlines()})
    return judge


async def _classify(tmp_path, monkeypatch, question: str, pattern: str):
    """The answer, and every item line the model was shown."""
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load_named(runtime, {"appraisals.txt": APPRAISALS})
        result, fake = await ask(runtime, sid, question, "classify", _judge_by(pattern))
    finally:
        runtime.close()
    return result, [line for r in fake.requests
                    for line in r.messages[-1].content.split("Items:\n", 1)[1].splitlines()]


async def test_classify_judges_the_named_lines_only(tmp_path, monkeypatch):
    result, shown = await _classify(
        tmp_path, monkeypatch, "how many staff got a manager remark that is entirely favourable",
        r"^\d+\. Manager: (?!.*(needs|late))")
    assert result.answer.split()[0] == "3"
    assert len(shown) == 4 and all("Manager:" in line for line in shown)


async def test_classify_says_no_without_asking_for_lines_without_the_words(tmp_path,
                                                                         monkeypatch):
    result, shown = await _classify(
        tmp_path, monkeypatch, "how many of the reviews complain about being late for a shift",
        r"after her shift|late")
    assert 0 < len(shown) < 10
    assert result.answer.split()[0] == "2"
    assert "'no' without asking" in result.answer

"""Items that span more than one line: the blocks under a heading that names them, questions
taken with their answers, a labelled line with its wrapped continuation, and a schedule's
rows in the one document the question names."""

from __future__ import annotations

from rlm_recursive.agent.counting.block_kinds import section_blocks
from rlm_recursive.agent.counting.item_kinds import items_to_ask, named_kind, question_kind
from rlm_recursive.corpus.records import read_layout

LISTING = """FERNHILL CAMPSITE  >  Pitches  >  Hardstanding with hook-up
Pitch H4 · Sleeps 6 · From £32.00 a night

ABOUT THIS PITCH
Level gravel pitch beside the beck, 16A hook-up, water point 20 m away.

GUEST REVIEWS (4)                                   Sort: newest first

*****  "Lovely spot"  - Ingrid, 02 Sep 2026
  Quiet, level and the showers were spotless. Warden was very helpful.

**     "Noisy at night"  - Callum, 28 Aug 2026
  Lorries on the bypass all night and the beck floods the lower pitches after rain.

****   "Good base for walks"  - the Pereiras, 21 Aug 2026
  Easy walk to the fells. The shop ran out of milk twice, which was annoying.

*      "Shower block a disgrace"  - Tamsin, 14 Aug 2026
  Cold showers three mornings out of four and the drains smelt. Not going back.

SIMILAR PITCHES
H5 · H6 · G2
"""

FAQ = """Boiler service plan - your questions

Q: Is the annual service included?
A: Yes. One service a year, booked by us in your renewal month.

Q: Can I add a second boiler to the plan?
A: No. Each boiler needs its own plan.

Q: Are radiators covered if they leak?
A: No, radiators and pipework outside the boiler casing are not covered,
   except where a leak was caused by our engineer.

Q: Do you charge a call-out fee?
A: Not on weekdays. A £40 fee applies to weekend call-outs.
"""

ROTA = """BRAMLEY ROAD ALLOTMENTS - WORK PARTY ROTA, SPRING 2027
Convenor: Hazel Ng    Tools are in the blue container (code from Hazel).
Parking on the verge only; please do not block the gate for the tractor.

 DATE        AREA          LEAD   NOTES
 ----------  ------------  -----  ----------------------------------
 Sat 9 Jan   Orchard       HN     Winter pruning. Bring secateurs
                                  and gloves if you have them.
 Sat 23 Jan  Paths         RB     Wood chip on the main path.
 Sat 6 Feb   Pond          HN     Clear the duckweed; waders supplied.
 Sat 20 Feb  Hedge         RB     Laying the east hedge. Bring a
                                  billhook if you own one.
 Sat 6 Mar   Shed          TK     Paint the shed; brushes supplied.
"""


def _layout(docs: dict[str, str]):
    return read_layout(list(docs.items()), {name: name for name in docs})


def test_the_blocks_under_a_heading_that_names_them_are_the_items():
    docs = {"pitch_H4.txt": LISTING}
    question = "how many reviews complain about the showers"
    kind = named_kind(question, _layout(docs), list(docs.items()))
    assert kind is not None and kind.name == "GUEST REVIEWS (4)"
    # Each review is its heading line and text, not the listing's other parts.
    assert [item.text.split('"')[1] for item in kind.items] == [
        "Lovely spot", "Noisy at night", "Good base for walks", "Shower block a disgrace"]
    asked = items_to_ask(question, kind)
    assert asked == [True, False, False, True]  # only the reviews saying "shower(s)"


def test_a_heading_is_not_the_items_of_a_question_that_counts_something_else():
    # "ABOUT THIS PITCH" holds one block; the listing's title is no kind of review.
    headings = [heading for heading, _ in section_blocks("pitch_H4.txt", LISTING)]
    assert headings == ["GUEST REVIEWS (4)"]
    docs = {"pitch_H4.txt": LISTING}
    assert named_kind("how many pitches sleep six", _layout(docs), list(docs.items())) is None


def test_questions_are_judged_with_their_answers():
    docs = {"boiler_faq.txt": FAQ}
    kind = named_kind("how many of the questions are answered with a plain no",
                      _layout(docs), list(docs.items()))
    assert kind is not None and kind.name == "Q" and len(kind.items) == 4
    # The answer, and its wrapped second line, go with the question.
    assert kind.items[1].text.endswith("Each boiler needs its own plan.")
    assert kind.items[2].text.endswith("except where a leak was caused by our engineer.")


def test_the_rows_of_the_one_schedule_named_are_its_items():
    docs = {"allotment_rota.txt": ROTA, "notes.txt": "Nothing about work parties here.\n"}
    layout = _layout(docs)
    question = "how many allotment work parties ask people to bring their own tools"
    kind = question_kind(question, layout, list(docs.items()))
    assert kind is not None and len(kind.items) == 5
    # A row's wrapped notes are part of it.
    assert "and gloves if you have them." in kind.items[0].text
    assert items_to_ask(question, kind) == [True, False, False, True, False]

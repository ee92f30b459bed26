"""Label lists and indented item lists (fake provider; real SQLite and tantivy): a value is
the value of its own line's label, never glued to the next line; a line whose label names
another kind of the thing asked (a junior swim for an adult one) is no answer; an item list
under a titled entry is not cut into headings, and its first item says no more than the
others."""

from __future__ import annotations

import pytest
from strategy_support import ask, load

from rlm_recursive.agent.grounding import NOT_FOUND
from rlm_recursive.corpus.evidence import split_units
from rlm_recursive.corpus.leaders import label_fits, leader_label
from rlm_recursive.corpus.sections import headings
from rlm_recursive.providers.fake import reply

FILLER = "".join(f"Note {i}: the car park is resurfaced in stages over the summer months.\n\n"
                 for i in range(40))
PRICES = ("Harbourside Leisure Pool\n\n"
          "PRICES FROM APRIL\n"
          "  Junior swim (under 16) ............ 2.10\n"
          "  Adult swim, off-peak .............. 3.85\n"
          "  Adult monthly membership .......... 31.00\n"
          "  Sauna add-on  1.50 per visit\n"
          "  Lockers take a 20p coin, returned when you open them.\n")
BAKES = ("VILLAGE SHOW BAKES\n\n"
         "--------------------------------------------------------------------\n"
         "4. SEED LOAF                                  (Wilf Ashby)\n"
         "Makes 2\n\n"
         "  650 g strong wholemeal flour, sifted twice\n"
         "  45 g mixed seeds\n"
         "  12 g dried yeast\n\n"
         "Knead for ten minutes and prove in a warm place for an hour.\n\n"
         "--------------------------------------------------------------------\n"
         "5. OAT BISCUITS                               (Mary Cole)\n"
         "Makes 30\n\n"
         "  250 g rolled oats, toasted in the oven\n"
         "  90 g golden syrup\n\n"
         "Bake at 170 for a quarter of an hour.\n\n"
         "--------------------------------------------------------------------\n"
         "6. GINGER CAKE                                (Nell Fry)\n"
         "Makes 1\n\n"
         "  225 g self-raising flour, sifted well\n"
         "  2 tsp ground ginger\n\n"
         "Bake in a loaf tin for fifty minutes.\n")


def _first_line(request):
    """A small model's habit: it copies the first line it is shown."""
    prompt = request.messages[-1].content
    if "[Excerpt 1]" not in prompt:
        return reply("NOT FOUND")
    return reply(prompt.split("[Excerpt 1]\n", 1)[1].split("\n", 1)[0])


def test_a_label_line_is_its_own_unit_and_holds_its_own_value():
    texts = [u.text.strip() for u in split_units([PRICES])]
    assert "Adult swim, off-peak .............. 3.85" in texts
    assert "Sauna add-on  1.50 per visit" in texts
    assert not any("3.85" in t and "31.00" in t for t in texts)


def test_an_indented_item_list_stays_items_and_opens_no_section():
    texts = [u.text.strip() for u in split_units([BAKES])]
    assert "650 g strong wholemeal flour, sifted twice" in texts
    assert not any("flour" in t and "45 g" in t for t in texts)
    assert not any("650 g" in h[2] for h in headings(BAKES))


@pytest.mark.parametrize(("question", "line", "fits"), [
    ("how much is an adult monthly membership", "Adult monthly membership ..... 31.00", True),
    ("price of the Harbourside adult monthly pass", "Adult monthly membership .... 31.00", True),
    ("how much is a junior monthly membership", "Junior swim (under 16) ..... 2.10", False),
    ("how much is a junior monthly membership", "Adult monthly membership ... 31.00", False),
    ("when does the last bus leave Quay Street", "Quay Street        1712  1812", True),
    ("how much is a junior monthly membership", "Junior swim is 2.10 on weekdays.", True),
])
def test_a_label_names_the_kind_asked(question, line, fits):
    assert leader_label(line) is not None or "." in line
    assert label_fits(question, line) is fits


async def test_a_price_list_answers_from_the_asked_line_only(small_rt):
    sid = load(small_rt, FILLER + PRICES + FILLER)
    result, _ = await ask(small_rt, sid, "What does an adult monthly membership cost?",
                          "search", _first_line)
    assert "31.00" in result.answer and "3.85" not in result.answer and result.grounded
    # No line of the list names a junior monthly membership: the junior swim's price and
    # the adult membership's are other tickets' prices.
    result, _ = await ask(small_rt, sid, "how much is a junior monthly membership", "search",
                          _first_line)
    assert result.answer == NOT_FOUND and result.grounded is False


async def test_an_item_of_a_titled_entry_is_answered_from_its_own_line(small_rt):
    sid = load(small_rt, FILLER + BAKES + FILLER)
    result, _ = await ask(small_rt, sid, "how much wholemeal flour for Wilf's seed loaf",
                          "search", _first_line)
    assert "650 g" in result.answer and result.grounded
    assert "45 g" not in result.answer

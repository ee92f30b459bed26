"""A count of paragraphs is no count of the items they list: a condition report whose
sections list several items per paragraph ("Saddle ... Worn", "Chain ... Worn") is refused as
an exact count of items, not answered with the number of paragraphs that say the grade. One
item per paragraph stays an exact count. The documents are written here. No model call."""

from __future__ import annotations

from strategy_support import ask, load, never_asked, small_runtime

from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.tally import TallyPlan, split_mentions, tally

_REPORT = """HILLTOP CYCLE HIRE -- END OF SEASON CONDITION SURVEY
Grades: As new / Serviceable / Worn / Scrap.

BIKE H-01 (hybrid)
  Saddle        Black gel, Worn -- split seam at nose.
  Chain         KMC 8-speed, Worn -- 0.75 stretch.
  Tyres         Marathon 700x38, Serviceable.

BIKE H-02 (hybrid)
  Saddle        Black gel, Serviceable.
  Brake pads    Rim, Worn -- replace before hire.
  Bell          Missing.

BIKE M-07 (mountain)
  Fork          Coil, Serviceable.
  Grips         Lock-on, Worn.
"""

_ONE_EACH = """TRAIL LOG, WEEK 3

Gate at Coldharbour latch Worn, tied with cord.

Stile by the reservoir Serviceable.

Waymark post 14 Worn and leaning.

Footbridge decking Serviceable.
"""


def test_paragraphs_listing_several_items_are_counted_as_split() -> None:
    layout = read_layout([("survey.txt", _REPORT)], {"survey.txt": "survey.txt"})
    plan = TallyPlan(phrases=["worn"])
    _, paragraphs = tally(layout, plan)
    assert paragraphs == 4  # the legend and three bikes, but five parts are worn
    assert split_mentions(layout, plan) == 1  # H-01 says it on two lines


def test_one_item_per_paragraph_is_not_split() -> None:
    layout = read_layout([("trail.txt", _ONE_EACH)], {"trail.txt": "trail.txt"})
    plan = TallyPlan(phrases=["worn"])
    assert tally(layout, plan)[1] == 2
    assert split_mentions(layout, plan) == 0


async def test_the_count_strategy_refuses_a_count_of_paragraphs(tmp_path, monkeypatch) -> None:
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load(runtime, _REPORT)
        result, _ = await ask(runtime, sid, "How many parts in the survey are graded Worn?",
                              "count", never_asked)
        assert not result.answer.startswith("3")
        assert "— counted exactly" not in result.answer
        assert result.grounded is False
        sid = load(runtime, _ONE_EACH)
        result, _ = await ask(runtime, sid, "How many things in the trail log are Worn?",
                              "count", never_asked)
        assert result.answer.startswith("2 — counted exactly by code")
    finally:
        runtime.close()

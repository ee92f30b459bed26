"""Counting what a person did when the records sign with a handle: a header declares who is
who once ("Technician: Owen Hale (OH)", "RM (Rosa Mendes, trainee chef)") and the rows or
cards carry only the initials. The role or first name resolves to the handle; a role two
people share is no exact count. Documents are generated here; no model is asked."""

from __future__ import annotations

import random

import pytest
from strategy_support import assert_counted_by_code

from rlm_recursive.agent.counting.people import declared_people
from rlm_recursive.agent.routing import count_draft
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.tally import tally
from rlm_recursive.corpus.word_stems import stems


def _sample_register(seed: int) -> tuple[str, list[str]]:
    """A fixed-width lab register; the `Chk` column holds the checker's initials."""
    rng = random.Random(seed)
    lines = ["RIVERSIDE WATER LAB - SAMPLE REGISTER, spring run",
             "Lab manager: Priya Shah (PS). Technician: Owen Hale (OH).", "",
             "Ref     Site               Turbidity  Chk  Note",
             "------  -----------------  ---------  ---  ----------------"]
    checkers = []
    for i in range(40):
        who = rng.choice(["PS", "OH", "OH"])
        checkers.append(who)
        site = rng.choice(["Weir intake", "Mill pond outflow", "Hatchery tank 3"])
        lines.append(f"S-{500 + i:<4}  {site:<17}  {rng.randint(1, 90):>9}  {who:<3}  "
                     + rng.choice(["", "resampled", "cloudy"]))
    return "\n".join(lines) + "\n", checkers


def _delivery_cards(seed: int) -> tuple[str, list[str]]:
    """Kitchen delivery cards signed at the end of a line ("signed RM")."""
    rng = random.Random(seed)
    out = ["HILLTOP CANTEEN - GOODS IN, March",
           "Goods are signed for by GT (Gwen Tarrant, head chef) or RM (Rosa Mendes, trainee "
           "chef - checks countersigned by GT).", ""]
    signers = []
    for i in range(18):
        who = rng.choice(["GT", "RM"])
        signers.append(who)
        out += [f"DELIVERY {80 + i} | {rng.choice(['Mon', 'Wed', 'Fri'])} {i + 1:02d}/03",
                f"  Supplier: {rng.choice(['Dale Farm Dairy', 'Fenwick Veg', 'Norse Fish'])}",
                f"  Items: {rng.choice(['milk x12', 'carrots 10kg', 'cod 4kg'])}",
                f"  Temp ok {rng.randint(2, 5)}C | signed {who}", ""]
    return "\n".join(out), signers


def _count(docs: dict[str, str], question: str) -> tuple[int, list[str]]:
    layout = read_layout(list(docs.items()))
    draft = count_draft(question, layout)
    return tally(layout, draft.plan)[1], draft.unknown


def test_declared_people_read_both_orders():
    text, _ = _delivery_cards(1)
    register, _ = _sample_register(1)
    layout = read_layout([("d", text), ("r", register)])
    people = {p.handle: p for p in declared_people(layout.records, layout.titles.values())}
    assert people["RM"].name == ("rosa", "mendes")
    assert people["RM"].role == stems("trainee chef")  # not who countersigns
    assert people["OH"].name == ("owen", "hale")
    assert people["PS"].role  # "Lab manager"


@pytest.mark.parametrize("seed", [3, 11])
def test_role_and_first_name_count_the_handles_rows(seed):
    register, checkers = _sample_register(seed)
    docs = {"register.txt": register}
    assert _count(docs, "how many samples were checked by the technician")[0] == \
        checkers.count("OH")
    assert _count(docs, "how many samples were looked at by Priya")[0] == checkers.count("PS")


@pytest.mark.parametrize("seed", [5, 8])
def test_a_trainee_signing_by_initials_is_counted_on_the_cards(seed):
    cards, signers = _delivery_cards(seed)
    found, unknown = _count({"goods-in.txt": cards},
                            "how many deliveries were taken in by the trainee")
    assert not unknown
    assert found == signers.count("RM")  # not the staff line that names her role


def test_a_role_two_people_share_is_no_exact_count():
    cards, _ = _delivery_cards(2)
    shared = cards.replace("head chef", "chef").replace("trainee chef", "chef")
    _, unknown = _count({"goods-in.txt": shared}, "how many deliveries did the chef take")
    assert "chef" in unknown


async def test_counted_exactly_end_to_end(tmp_path, monkeypatch):
    register, checkers = _sample_register(21)
    await assert_counted_by_code(tmp_path, monkeypatch, {"register.txt": register},
                                 "how many samples were checked by Owen",
                                 checkers.count("OH"))


def test_a_name_some_cards_write_beside_handles_others_sign_is_no_exact_count():
    cards, _ = _delivery_cards(6)
    mixed = cards.replace("Temp ok", "Rosa unpacked it. Temp ok", 1)
    found, unknown = _count({"goods-in.txt": mixed}, "how many deliveries did Rosa take in")
    assert "rosa" in unknown, found

"""A reference hop: the passage the question describes gives a code that is defined
elsewhere in the same document (agent/references)."""

from __future__ import annotations

from strategy_support import over_layout

from rlm_recursive.agent.lookups.references import follow_reference

_HIRE = """\
RIVERSIDE BOAT HIRE - SEASON AGREEMENT 2027

**************************************************************
  BERTH SHEET 1                         SAILING DINGHY
**************************************************************
  Moored at: Pontoon B, Tarnmouth marina
  Hull: clinker, 14 ft, two sails, oars.

  Conditions on this berth sheet:  W2, W5
  Season fee: 640.00

**************************************************************
  BERTH SHEET 2                         MOTOR LAUNCH
**************************************************************
  Moored at: Slipway 4, Kelderby quay
  Hull: grp, 18 ft, outboard 20 hp.

  Conditions on this berth sheet:  W2, W9
  Season fee: 910.00

**************************************************************

  CONDITIONS (each applies only where a berth sheet lists it)

  W2  Life jackets. One approved life jacket per person aboard must be
      worn at all times on the water.

  W5  Tidal limit. The dinghy must be back on its mooring no later than
      2 hours after high water, or the hirer pays the recovery charge.

  W9  Fuel. The launch is handed over with a full tank and must be
      returned refuelled within 3 hours of the end of each hire.
"""

_ORDERS = """\
Checkout tests, spring release

Basket with a voucher
  Tagged: regression-311
  Given a basket of 2 x "TEA-TIN-04"
  And the shopper enters voucher "GARDEN-FRIEND"
  Then the delivery charge is "0.00"

Voucher table
  | voucher        | reduction | note             |
  |----------------|-----------|------------------|
  | GARDEN-FRIEND  | 12%       | members only     |
  | SUMMER-SUN     | 5%        | ends in August   |
  | STAFF-ONLY     | 25%       | staff accounts   |
"""


def _follow(tmp_path, monkeypatch, text, question):
    return over_layout(tmp_path, monkeypatch, text, question, follow_reference)


def test_a_code_listed_in_a_things_section_leads_to_its_definition(tmp_path, monkeypatch):
    chain = _follow(tmp_path, monkeypatch, _HIRE,
                    "How many hours after high water must the Tarnmouth dinghy be back?")
    assert chain is not None
    assert chain.bridges == ["W5"]
    assert "2 hours after high water" in chain.found.answer
    # The scope cited is the dinghy's own sheet, which names the place and lists the code.
    scope = chain.links[0]
    assert "Tarnmouth" in _HIRE[scope.start:scope.end]
    assert "W5" in _HIRE[scope.start:scope.end]


def test_the_other_sheets_code_is_not_followed(tmp_path, monkeypatch):
    # W9 is the launch's condition (Kelderby); the dinghy's sheet does not list it.
    chain = _follow(tmp_path, monkeypatch, _HIRE,
                    "Within how many hours must the Kelderby launch be returned refuelled?")
    assert chain is not None and chain.bridges == ["W9"]
    assert "3 hours" in chain.found.answer
    assert _follow(tmp_path / "b", monkeypatch, _HIRE,
                   "Within how many hours must the Tarnmouth dinghy be returned refuelled?"
                   ) is None


def test_a_quoted_code_leads_to_the_table_row_that_defines_it(tmp_path, monkeypatch):
    chain = _follow(tmp_path, monkeypatch, _ORDERS,
                    "what reduction does the voucher tagged regression-311 give")
    assert chain is not None
    assert chain.bridges == ["GARDEN-FRIEND"]
    assert "12%" in chain.found.answer and "5%" not in chain.found.answer


def test_a_line_that_names_someone_is_no_reference(tmp_path, monkeypatch):
    # A name beside the thing asked about is another thing: never a bridge here.
    text = ("Site office: Harbour Lane. Manager Petra Oyelaran.\n\n"
            "Staff phone list\nPetra Oyelaran - 07700 900 612\n")
    assert _follow(tmp_path, monkeypatch, text,
                   "What is the phone number of the Harbour Lane site office?") is None

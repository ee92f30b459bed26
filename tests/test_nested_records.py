"""Records in layouts whose fields nest or sit in columns: markup elements, level-numbered
lines, `@type{...}` and `[section]` entries, aligned tables under a rule (several in one
document), typed content lines. Each is read into records with named fields, and a question
naming one record's values gets its asked field; a record the question does not name, or a
field the record lacks, is no answer."""

from __future__ import annotations

import pytest

from rlm_recursive.corpus.entries import entry_records
from rlm_recursive.corpus.levels import level_records
from rlm_recursive.corpus.lookup import lookup
from rlm_recursive.corpus.markup import element_records
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.rows import ruled_rows

ORDERS = """<?xml version="1.0"?>
<!-- Kettlewell Seeds - web orders, week 31 -->
<ex:Orders xmlns:ex="urn:example:orders" shop="Kettlewell Seeds">
  <ex:Order id="W-3101" placed="2026-07-28">
    <Buyer><FullName>Oona Brack</FullName><Town>Settle</Town></Buyer>
    <Items><Item sku="TOM-GARD"><Qty>2</Qty></Item><Item sku="BEAN-RUN"><Qty>1</Qty></Item></Items>
    <Money><Subtotal>7.40</Subtotal><Postage>1.95</Postage><Paid>9.35</Paid></Money>
  </ex:Order>
  <ex:Order id="W-3102" placed="2026-07-29">
    <Buyer><FullName>Piet Alders</FullName><Town>Hawes</Town></Buyer>
    <Items><Item sku="LET-COS"><Qty>3</Qty></Item></Items>
    <Money><Subtotal>5.85</Subtotal><Postage>1.95</Postage><Paid>7.80</Paid></Money>
  </ex:Order>
  <ex:Refund id="R-77" against="W-3101"><Reason>seed packet torn</Reason></ex:Refund>
</ex:Orders>
"""

TREE = """0 HEAD
1 CHAR UTF-8
0 @P1@ INDI
1 NAME Agnes /Marlow/
1 BIRT
2 DATE 4 APR 1850
2 PLAC Kirkby Lonsdale
1 DEAT
2 DATE 9 JAN 1921
2 PLAC Sedbergh
1 NOTE Kept the village shop; known as "Aunt Nessie" to
2 CONC  the whole dale.
0 @P2@ INDI
1 NAME Walter /Marlow/
1 BIRT
2 DATE 1 MAY 1876
2 PLAC Sedbergh
1 EMIG
2 DATE 1899
0 @U1@ UNION
1 HUSB @P2@
1 CHIL @P1@
1 CHIL @P2@
0 TRLR
"""

REFS = r"""% reading list
@book{hale1998moss,
  author = {Hale, Iris and Pryor, Tom},
  title  = {Mosses of the {Northern} Fells},
  publisher = {Dalesman},
  year   = 1998,
  isbn   = "978-0-00-111111-2",
}
@report{fellwater2011,
  author      = {{Fellwater Trust}},
  title       = {Peat restoration \& carbon: a field guide},
  institution = {Fellwater Trust},
  number      = {FT-22},
  year        = {2011},
}
"""

SETTINGS = """; kiln controller dump
[kiln north]
controller = Orton Express
max_temp = 1260

[kiln south]
controller = Bartlett Genesis
max_temp = 1300
"""

SESSION = """== clubhouse database, pasted from the terminal ==
club=> select code, boat, berth, value_eur from boats;
 code |      boat       | berth | value_eur
------+-----------------+-------+-----------
 B-01 | Curlew          | P4    |   8200.00
 B-02 | Little Auk      | P7    |  11500.00
 B-03 | Curlew II       | P9    |   9400.00
(3 rows)

club=> select member, boat_code, since from crews;
  member   | boat_code |   since
-----------+-----------+------------
 Lena Voss | B-02      | 2021-04-11
 Arne Moe  | B-03      | 2019-06-30
(2 rows)
"""

REPORT = """Rota for the kiosk

Volunteer     Day        Phone
------------  ---------  -------------
Maud Ferris   Tuesday    01632 960 118
Ivo Stallard  Thursday   01632 960 203
"""

CARDS = """BEGIN:VCARD
VERSION:4.0
FN:Hester Quaile
TITLE:Secretary
TEL;TYPE=cell:07700 900 311
TEL;TYPE=home:01632 960 877
EMAIL;TYPE=work:secretary@fellsingers.example
END:VCARD
BEGIN:VCARD
VERSION:4.0
FN:Jonah Quaile
TITLE:Librarian
TEL;TYPE=cell:07700 900 312
EMAIL;TYPE=home:jq@mail.example
END:VCARD
"""


def test_markup_elements_are_records_with_paths_and_attributes():
    found = element_records(ORDERS)
    assert found is not None and len(found) == 3
    first = found[0][2]
    assert first["element"] == "Order" and first["id"] == "W-3101"
    assert first["Buyer.FullName"] == "Oona Brack" and first["Money.Paid"] == "9.35"
    assert first["Items.Item.sku"] == "TOM-GARD" and first["Items.Item.sku.2"] == "BEAN-RUN"
    assert ORDERS[found[0][0]:found[0][1]].startswith("<ex:Order id=\"W-3101\"")
    assert found[2][2]["element"] == "Refund" and found[2][2]["against"] == "W-3101"
    assert element_records("Plain text with a <b>bold</b> word.\nAnd more text.\n") is None


def test_level_numbered_lines_nest_their_tags():
    found = level_records(TREE)
    assert found is not None and [f["kind"] for _, _, f in found] == ["INDI", "INDI", "UNION"]
    agnes = found[0][2]
    assert agnes["id"] == "@P1@" and agnes["DEAT.DATE"] == "9 JAN 1921"
    assert agnes["BIRT.PLAC"] == "Kirkby Lonsdale"
    assert agnes["NOTE"].endswith("to the whole dale.")
    assert found[2][2]["CHIL"] == "@P1@" and found[2][2]["CHIL.2"] == "@P2@"
    assert TREE[found[0][0]:found[0][1]].startswith("0 @P1@ INDI")


def test_entries_read_braces_quotes_and_bare_values():
    found = entry_records(REFS)
    assert found is not None and len(found) == 2
    moss, peat = found[0][2], found[1][2]
    assert moss["kind"] == "book" and moss["id"] == "hale1998moss"
    assert moss["title"] == "Mosses of the Northern Fells" and moss["year"] == "1998"
    assert moss["isbn"] == "978-0-00-111111-2"
    assert peat["title"] == "Peat restoration & carbon: a field guide"
    assert peat["number"] == "FT-22"
    sections = entry_records(SETTINGS)
    assert sections is not None and sections[1][2] == {
        "kind": "kiln south", "controller": "Bartlett Genesis", "max_temp": "1300"}


def test_ruled_tables_each_keep_their_own_header():
    rows = ruled_rows(SESSION)
    assert [r[2].get("boat") for r in rows[:3]] == ["Curlew", "Little Auk", "Curlew II"]
    assert rows[3][2] == {"member": "Lena Voss", "boat_code": "B-02", "since": "2021-04-11"}
    assert len(rows) == 5
    fixed = ruled_rows(REPORT)
    assert fixed[1][2] == {"Volunteer": "Ivo Stallard", "Day": "Thursday",
                           "Phone": "01632 960 203"}


def _layout(*docs: tuple[str, str]):
    return read_layout([(name, text) for name, text in docs], {n: n for n, _ in docs})


ALL = (("orders.xml", ORDERS), ("tree.ged", TREE), ("refs.bib", REFS),
       ("club_db.txt", SESSION), ("choir.vcf", CARDS), ("kiosk.txt", REPORT))


@pytest.mark.parametrize(("question", "key", "value"), [
    ("What was paid on the order from Piet Alders?", "Money.Paid", "7.80"),
    ("what year did Agnes Marlow die", "DEAT.DATE", "9 JAN 1921"),
    ("where was Walter Marlow born?", "BIRT.PLAC", "Sedbergh"),
    ("isbn of Hale and Pryor's book on mosses", "isbn", "978-0-00-111111-2"),
    ("the Fellwater Trust report number for the peat guide", "number", "FT-22"),
    ("value of the boat Little Auk?", "value_eur", "11500.00"),
    ("When did Arne Moe join?", "since", "2019-06-30"),
    ("cell phone number for Hester Quaile", "TEL;TYPE=cell", "07700 900 311"),
    ("the singers' secretary's work email?", "EMAIL;TYPE=work", "secretary@fellsingers.example"),
    ("which day is Maud Ferris on the kiosk rota", "Day", "Tuesday"),
])
def test_a_question_naming_a_record_gets_its_asked_field(question, key, value):
    layout = _layout(*ALL)
    found = lookup(question, layout.records, layout.titles)
    assert found is not None, question
    record, field = found
    assert (field, record.fields[field]) == (key, value)


@pytest.mark.parametrize("question", [
    "what year did Walter Marlow die",  # he emigrated; no death recorded
    "when did Walter Marlow die (the one who emigrated)",
    "where was Agnes Marlow's mother born",  # not in Agnes's own record
    "value of the boat Curlew III?",  # a sibling's name with a word the question lacks
    "What was Oona Brack's postage on the Little Auk?",  # she never ordered it
    "home phone for Jonah Quaile",  # he has only a mobile
    "What is the VAT registration number of Kettlewell Seeds?",
])
def test_a_field_the_record_lacks_or_a_record_not_named_is_no_answer(question):
    layout = _layout(*ALL)
    found = lookup(question, layout.records, layout.titles)
    assert found is None or found[0].fields[found[1]] in ("",), (question, found)


def test_a_look_up_over_a_long_log_weighs_only_the_records_that_may_fit():
    lines = [f"ts=2026-03-0{i % 9 + 1} level=info user=u{i % 700} path=/shelf/{i} status=200"
             for i in range(20000)]
    lines[12345] = "ts=2026-03-04 level=warn user=marisol path=/shelf/cart status=409"
    layout = read_layout([("app.log", "\n".join(lines))], {"app.log": "app.log"})
    found = lookup("what status did marisol get", layout.records, layout.titles)
    assert found is not None and found[0].fields["status"] == "409"
    # Words every line says pick out no line: no answer, and no 20,000 lines stemmed.
    assert lookup("what status did the user get on the shelf path", layout.records,
                  layout.titles) is None

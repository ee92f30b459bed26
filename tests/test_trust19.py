"""Names as records write them: a title dropped ("Mrs"), a family by its plural ("the
Okafors" of "Mr & Mrs Okafor"), a noun abbreviated ("TKT 0881"); a register's entries read
across its page breaks; a timed diary entry's notes about whom it names; a bare date and time
line stamped on the line above it; "how old" asking the age."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rlm_recursive.agent.answers.kinds import fits_kind
from rlm_recursive.agent.answers.persons import names_person
from rlm_recursive.corpus.asked import asked_phrase
from rlm_recursive.corpus.blocks import blocks
from rlm_recursive.corpus.naming import entities, says
from rlm_recursive.corpus.records import read_layout
from rlm_recursive.corpus.sections import title
from rlm_recursive.corpus.unit_split import split_units
from tests.strategy_support import search_answer

REGISTER = """\
REGISTER OF BURIALS in the Parish of SAINT ALDHELM, NETHER COMBE, County of Dorset, book 3
Entries copied from the bound register by the churchwarden, 2025.

==============================================================================
Page 41
==============================================================================
No. 512   Name: Walter James GREAVES
          Abode: 2 Quarry Lane, Nether Combe
          Buried: 4th March 2025                  Age: 77
          Officiant: Revd Ann Tull

No. 513   Name: Phyllis Mary ORCHARD
          Abode: Combe House, Nether Combe
          Buried: 19th March 2025                 Age: 88
          Officiant: Revd Ann Tull

==============================================================================
Page 42
==============================================================================
No. 514   Name: Dennis BRAY
          Abode: 11 Mill Street, Upper Combe
          Buried: 2nd April 2025                  Age: 64
          Officiant: Mr Colin Sayer, Reader

No. 515   Name: Ivy Rose TAPPER
          Abode: The Almshouses, Nether Combe
          Buried: 30th April 2025                 Age: 101
          Officiant: Revd Ann Tull
"""


def test_page_numbers_open_no_record(tmp_path: Path):
    """A page break is where a printout broke, not an entry: each "No." entry is a record
    with its own age, not the first entry of the page."""
    found = blocks(REGISTER, keyed=True)
    assert len(found) == 4
    layout = read_layout([("d", REGISTER)])
    ages = {r.fields.get("Name"): r.fields.get("Age") for r in layout.records
            if "Name" in r.fields}
    assert ages["Phyllis Mary ORCHARD"] == "88" and ages["Ivy Rose TAPPER"] == "101"


def test_a_long_banner_first_line_is_the_title():
    assert title(REGISTER).startswith("REGISTER OF BURIALS in the Parish of SAINT ALDHELM")


@pytest.mark.parametrize(("question", "gold", "other"), [
    ("How old was Mrs Phyllis Orchard when she was buried at Saint Aldhelm's?", "88", "77"),
    ("How old was Mr Dennis Bray?", "64", "101"),
])
def test_how_old_reads_the_age_of_the_named_entry(tmp_path: Path, monkeypatch: Any,
                                                  question: str, gold: str, other: str):
    result = search_answer(tmp_path, monkeypatch, REGISTER, question)
    assert result.grounded and gold in result.answer and other not in result.answer


def test_a_person_the_register_does_not_hold_is_not_found(tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, REGISTER,
                           "How old was Mrs Edna Greaves when she was buried?")
    assert not result.grounded


def test_titles_name_no_one_and_how_old_asks_the_age():
    assert entities("How old was Mrs Phyllis Orchard?") == ["phyllis", "orchard"]
    assert entities("When did Dr. Patel call?") == ["patel"]
    assert asked_phrase("How old was Mr Dennis Bray?") == ["age"]
    assert asked_phrase("How tall is the mast?") == ["height"]


SERVICE = """\
BOILER SERVICE RECORDS - Halden Court

=========================================================
JOB 7781     Address: Flat 5, Halden Court
Occupier: Mr & Mrs Okafor     Visit: 03/02/2026  10:10
---------------------------------------------------------
Findings: Flue terminal too close to window. Appliance turned off,
  classed at risk.  Occupier signed notice no. RN-2231.
  Agent to arrange a new flue route.
=========================================================
JOB 7782     Address: Flat 6, Halden Court
Occupier: Ms T. Brandt     Visit: 03/02/2026  11:30
---------------------------------------------------------
Findings: All satisfactory. No notice issued.
=========================================================
JOB 7783     Address: Flat 7, Halden Court
Occupier: Mr L. Varga     Visit: 03/02/2026  13:00
---------------------------------------------------------
Findings: Pilot light unstable, thermocouple replaced.  Notice no. RN-2232
  left with the caretaker.
=========================================================
"""


def test_a_family_by_its_plural_and_a_notice_number(tmp_path: Path, monkeypatch: Any):
    """"the Okafors" are the "Mr & Mrs Okafor" of their job's header; "no." is no sentence's
    end; the header's "Occupier:" is a label, not another person."""
    result = search_answer(tmp_path, monkeypatch, SERVICE,
                           "notice no. given to the Okafors")
    assert result.grounded and "RN-2231" in result.answer and "RN-2232" not in result.answer


def test_no_dot_does_not_end_a_sentence():
    texts = [unit.text for unit in split_units(["Occupier signed notice no. RN-2231. Done."])]
    assert "Occupier signed notice no. RN-2231." in texts


RECEIPTS = """\
Till slips, scanned

BREAD WHITE 800G                  1.10
MILK 2L                           1.45
TOTAL                             2.55
CASH                              5.00
CHANGE                            2.45
TKT 0880  TILL 2  OP 117 DANA
03/02/26  09:12

COFFEE BEANS 1KG                 11.50
TOTAL                            11.50
CARD ****1188                    11.50
TKT 0881  TILL 2  OP 104 REG
03/02/26  14:05
"""


def test_a_bare_stamp_line_belongs_to_the_line_above(tmp_path: Path, monkeypatch: Any):
    """"TKT 0881" writes ticket 0881; the date and time on the next line, alone, are its."""
    result = search_answer(tmp_path, monkeypatch, RECEIPTS, "ticket 0881 time of sale")
    assert result.grounded and "14:05" in result.answer and "09:12" not in result.answer


def test_an_abbreviated_noun_says_its_number():
    assert says("tkt 0881 till 2", "ticket 0881")
    assert says("rm 4, east wing", "room 4")
    assert not says("ref 0881 till 2", "ticket 0881")  # another noun's number
    assert not says("tkt 0881 till 2", "ticket 881")


DAYBOOK = """\
HOLLOWAY SWEEPS - DAYBOOK

Tue 6 Oct
09:00  Mrs Gwen Price, Ash Cottage
       Open fire.  Swept.  Smoke test pass.  Cert S-2041.  £65 cash.
11:15  Mr Tom Rees, 4 Brook Row
       WB (Clearview 500).  Swept, bird nest out.  Cert S-2042.  £80 card.
"""


def test_a_timed_entrys_notes_are_about_whom_it_names(tmp_path: Path, monkeypatch: Any):
    result = search_answer(tmp_path, monkeypatch, DAYBOOK,
                           "Which certificate did the sweep give Tom Rees for his Clearview?")
    assert result.grounded and "S-2042" in result.answer and "S-2041" not in result.answer


LOST = """\
CITY TRAMS - LOST PROPERTY LOG            printed 02/03/26

Ref      Logged    Where found              Description              Status
-------- --------- ------------------------ ------------------------ -----------------------
LP-5501  01/03/26  Tram 4, rear car         Violin in hard case      STORED
LP-5502  01/03/26  Depot Road stop          Umbrella, green          STORED
LP-5503  02/03/26  Market Square platform   Hearing aid (right ear)  RETURNED via audiology
LP-5504  02/03/26  Tram 9, front car        Hearing aid case, empty  STORED
"""


@pytest.mark.parametrize(("question", "gold", "other"), [
    ("Where exactly was the violin in the hard case left?", "Tram 4, rear car", "Depot Road"),
    # Asked as a chain, by a relative clause: one record says it all.
    ("The hearing aid that was returned via audiology - where was it found?",
     "Market Square platform", "Tram 9"),
])
def test_where_reads_the_column_named_where(tmp_path: Path, monkeypatch: Any, question: str,
                                            gold: str, other: str):
    result = search_answer(tmp_path, monkeypatch, LOST, question, "auto")
    assert result.grounded and gold in result.answer and other not in result.answer


def test_a_label_or_a_number_mark_is_no_person():
    question = "Who officiated at the burial of the woman buried beside Dennis Bray?"
    assert not names_person(question, "No. 514   Name: Dennis BRAY")
    assert names_person(question, "Officiant: Mr Colin Sayer, Reader")


QUOTE = """\
BRIGHTWATER GLAZING LTD
                 WINDOW REPLACEMENT QUOTATION
Quote ref:   BW-7731              Issued:       02 Feb 2026
Estimator:   Pete Lowe            Valid until:  02 Apr 2026
Client:      Mr & Mrs Haddad
Site:        14 Orchard Rise, Dunmere
Fitting date:  Mon 16 Mar 2026 (2 days)

Item   Description                          Qty   Price
1      Casement window, white uPVC          4     £1,880.00
2      Back door, composite                 1     £1,240.00
"""


def test_until_what_date_reads_the_field_saying_until(tmp_path: Path, monkeypatch: Any):
    """"Valid until" is one of two pairs on its line; the client, on a line below it in the
    quote's front, is who the whole quote is for; "until" names the field, not "date"."""
    result = search_answer(tmp_path, monkeypatch, QUOTE,
                           "Until what date is the Haddads' window quotation valid?")
    assert result.grounded and "02 Apr 2026" in result.answer
    assert "16 Mar" not in result.answer


def test_when_asks_a_time_not_a_year_in_a_file_name():
    question = "When does the intranet site's TLS certificate expire?"
    assert not fits_kind(question, "SSLCertificateFile /etc/pki/tls/intranet-2027.pem")
    assert not fits_kind(question, "Issuer: Harbour CA")
    assert fits_kind(question, "notAfter=Jun  1 09:00:00 2027 GMT")
    assert fits_kind(question, "Renewed every 90 days")
    assert fits_kind("When is the next visit?", "The next visit is booked for 9 May.")


KENNELS = """\
HARBOUR KENNELS - BOARDING REGISTER (summer 2026)
Licensed by Dunmere Council under the 2018 Regulations - licence no. DC/AB/118, 20 kennels
Rates: £19/night one dog, £30/night two dogs sharing.

Kennel | Dog              | Owner          | In       | Out
1      | Bramble (collie) | Mrs J. Otter   | 01/07/26 | 08/07/26
2      | Pip (terrier)    | Mr K. Lund     | 02/07/26 | 04/07/26
"""


def test_a_titles_dash_opens_no_entry(tmp_path: Path, monkeypatch: Any):
    """The first line's "HARBOUR KENNELS - ..." is the title, not a labelled entry that the
    licence line below carries on."""
    result = search_answer(tmp_path, monkeypatch, KENNELS,
                           "What is Harbour Kennels' licence number?")
    assert result.grounded and "DC/AB/118" in result.answer and "20" not in result.answer


def test_an_address_or_the_questions_own_person_is_not_who():
    question = "Who signed for Mr Okonjo's delivery?"
    assert not names_person(question, "12 Weaver Mews")
    assert not names_person(question, "Recipient: Mr D. Okonjo, 12 Weaver Mews")
    assert names_person(question, "Received by: Lena Marsh (neighbour)")


PROPERTY = """\
Ref       Date      Where found          Description           Status   Notes
--------- --------- -------------------- --------------------- -------- --------------------------
LP-7101   04/05/26  Bus 12, top deck     Leather purse         STORED
LP-7102   04/05/26  Station toilets      Silver bracelet       POLICE   Police 05/05, ref 26/8812
LP-7103   05/05/26  Bus 3                Child's scooter       STORED
"""


def test_a_police_reference_is_not_the_items_own_ref(tmp_path: Path, monkeypatch: Any):
    """The notes say the police's reference; the Ref column is the office's own: it is not
    given for "police reference"."""
    result = search_answer(tmp_path, monkeypatch, PROPERTY,
                           "police reference number for the bracelet found in the toilets")
    assert "LP-7102" not in result.answer


PROGRAMME = """\
HARBOUR DATA DAY - PROGRAMME

ROOMS
  Main Hall ......... ground floor, seats 300
  Quay Room ......... first floor, seats 60
  Loft Room ......... second floor, seats 24 (workshops)

10:00  (W) Workshop: mapping with open data — Lena Varga — Loft Room

10:00  SESSION A  Sensors                         [Tom Beck] — Quay Room
       10:00  Cheap tide gauges that work — Sam Ode
       10:20  Drones over the estuary — Lena Varga
"""


def test_a_chain_asking_a_room_takes_the_room_over_the_talk(tmp_path: Path, monkeypatch: Any):
    """The talk's speaker also runs a workshop in another room: "the room where the drones
    talk is given" is its session's room, not the speaker's other one."""
    result = search_answer(tmp_path, monkeypatch, PROGRAMME, "how many seats are there in the "
                           "room where the drones over the estuary talk is given", "iterative")
    assert "24" not in result.answer
    assert result.grounded and "60" in result.answer

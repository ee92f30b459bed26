"""The labelled field of the one line a question names (`corpus.line_fields`), on logs and
sheets written for these tests: a print server's log (`key=value`), a boatyard's handover
sheet ("Label value" cells)."""

from __future__ import annotations

from strategy_support import ask, first_excerpt_line, load, small_runtime

from rlm_recursive.corpus.line_fields import anchors, line_field
from rlm_recursive.corpus.line_links import line_link

PRINT_LOG = """\
09:14:07 lpd[3321]: JQ88A1: user=<ana.vidal@printroom.invalid>, host=desk4, pages=14, copies=2
09:14:09 lpd[3321]: JQ88A1: printer=plotter-west, state=done, code=0.0.0 (finished)
09:20:51 lpd[3321]: JQ88B7: user=<tom.reyes@printroom.invalid>, host=desk9, pages=3, copies=1
09:20:58 lpd[3321]: JQ88B7: printer=laser-east, state=failed, code=4.1.7 (toner missing)
09:31:02 lpd[3321]: JQ88C2: user=<ana.vidal@printroom.invalid>, host=desk4, pages=40, copies=1
09:31:40 lpd[3321]: JQ88C2: printer=plotter-west, state=done, code=0.0.0 (finished)
"""

HANDOVER = """\
GULL POINT BOATYARD - VESSEL HANDOVER SHEET
Vessel: "Kittiwake II", 9.8 m motor cruiser
Owner:  Mrs Rhiannon Pask
Handover date: 14/04/2026

ENGINES
  Main       Hour meter 01742.6 h    Fuel gauge 3/4
  Auxiliary  Hour meter 01698.1 h    Fuel gauge 1/2

DECK GEAR
  Anchor     Delta 10 kg, 30 m chain: Good
  Fenders    x 6, Good
"""


def test_anchors_are_addresses_hosts_and_codes():
    assert anchors("pages sent by ana.vidal@printroom.invalid from desk4.printroom.invalid "
                   "in job JQ88A1?") == ["ana.vidal@printroom.invalid",
                                         "desk4.printroom.invalid", "JQ88A1"]


def test_the_line_an_address_and_a_code_name_gives_its_labelled_field():
    docs = [("print.log", PRINT_LOG)]
    # Two submit lines say the address: the job code tells them apart.
    found = line_field("How many pages did ana.vidal@printroom.invalid send in job JQ88C2?",
                       docs)
    assert found is not None and found.value == "40" and found.label == "pages"
    assert PRINT_LOG[found.start:found.end].count("JQ88C2") == 1


def test_a_dotted_code_is_read_whole_and_a_word_is_no_code():
    # "state" and "code" both say words of the question; "failed" is no code.
    found = line_field("Which state code did job JQ88B7 end with?", [("print.log", PRINT_LOG)])
    assert found is not None and found.value == "4.1.7"


def test_lines_that_disagree_give_nothing():
    # The address is on two submit lines, with 14 and 40 pages.
    assert line_field("How many pages did ana.vidal@printroom.invalid send?",
                      [("print.log", PRINT_LOG)]) is None


def test_an_anchor_said_by_no_line_gives_nothing():
    assert line_field("How many pages did li.wei@printroom.invalid send?",
                      [("print.log", PRINT_LOG)]) is None


def test_a_value_in_another_sentence_than_the_anchor_is_not_its_own():
    text = "Trip log: distance 41 km, climb 620 m. The R2 route went via the ridge; skip R2.\n"
    assert line_field("What was the climb on the R2 route?", [("trip.txt", text)]) is None


def test_without_an_anchor_the_line_saying_what_its_siblings_do_not_is_read():
    docs = [("handover.txt", HANDOVER)]
    found = line_field("What was the auxiliary hour meter at handover?", docs)
    assert found is not None and found.value.startswith("01698.1")
    # The owner's name the question gives is said by the sheet's title block, cited.
    found = line_field("What was the hour meter on the main engine of Mrs Pask's boat?", docs)
    assert found is not None and found.value.startswith("01742.6") and found.context


def test_a_name_no_line_nor_title_says_gives_nothing():
    assert line_field("What was the hour meter on Mr Orrin Vale's main engine?",
                      [("handover.txt", HANDOVER)]) is None


async def test_a_line_field_is_answered_and_grounded_by_search(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load(runtime, HANDOVER, PRINT_LOG)
        sheet, _ = await ask(runtime, sid, "What was the auxiliary hour meter at handover?",
                             "search", first_excerpt_line)
        log, _ = await ask(runtime, sid, "Which state code did job JQ88B7 end with?",
                           "search", first_excerpt_line)
    finally:
        runtime.close()
    assert sheet.grounded is not False and "01698.1" in sheet.answer, sheet.answer
    assert log.grounded is not False and "4.1.7" in log.answer, log.answer


GATEWAY_LOG = """\
10:02:11 gw smtpd[410]: Q7PX20KD: client=relay.harbourco.invalid[198.51.100.61]
10:02:11 gw qmgr[88]: Q7PX20KD: from=<l.moreau@harbourco.invalid>, size=80211, nrcpt=1
10:02:14 gw smtp[415]: Q7PX20KD: to=<desk@ferryline.invalid>, status=bounced (macro refused)
10:05:40 gw smtpd[410]: Q7PY31LM: client=relay.harbourco.invalid[198.51.100.61]
10:05:40 gw qmgr[88]: Q7PY31LM: from=<k.otieno@harbourco.invalid>, size=4410, nrcpt=1
10:05:43 gw smtp[415]: Q7PY31LM: to=<desk@ferryline.invalid>, status=bounced (mailbox full)
10:09:02 gw qmgr[88]: Q7PZ44NB: from=<k.otieno@harbourco.invalid>, size=3120, nrcpt=1
10:09:05 gw smtp[415]: Q7PZ44NB: to=<yard@ferryline.invalid>, status=sent (250 ok)
"""


def test_the_sender_is_read_from_the_line_sharing_the_described_line_id():
    found = line_link("Who sent the message that bounced because a macro was "
                      "refused?", [("gw.log", GATEWAY_LOG)])
    assert found is not None and found.value == "l.moreau@harbourco.invalid"
    assert found.bridge == "Q7PX20KD" and found.label == "from"
    assert "macro" in GATEWAY_LOG[found.described[0]:found.described[1]]


def test_a_description_two_lines_fit_equally_or_a_count_gives_no_sender():
    docs = [("gw.log", GATEWAY_LOG)]
    assert line_link("Who sent the message that bounced?", docs) is None  # two bounces
    assert line_link("How many recipients bounced because the mailbox was full?",
                     docs) is None


async def test_a_sender_through_a_shared_id_is_answered_by_iterative(tmp_path, monkeypatch):
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load(runtime, GATEWAY_LOG)
        result, _ = await ask(runtime, sid, "Who sent the message that bounced because a "
                              "macro was refused?", "iterative", first_excerpt_line)
    finally:
        runtime.close()
    assert result.grounded is not False and "l.moreau@harbourco.invalid" in result.answer, (
        result.answer)


def test_a_field_asked_of_another_entry_is_not_read_from_the_line_giving_one():
    """"the certificate number of the gas boiler's service": the sheet's own certificate
    line gives a certificate number, but the boiler's entry is elsewhere and says another."""
    sheet = ("RIVERBANK LETTINGS - SAFETY FILE\n\n"
             "Certificate number SF-2209\nIssued 02/03/2026\n\n"
             "Appliance            Engineer        Cert\n"
             "Gas boiler service   K. Amadi        GS-7781\n"
             "Hob check            K. Amadi        GS-7782\n")
    question = "What is the certificate number of the gas boiler service?"
    assert line_field(question, [("safety.txt", sheet)]) is None
    found = line_field("What is the certificate number?", [("safety.txt", sheet)])
    assert found is not None and found.value == "SF-2209"

"""The one value of the asked kind on the line a question's words pick, where no label
names it (`corpus.typed_values`): a build step's time, a package's version, a diff's new
limit, a fee beside its own verb, a due date. And the refusals that keep it honest: a value
labelled as something else, two values nothing tells apart, a weekday that does not match,
another paragraph's value for the thing the question names, an entity no line says. The
documents are written here; no model call."""

from __future__ import annotations

from strategy_support import ask, load_named, small_runtime

from rlm_recursive.corpus.typed_values import asked_kind, typed_value
from rlm_recursive.providers.fake import reply

_BUILD = """$ make release   (buildbot worker bw-7, job 5521)
== step timings ==
fetch-sources ......................... 12.40s
compile libtiff 4.6.0 ................. 181.02s
compile openjpeg 2.5.2 ................ 96.77s
link gallery-viewer ................... 8.15s

--- a/deploy/gallery.conf
+++ b/deploy/gallery.conf
-    max_upload_size 16m;
+    max_upload_size 64m;
"""

_CLINIC = """ORCHARD PHYSIO -- PATIENT ACCOUNT
Patient: Mr Idris Vaughan   Ref: OP-20931

03/02/2026 (Tue) Initial assessment, left knee. Quoted £240.00 for the block,
  charged £65.00 today. Exercises given.
  Review due 17/02/2026.

17/02/2026 (Tue) Review. Progressing. Block of four sessions booked.
"""

_FEES = """PARISH HALL HIRE -- FEES 2026

Main hall: evening hire fee £48 per session for residents of the parish,
£72 otherwise; deposit £100.

The committee room is not let for private parties.
"""


def _docs(**texts: str) -> list[tuple[str, str]]:
    return list(texts.items())


def test_the_kind_comes_from_the_wording() -> None:
    assert asked_kind("how long did the libtiff compile take")[0] == "duration"
    assert asked_kind("which openjpeg version was built")[0] == "version"
    assert asked_kind("what's the IPv6 address of the worker") is None
    assert asked_kind("how much does the spare battery weigh") is None


def test_a_steps_time_and_a_packages_version() -> None:
    docs = _docs(build=_BUILD)
    took = typed_value("How long did compiling libtiff take in the release build?", docs)
    assert took is not None and took.value == "181.02s"
    version = typed_value("openjpeg version compiled for the release", docs)
    assert version is not None and version.value == "2.5.2"
    assert typed_value("Which make version ran the release build?", docs) is None


def test_a_diffs_added_side_is_what_it_is_now() -> None:
    docs = _docs(build=_BUILD)
    now = typed_value("gallery.conf was changed: what upload size limit does it allow now?",
                      docs)
    assert now is not None and now.value == "64m"
    assert typed_value("what upload size limit is in gallery.conf?", docs) is None


def test_the_amount_beside_the_asked_verb_and_the_date_it_is_due() -> None:
    docs = _docs(clinic=_CLINIC)
    charged = typed_value("How much was Idris Vaughan actually charged at the initial "
                          "assessment in February, not the quote?", docs)
    assert charged is not None and charged.value == "£65.00"
    assert charged.above is not None  # the patient is named on the account's first lines
    due = typed_value("When is Idris Vaughan's knee review due?", docs)
    assert due is not None and due.value == "17/02/2026"
    assert typed_value("When is Idris Vaughan's knee review due on a Monday?", docs) is None
    assert typed_value("How much was Idris Vaughan charged in March?", docs) is None


def test_two_values_of_one_wrapped_sentence_are_refused() -> None:
    docs = _docs(fees=_FEES)
    assert typed_value("what's the evening hire fee for the main hall for a wedding party "
                       "from outside the parish?", docs) is None


async def test_the_search_strategy_answers_it_grounded(tmp_path, monkeypatch) -> None:
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load_named(runtime, {"build.log": _BUILD, "clinic.txt": _CLINIC})
        # The small model finds nothing; the runtime's copy of the line answers.
        result, _ = await ask(runtime, sid, "openjpeg version compiled for the release",
                              "search", lambda request: reply("Not found."))
        assert result.grounded is True, result.answer
        assert result.answer.endswith("2.5.2")
    finally:
        runtime.close()


def test_values_told_apart_by_the_words_after_them_are_refused() -> None:
    rules = ("7.1 Racking for private boats costs £180 per year for a single and £260 for a "
             "double.\n")
    assert typed_value("How much does a year's racking for a private double cost?",
                       _docs(rules=rules)) is None


def test_a_month_is_said_by_dates_all_in_it() -> None:
    from rlm_recursive.corpus.naming import says
    from rlm_recursive.corpus.units import normalise

    assert says(normalise("2026-10-16 23:03:58 install cmake"), "october")
    # A table of rows of several months does not say one of them: its dump is no answer.
    assert not says(normalise("D1 14/05/26 3 min 40 s\nD2 12/11/26 2 min 55 s"), "november")


def test_a_hosts_address_labelled_by_the_host_word() -> None:
    scrape = ('proxy_pool_up{pool="edge.kiln_lhr2",server="198.51.100.71"} 1\n'
              'proxy_pool_up{pool="edge.kiln_fra1",server="198.51.100.88"} 0\n'
              'proxy_pool_requests{pool="edge.kiln_lhr2",server="198.51.100.71"} 410\n')
    found = typed_value("Which IP address is the kiln_lhr2 pool?", [("m", scrape)])
    assert found is not None and found.value == "198.51.100.71" and found.label == "server"
    # Another kind's label still says another value: a gateway is no host asked.
    lan = "Printer kiln-office: gateway 198.51.100.1, dns 198.51.100.53\n"
    assert typed_value("IP address of printer kiln-office", [("n", lan)]) is None


_FLOCK = """\
FLOCK REGISTER - EWES AND TUPS        Holding: Black Gill, Dentdale

Tag            Name       Sex  Born        Breed  Notes
UK0712 00417   Meg        F    02/04/2022  SWX    good mother, twins twice
UK0712 00533   Hector     M    11/03/2021  TEX    tup, bought Hawes mart Sep 2024, 1,150 gns
UK0712 00602   Nell       F    28/03/2023  SWX    lame spring 2025
"""


async def test_a_price_in_a_rows_notes_cell_is_read_under_its_column(tmp_path, monkeypatch
                                                                   ) -> None:
    found = typed_value("What price was paid for the tup Hector at Hawes mart?",
                        [("f", _FLOCK)])
    assert found is not None and found.value == "1,150 gns" and found.label == "Notes"
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load_named(runtime, {"flock.txt": _FLOCK, "diary.txt": "Clipping in June.\n"})
    result, _ = await ask(runtime, sid, "What price was paid for the tup Hector at Hawes "
                          "mart?", "auto", lambda request: reply("Not found."))
    assert result.grounded and "1,150 gns" in result.answer, result.answer
    runtime.close()


_TRACKING = """\
Consignment: KX0091        Service: Standard
Recipient:   Ms P. Ng, 4 Mill Row, Ashby AB1 2CD
  02/03/2026 07:10  Ashby Depot        Out for delivery
  02/03/2026 14:05  Ashby              DELIVERED - signed NG

Consignment: KX0092        Service: Standard
Recipient:   Mr T. Roe, 9 Kiln Lane, Ashby AB1 3EF
  02/03/2026 07:12  Ashby Depot        Out for delivery
  02/03/2026 16:40  Ashby              DELIVERED - left in porch
"""


def test_the_clock_time_of_the_line_the_question_picks() -> None:
    found = typed_value("At what time was Ms Ng's parcel delivered?", [("t", _TRACKING)])
    assert found is not None and found.value == "14:05" and found.label == "time"
    # Two clock times on the line picked: which one is not known.
    both = "Ms Ng: out 07:10, delivered 14:05\nMr Roe: out 07:12, delivered 16:40\n"
    assert typed_value("At what time was Ms Ng's parcel delivered?", [("b", both)]) is None

"""A radio log in ADIF (`<CALL:6>PA3XYZ ... <EOR>`): its contacts as records named as the
specification names their fields, looked up by a call sign given as a keyword, and counted
by a field's value or by a yes/no flag the question says in its own words."""

from __future__ import annotations

from strategy_support import ask, load_named, small_runtime

from rlm_recursive.corpus.adif import adif_fields, adif_records
from rlm_recursive.providers.fake import reply

_CONTACTS = [
    ("PA3XYZ", "20260502", "14.0745", "FT8", "JO22", "Y", "Wim"),
    ("OH2BQ", "20260502", "7.0310", "CW", "KP20", "N", "Aki"),
    ("EA7KM", "20260503", "14.2050", "SSB", "IM76", "Y", "Lola"),
    ("VE3NQD", "20260504", "14.0745", "FT8", "FN03", "N", "Ray"),
    ("LZ1QAB", "20260504", "21.0740", "FT8", "KN22", "N", "Ivo"),
]


def _adif() -> str:
    lines = ["Log exported by a test logger for M7QQT", "<adif_ver:5>3.1.4 <eoh>", ""]
    for call, date, freq, mode, grid, qsl, name in _CONTACTS:
        lines.append(f"<call:{len(call)}>{call} <qso_date:8>{date} <freq:{len(freq)}>{freq} "
                     f"<mode:{len(mode)}>{mode}")
        lines.append(f"  <gridsquare:{len(grid)}>{grid} <name:{len(name)}>{name} "
                     f"<qsl_sent:1>{qsl} <eor>")
        lines.append("")
    return "\n".join(lines)


def test_each_contact_is_a_record_named_by_the_specification() -> None:
    text = _adif()
    records = adif_records(text)
    assert records is not None and len(records) == len(_CONTACTS)
    start, end, fields = records[1]
    assert fields["call sign"] == "OH2BQ" and fields["frequency"] == "7.0310"
    assert fields["grid square"] == "KP20" and fields["qsl sent"] == "N"
    assert text[start:end].startswith("<call:5>OH2BQ") and text[start:end].endswith("<eor>")
    assert adif_fields(text[start:end])["mode"] == "CW"
    assert adif_records("Call: OH2BQ\nFreq: 7.031\n") is None


async def test_a_contact_is_looked_up_by_its_call_sign(tmp_path, monkeypatch) -> None:
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load_named(runtime, {"m7qqt.adi": _adif(), "club.txt": "Club net Thursdays.\n"})
    result, _ = await ask(runtime, sid, "EA7KM frequency", "auto",
                          lambda request: reply("Not found."))
    assert result.grounded and "14.2050" in result.answer, result.answer
    grid, _ = await ask(runtime, sid, "What grid square is Ivo in, according to the log?",
                        "auto", lambda request: reply("Not found."))
    assert grid.grounded and "KN22" in grid.answer, grid.answer
    runtime.close()


async def test_contacts_are_counted_by_mode_and_by_a_flag(tmp_path, monkeypatch) -> None:
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load_named(runtime, {"m7qqt.adi": _adif(),
                               "club.txt": "Club net Thursdays.\n\nBring a flask.\n\nNo fees.\n"
                                           "\nParking at the back.\n\nThe radio society meets "
                                           "monthly.\n"})
    ft8, _ = await ask(runtime, sid, "How many FT8 contacts are in the M7QQT log?", "auto",
                       lambda request: reply("Not found."))
    assert ft8.answer.split()[0] == "3", ft8.answer
    # "ham radio" describes the log the file name names: no condition on its contacts.
    sent, _ = await ask(runtime, sid, "In the m7qqt ham radio log, for how many contacts has "
                        "a QSL been sent?", "auto", lambda request: reply("Not found."))
    assert sent.answer.split()[0] == "2" and sent.grounded, sent.answer
    unsent, _ = await ask(runtime, sid, "For how many contacts has a QSL not been sent?",
                          "count", lambda request: reply("Not found."))
    assert unsent.answer.split()[0] == "3", unsent.answer
    runtime.close()


async def test_a_contact_without_the_asked_field_gives_no_other(tmp_path, monkeypatch) -> None:
    # The other contacts write a NAME; this one does not: its country is no name.
    text = _adif() + "\n<call:5>F6ABC <qso_date:8>20260505 <mode:3>FT8 <country:6>France <eor>\n"
    runtime = small_runtime(tmp_path, monkeypatch)
    sid = load_named(runtime, {"m7qqt.adi": text, "club.txt": "Club net Thursdays.\n"})
    result, _ = await ask(runtime, sid, "What name did the operator of F6ABC give?", "auto",
                          lambda request: reply("Not found."))
    assert not result.grounded and "France" not in result.answer, result.answer
    named, _ = await ask(runtime, sid, "What name did the operator of OH2BQ give?", "auto",
                         lambda request: reply("Not found."))
    assert named.grounded and "Aki" in named.answer, named.answer
    runtime.close()

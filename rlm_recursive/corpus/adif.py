"""ADIF, the Amateur Data Interchange Format radio logging programs export: a free-text
header closed by `<EOH>`, then one record per contact, each field written
`<NAME:length>value` (the value is exactly `length` characters) and each record closed by
`<EOR>`, over as many lines as the program likes.

A record's fields are named as the ADIF specification names them, in words: `CALL` is the
call sign worked, `GRIDSQUARE` the grid square (locator), `QSL_SENT` whether a QSL card was
sent, `TX_PWR` the transmit power. The names are the specification's, not the text's, so
grounding asks `adif_fields` for them (as for other positional formats).
"""

from __future__ import annotations

import re

__all__ = ["adif_fields", "adif_records"]

_TAG = re.compile(r"<(?P<name>[A-Za-z][\w]*):(?P<length>\d{1,5})(?::[A-Za-z])?>")
_END_RECORD = re.compile(r"<eor>", re.IGNORECASE)
_END_HEADER = re.compile(r"<eoh>", re.IGNORECASE)
_MIN_RECORDS = 2
_NAMES = {"call": "call sign", "gridsquare": "grid square", "qso_date": "date",
          "time_on": "time on", "time_off": "time off", "freq": "frequency",
          "freq_rx": "receive frequency", "rst_sent": "rst sent", "rst_rcvd": "rst received",
          "tx_pwr": "transmit power", "qth": "qth location", "qsl_sent": "qsl sent",
          "qsl_rcvd": "qsl received", "station_callsign": "station call sign",
          "my_gridsquare": "my grid square", "dxcc": "dxcc entity", "cont": "continent",
          "cqz": "cq zone", "ituz": "itu zone", "srx": "serial received",
          "stx": "serial sent", "sat_name": "satellite name"}
"""ADIF's field names for which its specification's words differ from the tag."""


def _field_name(tag: str) -> str:
    lowered = tag.lower()
    return _NAMES.get(lowered, lowered.replace("_", " "))


def _fields(body: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for match in _TAG.finditer(body):
        value = body[match.end():match.end() + int(match["length"])].strip()
        if value:
            fields.setdefault(_field_name(match["name"]), value)
    return fields


def adif_records(text: str) -> list[tuple[int, int, dict[str, str]]] | None:
    """Each contact of an ADIF export as (start, end, fields), or None for another text."""
    header = _END_HEADER.search(text)
    start = header.end() if header else 0
    ends = list(_END_RECORD.finditer(text, start))
    if len(ends) < _MIN_RECORDS or not _TAG.search(text, start):
        return None
    out = []
    for end in ends:
        body = text[start:end.start()]
        lead = len(body) - len(body.lstrip())
        fields = _fields(body)
        if fields:
            out.append((start + lead, end.end(), fields))
        start = end.end()
    return out if len(out) >= _MIN_RECORDS else None


def adif_fields(record_text: str) -> dict[str, str] | None:
    """The fields of one ADIF record's text (closed by `<EOR>`), or None."""
    if _END_RECORD.search(record_text) is None or _TAG.search(record_text) is None:
        return None
    return _fields(record_text) or None

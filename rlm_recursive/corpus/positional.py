"""The fields a record of a positional format has though its text writes no label for them:
a Squid access log line's `client` and `bytes`, a zone record's `ttl` and `address`. Such
a field's name is the format's documentation's, not the text's, so a check that looks for
the label in the text asks here instead."""

from __future__ import annotations

from .adif import adif_fields
from .proxy_log import squid_fields
from .qif import qif_fields
from .zone_records import entry_fields

__all__ = ["glued_values", "positional_fields"]


def positional_fields(record_text: str) -> frozenset[str]:
    """The names of the fields the record's format gives it by position (empty when the text
    is not a record of such a format)."""
    text = record_text.strip("\n")
    if "\n" not in text and (fields := squid_fields(text)) is not None:
        return frozenset(fields)
    if (adif := adif_fields(text)) is not None:
        return frozenset(adif)
    if (qif := qif_fields(text)) is not None:
        return frozenset(qif)
    zone = entry_fields(text)
    return frozenset(zone or ())


def glued_values(record_text: str) -> list[str]:
    """The values of a record whose format writes each one glued to its code ("PBallindooley
    Men's Shed", "D23/05/2025" of a QIF transaction): the text says them, though not as
    words apart. Empty for other records."""
    fields = qif_fields(record_text.strip("\n"))
    return list(fields.values()) if fields else []

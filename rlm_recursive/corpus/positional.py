"""The fields a record of a positional format has though its text writes no label for them:
a Squid access log line's `client` and `bytes`, a zone record's `ttl` and `address`. Such
a field's name is the format's documentation's, not the text's, so a check that looks for
the label in the text asks here instead."""

from __future__ import annotations

from .adif import adif_fields
from .proxy_log import squid_fields
from .zone_records import entry_fields

__all__ = ["positional_fields"]


def positional_fields(record_text: str) -> frozenset[str]:
    """The names of the fields the record's format gives it by position (empty when the text
    is not a record of such a format)."""
    text = record_text.strip("\n")
    if "\n" not in text and (fields := squid_fields(text)) is not None:
        return frozenset(fields)
    if (adif := adif_fields(text)) is not None:
        return frozenset(adif)
    zone = entry_fields(text)
    return frozenset(zone or ())

"""A question's closing reference to the file it is about ("... in the NAS", "..., according
to the station log"): words that name the document by its file name, not the record the
answer is in. A fact is looked for without them (no line of `nas_smartctl_report.txt` says
"NAS"); grounding still checks them, against the cited document's file name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .doc_titles import name_says

__all__ = ["without_document_reference"]

_REFERENCE = re.compile(
    r"(?:\s*,)?\s+(?:in|on|from|according\s+to|as\s+per|per)\s+(?:the|this|our|my)\s+"
    r"(?P<ref>[A-Za-z0-9][\w'’ -]{0,40}?)\s*(?P<end>[?.!]*)\s*$", re.IGNORECASE)
_FILE_KINDS = frozenset(
    "log logs file report export list sheet register book logbook notes record records "
    "document data dump output printout scrape stats certificate".split())
"""Words that call any file what it is: said of a file whatever its name."""
_PREFIX = 3


def without_document_reference(question: str, sources: Iterable[str]) -> str:
    """The question without its closing reference to one document by its file name (every
    word of the reference said by that name, a file's kind aside, one word at least); the
    question as it is otherwise."""
    match = _REFERENCE.search(question)
    if match is None:
        return question
    words = [w.lower() for w in re.findall(r"[A-Za-z0-9]+", match["ref"])]
    naming = [w for w in words if w not in _FILE_KINDS]
    if not naming:
        return question
    for source in sources:
        if all(name_says(source, w, _PREFIX) for w in naming):
            return question[:match.start()] + match["end"]
    return question

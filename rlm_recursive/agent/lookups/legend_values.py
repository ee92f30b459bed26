"""What a code in a line gives for the thing a "which" question asks, when the line does
not say it: "which room was Mr Vance's check-up in" over a day sheet's row "10:20 KP Mr
Idris Vance ... Check-up" and the key above the rows, "KP  Dr Kim Park - Room 4". The
line's codes (short capitals: "KP") are looked up; a key line opens with the code and
says the asked noun with a name or number after it ("Room 4"). The answer is that, its
chain's bridge the code (grounding checks the key's line names it). No model call; None
when the line says the noun itself, no key line gives it, or two give different values.
(`legend` does the same for a "who" question.)
"""

from __future__ import annotations

import re

from ...corpus.asked import asked_phrase
from ...corpus.units import has_word, stems
from ...store import Store
from ...tools.search import search_session
from ...types import SpanRef
from ..answers.extractive import Extract, cited
from .chain import Chain
from .legend import line_around

__all__ = ["keyed_value"]

_WHICH = re.compile(r"^\s*(?:which|what)\s+([a-z][\w-]*)\b", re.IGNORECASE)
_CODE = re.compile(r"(?<![\w/-])[A-Z]{2,4}\d?(?![\w/-])")
_KEY_HITS = 20


def keyed_value(store: Store, session_id: str, question: str, found: Extract
                ) -> Chain | None:
    """The asked thing a key gives for a code of the line found (see the module)."""
    which = _WHICH.match(question)
    asked = asked_phrase(question)
    if which is None or not asked or stems(which.group(1))[:1] != asked[-1:]:
        return None
    noun = asked[-1]
    docs = {d.id: d for d in store.documents(session_id)}
    if found.ref.doc_id not in docs:
        return None
    line = store.text(docs[found.ref.doc_id])[found.ref.start:found.ref.end]
    if has_word(noun, frozenset(stems(line))):
        return None  # the line says it ("lab (Kestrel Dental Lab)"): no key is needed
    said = {c.lower() for c in re.findall(r"\w+", question)}
    given: dict[str, tuple[str, str, SpanRef]] = {}
    texts: dict[str, str] = {}  # each document read once, not once a hit
    for code in dict.fromkeys(_CODE.findall(line)):
        if code.lower() in said:
            continue
        hits, _, _, _ = search_session(store, session_id, code, "literal", limit=_KEY_HITS)
        for hit in hits:
            if hit.doc_id not in texts:
                texts[hit.doc_id] = store.text(docs[hit.doc_id])
            text = texts[hit.doc_id]
            start, end = line_around(text, hit.highlight_start, hit.highlight_start)
            key = text[start:end]
            if (hit.doc_id == found.ref.doc_id and start < found.ref.end
                    and found.ref.start < end) or not re.match(rf"\s*{code}\b", key):
                continue  # the line itself, or a line that does not open with the code
            for match in re.finditer(r"\b([A-Za-z][\w-]*)\s+([A-Z0-9][\w/-]*)\b", key):
                if stems(match.group(1))[:1] == [noun]:
                    given[match.group(0)] = (code, match.group(1),
                                             SpanRef(doc_id=hit.doc_id, start=start, end=end))
    if len(given) != 1:
        return None
    value, (code, word, ref) = next(iter(given.items()))
    return Chain(Extract(f"{word.lower()}: {value}", ref, field=word.lower()), [code],
                 cited(found))

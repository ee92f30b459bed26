"""Looking a record up by what the question says of it, and reading the field it asks for.

A manifest, a JSON array or a register names a thing in one field and gives its settings in
others, lines apart: "max replicas the ledger api can autoscale to" is the `maxReplicas` of
the record whose other fields say ledger-api and HorizontalPodAutoscaler; no one line holds
both. `lookup` picks
- the fields whose name says what is asked (`asked.label_says`: `maxReplicas`, not
  `MAX_BATCH_SIZE`);
- among records with such a field, the one whose values say the question's other words, all
  but one of each three ("prod" may stand for production), and more of them than any other
  record says (a tie between records is no answer), and every word that tells it from its
  siblings ("east" when there is a north wing: `asked.qualifiers`); among equals, the
  record that says them in more of its fields (the Deployment named ledger-worker, not the
  job run under the ledger-worker account);
- of its asked fields, the one whose name shares most of the question's words (`maxReplicas`
  over `minReplicas` for "max replicas"); a tie between two values is no answer.
"""

from __future__ import annotations

from collections.abc import Iterable

from .asked import asked_phrase, label_says, label_words, qualifiers
from .records import Record
from .units import has_word, shared_words, stems

__all__ = ["lookup"]


def lookup(question: str, records: Iterable[Record]) -> tuple[Record, str] | None:
    """The record the question picks out and the name of its field that answers it, or None
    (see the module docstring)."""
    phrase = set(asked_phrase(question))
    if not phrase:
        return None
    other = [w for w in dict.fromkeys(stems(question)) if w not in phrase]
    if not other:
        return None
    pool = [r for r in records if len(r.fields) >= 2]
    said_by = {id(r): label_words(" ".join(r.fields.values())) for r in pool}
    # "the east wing printer" where the text has a north wing: east must be said.
    picked = qualifiers(question, frozenset().union(*said_by.values()))
    scored: list[tuple[tuple[int, int], Record, list[str]]] = []
    for record in pool:
        keys = [k for k, v in record.fields.items() if v.strip() and label_says(question, k)]
        said = said_by[id(record)]
        matched = shared_words(other, said)
        if (not keys or not picked <= said
                or len(other) - len(matched) > len(other) // 3):
            continue
        fields_saying = sum(any(has_word(w, label_words(v)) for w in matched)
                            for v in record.fields.values())
        scored.append(((len(matched), fields_saying), record, keys))
    if not scored:
        return None
    scored.sort(key=lambda item: item[0], reverse=True)
    if len(scored) > 1 and scored[0][0] == scored[1][0]:
        return None  # two records fit the question as well: which one is not known
    _, record, keys = scored[0]
    asked = frozenset(stems(question))
    ranked = sorted(keys, key=lambda k: -len(label_words(k) & asked))
    best = len(label_words(ranked[0]) & asked)
    values = {record.fields[k] for k in ranked if len(label_words(k) & asked) == best}
    return (record, ranked[0]) if len(values) == 1 else None

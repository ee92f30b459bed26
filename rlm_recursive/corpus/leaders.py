"""Label lists: a label, a leader (dots, a wide gap) and its value on one line.

    Adult day ticket, 47/47A ............. £4.60
    Fenwick Zone weekly .................. £17.50
    Child (5-15) single .................. £1.00

Fare tables, price lists, contents pages, timetables, spec sheets. A value there is the
value of ITS line's label, and the label names which thing it is: a line is the answer to a
question about "a child day ticket" only when its label says every word that picks that
thing out ("child", "day"); "Child (5-15) single" names another kind of ticket, and "Adult
day ticket" another passenger. The last word of the question's phrase is the thing's kind
("ticket", "fare"), which a list's labels often leave unsaid ("Fenwick Zone weekly").
"""

from __future__ import annotations

import re

from .asked import label_words
from .units import STOP, has_word, stems
from .wrapping import LEADER

__all__ = ["label_fits", "leader_label"]

_TOKEN = re.compile(r"[A-Za-z][\w'’-]*|\S")


def leader_label(text: str) -> str | None:
    """The label of a one-line label-list entry ("Fenwick Zone weekly"), else None."""
    line = text.strip()
    if "\n" in line:
        return None
    match = LEADER.search(line)
    return line[:match.start() + 1] if match else None


def _phrases(question: str) -> list[list[str]]:
    """The question's runs of plain lower-case content words, in order ("child day
    ticket"): stop words, numbers, names (capitalised words) and punctuation end a run."""
    runs: list[list[str]] = [[]]
    for token in _TOKEN.findall(question):
        word = token.lower().removesuffix("'s").removesuffix("’s")
        stem = stems(word) if token[:1].islower() and word not in STOP else []
        if stem:
            runs[-1].append(stem[0])
        elif runs[-1]:
            runs.append([])
    return [run for run in runs if run]


def label_fits(question: str, text: str) -> bool:
    """A label-list entry answers the question only when its label says every word but the
    last of each of the question's phrases it shares a word with ("child day ticket":
    child and day). Any other text: True."""
    label = leader_label(text)
    if label is None:
        return True
    said = label_words(label)  # its words, and what its terms stand for (annual: yearly)
    # The entry's own words after the label say them too ("drums 3-6  sold bulk to ...":
    # the bulk drums), though no sibling's label ("Adult day ticket" for a child's).
    entry = said | label_words(text.strip()[len(label):])
    own = frozenset(stems(label))
    for phrase in _phrases(question):
        # (Only a label that writes a word of the phrase itself: "LP-7102" is a number by its
        # shape alone, and "Police ... ref 26/8812" after it is another's.)
        carried = any(has_word(w, own) for w in phrase)
        if len(phrase) > 1 and any(has_word(w, said) for w in phrase) and not all(
                has_word(w, said) or (carried and has_word(w, entry)) for w in phrase[:-1]):
            return False
    return True

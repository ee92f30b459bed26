"""Sibling scopes: a labelled line the answer was copied from, and the lines with the same
label elsewhere in the document (each car's "NEXT MOT DUE", each service's "image"). When
the question names what tells them apart ("the yaris") and a sibling's scope says it while
the line's own does not, the line is the wrong sibling's, whatever else it shares with the
question (`scopes` gives each labelled line the lines that name what it is about).
"""

from __future__ import annotations

from .naming import contains, values
from .scopes import Labelled, labelled_lines
from .units import STOP, has_word, normalise, stems

__all__ = ["outscoped"]


def outscoped(question: str, answer: str, text: str, start: int, end: int) -> bool:
    """The labelled line between `start` and `end` that holds the answer has a sibling (same
    label) whose line and scope say every question word its own say, and more."""
    words = [w for w in dict.fromkeys(stems(question)) if w not in STOP]
    wanted = [v for v in values(answer) if not contains(normalise(question), v)]
    items = labelled_lines(text)
    own = [item for item in items if item.start < end and start < item.end
           and all(contains(normalise(text[item.start:item.end]), v) for v in wanted)]
    for mine in own:
        said = _said(text, mine, words)
        label = normalise(mine.says)
        if any(normalise(other.says) == label and other.start != mine.start
               and _said(text, other, words) > said for other in items):
            return True
    return False


def _said(text: str, item: Labelled, words: list[str]) -> frozenset[str]:
    """The question's words a labelled line and its scope say."""
    chain = " ".join([text[item.start:item.end], *(text[a:b] for _, a, b in item.scope)])
    own = frozenset(stems(chain))
    return frozenset(w for w in words if has_word(w, own))

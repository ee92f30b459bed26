"""ContextAssembler: the model's input under a token budget, from the active context items."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from .records import ContextItem
from .store import ConversationStore
from .tokens import TokenEstimator

__all__ = ["SUMMARY_HEADER_TOKENS", "AssembledContext", "ContextAssembler", "render_item"]

SUMMARY_HEADER_TOKENS = 24
"""The line that introduces a summary to the model (its id and how to expand it)."""

_WORD = re.compile(r"[^\W_]{3,}")


def render_item(item: ContextItem) -> dict[str, str]:
    """One context item as a chat message; a summary says what it is and how to expand it."""
    if item.item_type == "message":
        return {"role": item.role or "user", "content": item.content}
    return {"role": "user", "content": f"[Summary {item.summary_id} of earlier conversation "
                                       f"({item.kind}); lcm_expand(\"{item.summary_id}\") "
                                       f"shows the original messages]\n{item.content}"}


def item_tokens(item: ContextItem) -> int:
    return item.token_count + (SUMMARY_HEADER_TOKENS if item.item_type == "summary" else 0)


@dataclass(frozen=True)
class AssembledContext:
    """Chosen items in chronological order, with the token estimate for the whole input."""

    items: list[ContextItem]
    token_estimate: int
    system_tokens: int
    budget_tokens: int
    omitted: list[int] = field(default_factory=list)
    """Ordinals of active items left out for the budget (still searchable, expandable)."""

    @property
    def fits(self) -> bool:
        return self.token_estimate <= self.budget_tokens

    def messages(self) -> list[dict[str, str]]:
        return [render_item(i) for i in self.items]


class ContextAssembler:
    """System content always; the freshest raw turns; then summaries by relevance and recency."""

    def __init__(self, store: ConversationStore, estimator: TokenEstimator) -> None:
        self.store = store
        self.estimator = estimator

    def assemble(self, conversation_id: int, budget_tokens: int, *, system: str = "",
                 query: str = "") -> AssembledContext:
        """Select items under `budget_tokens` (system included); deterministic for equal input.

        The newest message is always kept, even over budget (then `fits` is False and the
        caller decides: compact, or refuse with context_overflow).
        """
        items = self.store.get_context_items(conversation_id, with_content=False)
        return self.with_contents(self.select(items, budget_tokens, system=system, query=query))

    def with_contents(self, assembled: AssembledContext) -> AssembledContext:
        """Fill in the texts of the chosen messages (read only for what is sent)."""
        missing = [i.message_id for i in assembled.items
                   if i.item_type == "message" and i.message_id and not i.content]
        texts = self.store.message_contents(missing)
        items = [i._replace(content=texts[i.message_id]) if i.message_id in texts else i
                 for i in assembled.items]
        return replace(assembled, items=items)

    def select(self, items: list[ContextItem], budget_tokens: int, *, system: str = "",
               query: str = "") -> AssembledContext:
        system_tokens = self.estimator.message(system) if system else 0
        used = system_tokens
        chosen: set[int] = set()
        raw = [i for i in items if i.item_type == "message"]
        for position, item in enumerate(reversed(raw)):
            cost = item_tokens(item)
            if position > 0 and used + cost > budget_tokens:
                break  # the raw tail stays contiguous: no gaps inside recent turns
            used += cost
            chosen.add(item.ordinal)
        for item in self._ranked_summaries(items, query):
            cost = item_tokens(item)
            if used + cost <= budget_tokens:
                used += cost
                chosen.add(item.ordinal)
        ordered = [i for i in items if i.ordinal in chosen]
        omitted = [i.ordinal for i in items if i.ordinal not in chosen]
        return AssembledContext(ordered, used, system_tokens, budget_tokens, omitted)

    @staticmethod
    def _ranked_summaries(items: list[ContextItem], query: str) -> list[ContextItem]:
        """Summaries sharing more words with the query first, then the most recent."""
        words = {w.lower() for w in _WORD.findall(query)}
        summaries = [i for i in items if i.item_type == "summary"]

        def score(item: ContextItem) -> tuple[int, int]:
            overlap = len(words & {w.lower() for w in _WORD.findall(item.content)}) if words \
                else 0
            return (-overlap, -item.ordinal)

        return sorted(summaries, key=score)

"""Token estimates: the provider's own tokenizer where it has one, else a calibrated ratio."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["MESSAGE_OVERHEAD_TOKENS", "TokenEstimator"]

MESSAGE_OVERHEAD_TOKENS = 6
"""Role markers and separators a chat template adds around each message (rounded up, so an
assembled window never exceeds what `fit_messages` measures: 16 characters a message)."""


class TokenEstimator:
    """Counts tokens for messages, summaries and whole assembled contexts.

    With a `counter` (llama.cpp's tokenizer, through the embedded provider's `count_tokens`)
    counts are exact. Without one, characters are divided by a ratio that starts conservative
    (3 chars per token: code, numbers and ids tokenise worse than prose) and is calibrated
    from what a server reports for real prompts (Ollama's `prompt_eval_count`).
    """

    def __init__(self, counter: Callable[[str], int] | None = None,
                 chars_per_token: float = 3.0) -> None:
        self._counter = counter
        self.chars_per_token = chars_per_token

    @classmethod
    def for_provider(cls, provider: Any) -> TokenEstimator:
        """Use the provider's tokenizer when it exposes `count_tokens(text)`."""
        counter = getattr(provider, "count_tokens", None)
        return cls(counter if callable(counter) else None)

    @property
    def exact(self) -> bool:
        return self._counter is not None

    def count(self, text: str) -> int:
        """Tokens of one text (no message overhead)."""
        if not text:
            return 0
        if self._counter is not None:
            return int(self._counter(text))
        return math.ceil(len(text) / self.chars_per_token)

    def message(self, content: str) -> int:
        """Tokens one message costs in a prompt."""
        return self.count(content) + MESSAGE_OVERHEAD_TOKENS

    def calibrate(self, prompt_chars: int, prompt_tokens: int, weight: float = 0.3) -> None:
        """Move the ratio toward a measured one (a moving average; a no-op when exact)."""
        if self._counter is not None or prompt_chars <= 0 or prompt_tokens <= 0:
            return
        measured = prompt_chars / prompt_tokens
        # Never go above 4.5: an over-optimistic ratio overflows the window, which is worse
        # than compacting a little early.
        self.chars_per_token = min(4.5, (1 - weight) * self.chars_per_token + weight * measured)

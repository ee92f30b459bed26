"""One budget for a whole recursion tree: sub-calls, tool calls, prompt size, time, dollars."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..errors import BudgetExceeded

__all__ = ["Budget", "BudgetLimits"]


@dataclass(frozen=True)
class BudgetLimits:
    max_sub_calls: int = 64
    max_tool_calls: int = 200
    max_prompt_chars: int = 4_000_000
    max_wall_s: float = 900.0
    max_usd: float | None = None


@dataclass
class _Spent:
    sub_calls: int = 0
    tool_calls: int = 0
    prompt_chars: int = 0
    usd: float = 0.0
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class Budget:
    """Charges go to this budget and every ancestor, so a child never outspends its parent."""

    limits: BudgetLimits = field(default_factory=BudgetLimits)
    parent: Budget | None = None
    spent: _Spent = field(default_factory=_Spent)
    started: float = field(default_factory=time.monotonic)

    def child(self, limits: BudgetLimits | None = None) -> Budget:
        """A sub-budget: its own (optional) caps, counted against this one as well."""
        return Budget(limits=limits or self.limits, parent=self)

    def _chain(self) -> list[Budget]:
        chain, node = [], self
        while node is not None:
            chain.append(node)
            node = node.parent
        return chain

    def _charge(self, name: str, amount: float, limit_of: str) -> None:
        chain = self._chain()
        for node in chain:
            limit = getattr(node.limits, limit_of)
            if limit is not None and getattr(node.spent, name) + amount > limit:
                raise BudgetExceeded(
                    f"budget exhausted: {limit_of} = {limit} "
                    f"(spent {getattr(node.spent, name)}, asked {amount})", limit=limit_of)
        for node in chain:
            setattr(node.spent, name, getattr(node.spent, name) + amount)

    def check_time(self) -> None:
        for node in self._chain():
            elapsed = time.monotonic() - node.started
            if elapsed > node.limits.max_wall_s:
                raise BudgetExceeded(f"budget exhausted: max_wall_s = {node.limits.max_wall_s} "
                                     f"({elapsed:.1f} s elapsed)", limit="max_wall_s")

    def charge_sub_call(self) -> None:
        self._charge("sub_calls", 1, "max_sub_calls")

    def charge_tool_call(self) -> None:
        self._charge("tool_calls", 1, "max_tool_calls")

    def charge_prompt(self, chars: int) -> None:
        self.check_time()
        self._charge("prompt_chars", chars, "max_prompt_chars")

    def record_usage(self, input_tokens: int, output_tokens: int, usd: float | None) -> None:
        for node in self._chain():
            node.spent.model_calls += 1
            node.spent.input_tokens += input_tokens
            node.spent.output_tokens += output_tokens
        if usd:
            self._charge("usd", usd, "max_usd")

    def summary(self) -> dict[str, float | int | None]:
        s = self.spent
        return {"model_calls": s.model_calls, "sub_calls": s.sub_calls,
                "tool_calls": s.tool_calls, "prompt_chars": s.prompt_chars,
                "input_tokens": s.input_tokens, "output_tokens": s.output_tokens,
                "cost_usd": round(s.usd, 6), "budget_usd": self.limits.max_usd,
                "wall_s": round(time.monotonic() - self.started, 3)}

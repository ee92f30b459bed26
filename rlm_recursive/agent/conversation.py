"""Conversations for `run_query`: open or continue one, wire the model in as summariser and
sub-agent, record the question and the answer."""

from __future__ import annotations

from ..errors import InvalidArgs, RlmError, RunError
from ..lcm import Lcm, LcmConfig, Summariser, extractive_summary
from ..providers.base import Message
from .context import RunContext
from .memory import ConversationMemory
from .model_call import call_model

__all__ = ["SUMMARY_SYSTEM", "open_conversation"]

SUMMARY_SYSTEM = ("Summarise the conversation excerpt below for your own later reference, in at "
                  "most {target} tokens. Keep every name, number, id and decision; say who "
                  "asked and who answered. Plain text, no preamble.")
EXPAND_SYSTEM = ("Answer the question from the conversation excerpt only. Cite the [msg_…] or "
                 "[sum_…] ids you used, in brackets. Say NOT FOUND if it is not there.")


def _summariser(rc: RunContext, depth: int | None) -> Summariser:
    """The preset's summary tier writes summaries; by default the deepest (the cheapest)."""
    tier = rc.plan.at(len(rc.plan.tiers) - 1 if depth is None else depth)

    async def summarise(texts: list[str], target: int, kind: str) -> str:
        body = "\n\n".join(texts)
        messages = [Message(role="system", content=SUMMARY_SYSTEM.format(target=target)),
                    Message(role="user", content=body)]
        try:
            result = await call_model(rc, tier, messages, [])
        except RunError:
            raise
        except RlmError:  # e.g. the sources overflow the summary model's window
            return await extractive_summary(texts, target, kind)
        return result.text.strip() or await extractive_summary(texts, target, kind)

    return summarise


def _answerer(rc: RunContext):
    tier = rc.plan.tiers[-1]

    async def answer(question: str, text: str) -> str:
        rc.budget.charge_sub_call()
        messages = [Message(role="system", content=EXPAND_SYSTEM),
                    Message(role="user", content=f"{text}\n\nQuestion: {question}")]
        return (await call_model(rc, tier, messages, [])).text

    return answer


def open_conversation(rc: RunContext, config: LcmConfig, conversation_id: int | None,
                      question: str, summary_tier: int | None = None) -> ConversationMemory:
    """Continue `conversation_id` (it must belong to the run's session) or start one; the
    question becomes its newest message."""
    lcm = Lcm(rc.store.data_dir, config, summariser=_summariser(rc, summary_tier),
              blobs=rc.store.blobs)
    try:
        if conversation_id is None:
            conversation_id = lcm.store.create_conversation(
                rc.session_id, " ".join(question.split())[:80]).conversation_id
        elif lcm.store.conversation(conversation_id).session_id != rc.session_id:
            raise InvalidArgs(f"conversation {conversation_id} belongs to another session")
        memory = ConversationMemory(lcm, conversation_id, answerer=_answerer(rc))
        memory.record(Message(role="user", content=question))
    except BaseException:
        lcm.close()
        raise
    return memory

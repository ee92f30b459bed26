"""The repl strategy: the root model writes Python steps that run in the sandbox against the
corpus; `llm_query` is answered by the runtime (seed 003 §7, the paper's RLM)."""

from __future__ import annotations

import asyncio
import re

from ... import trajectory
from ...errors import RlmError, RunError
from ...providers.base import Message
from ...store.executions import UNFINISHED_STATUSES, ExecutionStore
from ..context import AgentAnswer, RunContext
from ..model_call import call_model
from ..recursion import RecursionState
from ..repl.execution import ROOT_EXECUTION_ID, ReplExecution, StepView, status_for
from ..repl.prompt import CORRECTIVE, extract_code, root_system
from .agent import overview

__all__ = ["resume", "run"]

_OUT_OF_TURNS = ("You are out of steps. Reply with your best final answer now, as plain text, "
                 "from what your code has found.")


async def run(rc: RunContext, state: RecursionState, question: str) -> AgentAnswer:
    fixed = _root_id(state)
    if fixed is not None:  # a queued execution: a retried job goes on where the lost one was
        status = await asyncio.to_thread(ExecutionStore(rc.store.sql).status, fixed)
        if status in UNFINISHED_STATUSES:
            return await resume(rc, state, fixed)
        if status is not None:  # finished, but its answer was never recorded: start over
            fixed = None
    execution = await ReplExecution.create(
        rc, state, mode="answerer", question=question,
        options={"output_mode": rc.settings.output_mode, "plan": rc.plan.describe()},
        execution_id=fixed)
    return await _drive(rc, state, execution, question, [])


def _root_id(state: RecursionState) -> str | None:
    """The worker's fixed id, for the root run only (sub-runs get their own ids)."""
    if state.depth != 0:
        return None
    fixed = ROOT_EXECUTION_ID.get()
    ROOT_EXECUTION_ID.set(None)
    return fixed


async def resume(rc: RunContext, state: RecursionState, execution_id: str) -> AgentAnswer:
    """Go on with a killed run from its last persisted step."""
    execution = await ReplExecution.resume(rc, state, execution_id)
    record = await asyncio.to_thread(execution.store.get, execution_id)
    steps = await asyncio.to_thread(execution.store.steps, execution_id)
    history = []
    for step in steps:
        history.append(Message(role="assistant", content=f"```repl\n{step.code}\n```"))
        history.append(Message(role="user", content=StepView(step, {}, len(step.stdout),
                                                              0).feedback()))
    return await _drive(rc, state, execution, record["question"] or "", history)


async def _drive(
    rc: RunContext, state: RecursionState, execution: ReplExecution, question: str,
    history: list[Message],
) -> AgentAnswer:
    try:
        answer = await _loop(rc, state, execution, question, history)
    except (RlmError, TimeoutError, asyncio.CancelledError) as exc:
        error = exc if isinstance(exc, RlmError) else None
        await asyncio.shield(execution.finish(status_for(exc), error=error))
        raise
    finally:
        await execution.close()
    status = "MAX_TURNS_EXCEEDED" if answer.stopped == "max_iterations" else "COMPLETED"
    await execution.finish(status, answer=answer.text)
    answer.extra["execution_id"] = execution.id
    return answer


async def _loop(
    rc: RunContext, state: RecursionState, execution: ReplExecution, question: str,
    history: list[Message],
) -> AgentAnswer:
    tier = rc.tier(state.depth)
    settings = rc.settings
    limits = rc.budget.limits
    budget = (f"{settings.max_iterations} steps, {limits.max_sub_calls} sub-calls, "
              f"{int(limits.max_wall_s)} s")
    system = root_system(overview(rc), subcalls=state.can_recurse(),
                         stdout_cap=settings.max_stdout_chars, budget=budget,
                         contexts=settings.output_mode == "CONTEXTS")
    messages = [Message(role="system", content=system),
                Message(role="user", content=f"QUESTION: {question}"), *history]
    # In a conversation the steps join it (lossless): each turn's window is assembled from
    # it, and older steps are compacted into summaries instead of overflowing the window.
    memory = rc.memory if state.depth == 0 else None
    if memory is not None:
        for message in history:  # a resumed run's steps join the conversation first
            memory.record(message)
        messages = await memory.window(tier, system, [], question)

    async def add(message: Message) -> None:
        nonlocal messages
        if memory is None:
            messages.append(message)
        else:
            memory.record(message)
            messages = await memory.window(tier, system, [], question)

    corrections = 0
    written: list[str] = []  # the model's code: grounding tells computed values from typed ones
    last: StepView | None = None
    while execution.turn < settings.max_iterations:
        reply = (await call_model(rc, tier, messages, [])).text
        await add(Message(role="assistant", content=reply))
        code, blocks = extract_code(reply)
        printed = _printed_answer(last, reply, code)
        if printed is not None:
            # It printed the answer and then restated it (or ran the same step again)
            # instead of calling FINAL: what its code printed is the answer.
            return AgentAnswer(printed, tier, execution.turn, stopped="printed",
                               extra={"code": "\n".join(written)})
        if code is None:
            corrections += 1
            if corrections > settings.max_corrections:
                if not reply.strip():
                    raise RunError("the model gave no code and no answer")
                return AgentAnswer(reply.strip(), tier, execution.turn, stopped="no_code")
            await add(Message(role="user", content=CORRECTIVE))
            continue
        written.append(code)
        with trajectory.repl_step(execution.turn, code) as recorded:
            view = await execution.step(code)
            recorded.result({"stdout": view.record.stdout, "error": view.record.error})
        _report(rc, view)
        last = view
        final = view.record.final
        if final is not None and final.get("answer"):
            answer = _finished(rc, execution, tier, str(final["answer"]))
            answer.extra["code"] = "\n".join(written)
            return answer
        note = "\n(only the first repl block ran)" if blocks > 1 else ""
        await add(Message(role="user", content=view.feedback() + note))
    await add(Message(role="user", content=_OUT_OF_TURNS))
    result = await call_model(rc, tier, messages, [])
    return AgentAnswer(result.text.strip(), tier, execution.turn, stopped="max_iterations")


def _printed_answer(last: StepView | None, reply: str, code: str | None) -> str | None:
    """The output of the previous step when the model treats printing as answering: it
    repeats that step's code, or replies in prose that restates what the step printed.
    Only a short, error-free output counts (an exploratory print is no answer)."""
    if last is None or last.record.error or not last.record.stdout.strip():
        return None
    out = last.record.stdout.strip()
    if len(out) > 2000:
        return None
    if code is not None:
        return out if code.strip() == last.record.code.strip() else None
    restated = re.search(rf"(?<!\w){re.escape(out)}(?!\w)", reply, re.IGNORECASE)
    return out if len(out) <= 200 and len(reply) <= 400 and restated else None


def _finished(rc: RunContext, execution: ReplExecution, tier, answer: str) -> AgentAnswer:
    if rc.settings.output_mode != "CONTEXTS":
        return AgentAnswer(answer, tier, execution.turn)
    contexts = execution.contexts()
    return AgentAnswer(f"{len(contexts)} contexts", tier, execution.turn,
                       extra={"contexts": contexts})


def _report(rc: RunContext, view: StepView) -> None:
    if rc.progress is None:
        return
    rec = view.record
    rc.progress({"event": "repl_step", "turn": rec.turn_index, "code": rec.code,
                 "stdout": rec.stdout[:400], "error": rec.error, "sub_calls": view.sub_calls,
                 "changed": view.changed, "ms": rec.timings.get("total_ms")})

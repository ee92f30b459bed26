#!/usr/bin/env python
"""REPL strategy overhead: sandbox time per step and sub-call throughput, model time excluded.

    python benchmarks/repl_bench.py                 # 200 steps, 1000 sub-calls, concurrency 8
    python benchmarks/repl_bench.py --steps 500 --sub-calls 2000 --json

1. Step overhead: `ReplExecution.step` on a live sandbox (real pydantic-monty worker, real
   SQLite) for small steps that read a slice, run a regex and bind a variable. The time is the
   whole step as the root loop sees it: reserved state written, code run, spans taken,
   variables described, the step persisted. Target p50 <= 20 ms.
2. Sub-call throughput: one step calling `llm_query_batched` over N prompts, answered by an
   instant fake model (no cache: every prompt differs) at concurrency 8. Target >= 200/s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, build_run, resolve_plan
from rlm_recursive.agent.recursion import RecursionState
from rlm_recursive.agent.repl.execution import ReplExecution
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.catalog import ModelInfo, Preset, TierSpec, load_catalog
from rlm_recursive.config import SessionConfig
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply

STEP_TARGET_MS = 20.0
RATE_TARGET = 200.0
STEP = ("part = context[{i} % len(context)][{a}:{b}]\n"
        "n{k} = len(context[0].regex('ERROR', 0, 20000))\n"
        "print(len(part), n{k})")


def _catalog():
    catalog = load_catalog()
    catalog.models["bench"] = ModelInfo(name="bench", provider="fake", tools=True,
                                        params_b=70, num_ctx=32768)
    catalog.presets["bench"] = Preset(tiers=[TierSpec(model="bench")])
    return catalog


def _corpus(docs: int, chars: int) -> list[str]:
    line = "2026-01-01 INFO svc=auth request ok\n2026-01-01 ERROR svc=mail timeout\n"
    return [(line * (chars // len(line) + 1))[:chars] for _ in range(docs)]


async def _execution(runtime: Runtime, sid: str, concurrency: int) -> ReplExecution:
    def instant(request: ChatRequest) -> ChatResult:
        return reply("ok")

    options = QueryOptions(preset="bench", strategy="repl", max_sub_calls=10**7)
    plan, _ = await resolve_plan(runtime.catalog, runtime.profile, options)
    rc = build_run(runtime, sid, plan, options, ProviderPool({"fake": FakeProvider(
        script=instant)})).with_settings(concurrency=concurrency, step_timeout_s=60)
    return await ReplExecution.create(rc, RecursionState(0, 1), mode="runtime", question=None)


async def bench(steps: int, sub_calls: int, concurrency: int, docs: int, chars: int
                ) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        runtime = Runtime(Path(tmp), "unrestricted", catalog=_catalog())
        sid = runtime.store.create_session("bench", SessionConfig())["session_id"]
        for i, text in enumerate(_corpus(docs, chars)):
            runtime.store.add_document(sid, text.encode(), length_chars=len(text),
                                       source=f"d{i}.log", source_type="inline")
        execution = await _execution(runtime, sid, concurrency)
        try:
            started = time.perf_counter()
            await execution.step("print(len(context))")  # starts the worker
            start_ms = (time.perf_counter() - started) * 1000
            times, sandbox = [], []
            for k in range(steps):
                a = (k * 997) % (chars - 2000)
                code = STEP.format(i=k, a=a, b=a + 2000, k=k % 10)
                t = time.perf_counter()
                view = await execution.step(code)
                times.append((time.perf_counter() - t) * 1000)
                sandbox.append(view.record.timings["sandbox_ms"])
                if view.record.error:
                    raise SystemExit(f"step failed: {view.record.error}")
            prompts = json.dumps([f"prompt {i}" for i in range(sub_calls)])
            t = time.perf_counter()
            view = await execution.step(f"answers = llm_query_batched({prompts})\n"
                                        "print(len(answers))")
            batch_s = time.perf_counter() - t
            if view.record.stdout.strip() != str(sub_calls):
                raise SystemExit(f"batch failed: {view.record.error or view.record.stdout}")
        finally:
            await execution.close()
            runtime.close()
    quantiles = statistics.quantiles(times, n=20)
    return {"steps": steps, "docs": docs, "chars_per_doc": chars,
            "sandbox_start_ms": round(start_ms, 1),
            "step_p50_ms": round(statistics.median(times), 3),
            "step_p95_ms": round(quantiles[18], 3),
            "sandbox_exec_p50_ms": round(statistics.median(sandbox), 3),
            "sub_calls": sub_calls, "concurrency": concurrency,
            "sub_calls_per_s": round(sub_calls / batch_s, 1),
            "step_target_ms": STEP_TARGET_MS, "rate_target": RATE_TARGET}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--sub-calls", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--docs", type=int, default=4)
    parser.add_argument("--chars", type=int, default=250_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out = asyncio.run(bench(args.steps, args.sub_calls, args.concurrency, args.docs,
                            args.chars))
    if args.json:
        print(json.dumps(out, indent=2))
        return
    step_ok = "ok" if out["step_p50_ms"] <= STEP_TARGET_MS else "MISSED"
    rate_ok = "ok" if out["sub_calls_per_s"] >= RATE_TARGET else "MISSED"
    print(f"REPL bench: {out['docs']} docs x {out['chars_per_doc']:,} chars, "
          f"{out['steps']} steps")
    print(f"  sandbox start (worker, prelude, corpus)   {out['sandbox_start_ms']:8.1f} ms")
    print(f"  step overhead p50 (whole step, persisted) {out['step_p50_ms']:8.3f} ms"
          f"   <= {STEP_TARGET_MS:g}  {step_ok}")
    print(f"  step overhead p95                          {out['step_p95_ms']:8.3f} ms")
    print(f"  sandbox execution p50 (code only)          {out['sandbox_exec_p50_ms']:8.3f} ms")
    print(f"  llm_query_batched, instant model, c={out['concurrency']}  "
          f"{out['sub_calls_per_s']:8.1f} /s   >= {RATE_TARGET:g}  {rate_ok}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python
"""Aggregation tasks (count log lines by level and service over ~200K chars), per strategy.

    python benchmarks/repl_aggregate.py                         # scripted code-writing model
    python benchmarks/repl_aggregate.py --model embedded --strategies repl,search --tasks 3

Tasks come from a seed: a log corpus of two documents and the question "How many log lines
are LEVEL from service SVC?"; scored by exact match of the number. `--model scripted` is a
fake root model that writes the counting code from the question (what a capable code model
does); `--model embedded` is the packaged GGUF through llama.cpp (slow on a CPU). The answer
is read as the first integer of the reply.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, run_query
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.catalog import ModelInfo, Preset, TierSpec, load_catalog
from rlm_recursive.config import SessionConfig
from rlm_recursive.errors import RlmError
from rlm_recursive.providers.base import ChatRequest, ChatResult
from rlm_recursive.providers.fake import FakeProvider, reply

SERVICES = ["auth", "billing", "search", "mail", "storage"]
LEVELS = ["INFO", "INFO", "INFO", "WARN", "ERROR"]
_QUESTION = re.compile(r"are (\w+) from service (\w+)")


def make_task(seed: int, chars: int = 200_000) -> tuple[list[str], str, int]:
    rng = random.Random(seed)
    docs = []
    for _ in range(2):
        lines, size = [], 0
        while size < chars // 2:
            line = (f"2026-02-{rng.randrange(1, 28):02d}T{rng.randrange(24):02d}:"
                    f"{rng.randrange(60):02d} {rng.choice(LEVELS)} service={rng.choice(SERVICES)}"
                    f" req={rng.randrange(10**6)} latency_ms={rng.randrange(2000)}")
            lines.append(line)
            size += len(line) + 1
        docs.append("\n".join(lines) + "\n")
    level, service = rng.choice(["ERROR", "WARN"]), rng.choice(SERVICES)
    pattern = f" {level} service={service} "
    answer = sum(d.count(pattern) for d in docs)
    return docs, f"How many log lines are {level} from service {service}?", answer


def scripted_coder(request: ChatRequest) -> ChatResult:
    """Reads the question, writes the counting code, then answers with the variable."""
    turns = sum(m.role == "assistant" for m in request.messages)
    if turns == 0:
        level, service = _QUESTION.search(request.messages[1].content).groups()
        code = (f"n = 0\nfor doc in context:\n"
                f"    n = n + len(doc.regex(r'(?m)^.* {level} service={service} .*$'))\n"
                "print(n)")
    else:
        code = "FINAL_VAR('n')"
    return reply(f"```repl\n{code}\n```")


def _catalog():
    catalog = load_catalog()
    catalog.models["coder"] = ModelInfo(name="coder", provider="fake", tools=True,
                                        params_b=70, num_ctx=32768)
    catalog.presets["coder"] = Preset(tiers=[TierSpec(model="coder")])
    return catalog


async def run_task(seed: int, strategy: str, model: str, max_iterations: int
                   ) -> dict[str, Any]:
    docs, question, answer = make_task(seed)
    with tempfile.TemporaryDirectory() as tmp:
        runtime = Runtime(Path(tmp), "unrestricted", catalog=_catalog())
        sid = runtime.store.create_session("agg", SessionConfig())["session_id"]
        for i, text in enumerate(docs):
            runtime.store.add_document(sid, text.encode(), length_chars=len(text),
                                       source=f"app{i}.log", source_type="inline")
        pool = ProviderPool({"fake": FakeProvider(script=scripted_coder)})
        options = QueryOptions(preset="coder" if model == "scripted" else model,
                               strategy=strategy, max_iterations=max_iterations,
                               timeout_s=900)
        started = time.perf_counter()
        try:
            result = await run_query(runtime, sid, question, options, providers=pool)
            got, calls, stopped = result.answer, result.usage["model_calls"], result.stopped
        except RlmError as exc:
            got, calls, stopped = f"error[{exc.code}]", None, "error"
        finally:
            await pool.aclose()
            runtime.close()
    found = re.search(r"-?\d+", got)
    return {"seed": seed, "question": question, "expected": answer, "answer": got[:80],
            "correct": bool(found) and int(found.group()) == answer, "model_calls": calls,
            "stopped": stopped,
            "seconds": round(time.perf_counter() - started, 2)}


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    report: dict[str, Any] = {"model": args.model, "strategies": {}}
    for strategy in args.strategies.split(","):
        rows = [await run_task(seed, strategy, args.model, args.max_iterations)
                for seed in range(args.tasks)]
        report["strategies"][strategy] = {
            "score": f"{sum(r['correct'] for r in rows)}/{len(rows)}",
            "mean_s": round(sum(r["seconds"] for r in rows) / len(rows), 2), "tasks": rows}
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="scripted", help="scripted, or a preset (embedded)")
    parser.add_argument("--strategies", default="repl")
    parser.add_argument("--tasks", type=int, default=5)
    parser.add_argument("--max-iterations", type=int, default=6)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = asyncio.run(main_async(args))
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for strategy, entry in report["strategies"].items():
        print(f"{args.model} / {strategy}: {entry['score']} exact, {entry['mean_s']} s per task")
        for row in entry["tasks"]:
            mark = "ok " if row["correct"] else "XX "
            print(f"  {mark} expected {row['expected']:>4}  got {row['answer']!r} "
                  f"({row['stopped']}, {row['model_calls']} model calls, {row['seconds']} s)")


if __name__ == "__main__":
    main()

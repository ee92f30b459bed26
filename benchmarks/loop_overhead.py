#!/usr/bin/env python
"""Runner time per agent-loop turn, excluding model time, with a scripted fake model.

    python benchmarks/loop_overhead.py                    # 20 runs x 50 turns, 20M chars
    python benchmarks/loop_overhead.py --runs 1 --turns 1000 --json

Each run is `run_agent` on a RunContext from `build_run`, with a TierPlan on provider "fake".
The fake model calls rlm_search_query, rlm_docs_peek, rlm_chunk_create and rlm_span_get in
turn, with valid arguments, then rlm_final_answer. A turn's runner time is the gap between
one model call returning and the next starting: handling the reply, running the tool through
the registry (traces on), and preparing the next request (tool specs, fitting the history
to the window, budget). Provider time is measured separately and excluded; CPU time is
shown too, as it is steadier than wall time on a busy machine. The window defaults to 32768
tokens, so a 50-turn history only starts to be trimmed late; `--num-ctx 8192` trims early.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import pstats
import random
import statistics
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import Plant, generate, scan_plants

from rlm_recursive.agent.budget import Budget, BudgetLimits
from rlm_recursive.agent.loop import run_agent
from rlm_recursive.agent.pool import ProviderPool
from rlm_recursive.agent.query import QueryOptions, build_run
from rlm_recursive.agent.recursion import RecursionState, Tier, TierPlan
from rlm_recursive.agent.runtime import Runtime
from rlm_recursive.agent.strategies.agent import ROOT_SYSTEM
from rlm_recursive.config import MAX_TOOL_CALLS_LIMIT
from rlm_recursive.providers.base import ChatRequest, ChatResult, ToolCall, Usage
from rlm_recursive.providers.fake import FakeProvider

TARGET_MS = 2.0
CHUNK = {"strategy": "fixed", "chunk_size": 4000, "max_chunks": 10}


class Script:
    """The fake model: one tool call per turn, cycling through four tools, then the answer."""

    def __init__(
        self,
        docs: list[dict[str, Any]],
        plants: list[Plant],
        span_ids: list[str],
        turns: int,
        seed: int,
    ) -> None:
        self.docs, self.plants, self.span_ids, self.turns = docs, plants, span_ids, turns
        self.rng = random.Random(seed)
        self.turn = 0
        self.errors = 0
        self.names: list[str] = []

    def __call__(self, request: ChatRequest) -> ChatResult:
        last = request.messages[-1]
        if last.role == "tool" and last.content.startswith('{"error"'):
            self.errors += 1
        self.turn += 1
        result = self.next_call()
        self.names.append(result.tool_calls[0].name)
        return result

    def next_call(self) -> ChatResult:
        if self.turn >= self.turns:
            return _reply("rlm_final_answer", {"answer": "42"})
        rng, doc = self.rng, self.rng.choice(self.docs)
        kind = self.turn % 4
        if kind == 1:
            key = rng.choice(self.plants).key if self.plants else "magic"
            return _reply("rlm_search_query", {"query": f"special magic number {key}"})
        if kind == 2:
            start = rng.randrange(max(doc["length_chars"] - 2000, 1))
            return _reply(
                "rlm_docs_peek", {"doc_id": doc["doc_id"], "start": start, "end": start + 2000}
            )
        if kind == 3:
            return _reply("rlm_chunk_create", {"doc_id": doc["doc_id"], **CHUNK})
        return _reply("rlm_span_get", {"span_ids": rng.sample(self.span_ids, 2)})


def _reply(name: str, arguments: dict[str, Any]) -> ChatResult:
    return ChatResult(
        tool_calls=[ToolCall(name=name, arguments=arguments)],
        model="fake",
        provider="fake",
        usage=Usage(input_tokens=100, output_tokens=20),
    )


class TimedFake(FakeProvider):
    """Records when each model call starts and ends; keeps no requests."""

    def __init__(self, script: Script) -> None:
        super().__init__(script=script)
        self.calls: list[tuple[float, float]] = []
        self.cpu_s = 0.0

    async def chat(self, request: ChatRequest) -> ChatResult:
        started, cpu = time.perf_counter(), time.process_time()
        result = await super().chat(request)
        self.requests.clear()
        self.cpu_s += time.process_time() - cpu
        self.calls.append((started, time.perf_counter()))
        return result


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def setup(args: argparse.Namespace, corpus: Path, data_dir: Path) -> dict[str, Any]:
    runtime = Runtime(data_dir=data_dir, profile="unrestricted")
    invoke = runtime.registry.invoke
    out = (await invoke("rlm_session_create", {"max_tool_calls": MAX_TOOL_CALLS_LIMIT},
                        runtime.context())).output
    ctx = runtime.context(out["session_id"])
    source = {"type": "directory", "path": str(corpus), "recursive": True}
    docs = (await invoke("rlm_docs_load", {"sources": [source]}, ctx)).output["loaded"]
    await invoke("rlm_search_query", {"query": "special magic number"}, ctx)  # builds the index
    span_ids = []
    for doc in docs[:5]:
        listed = await invoke("rlm_chunk_create", {"doc_id": doc["doc_id"], **CHUNK}, ctx)
        span_ids += [s["span_id"] for s in listed.output["spans"]]
    info = runtime.catalog.model("fake", "fake")
    if args.num_ctx:
        info = info.model_copy(update={"num_ctx": args.num_ctx})
    plan = TierPlan(tiers=[Tier(provider="fake", model="fake", info=info)], source="model")
    return {
        "runtime": runtime,
        "session_id": ctx.session_id,
        "docs": docs,
        "span_ids": span_ids,
        "plan": plan,
        "catalogued": info.catalogued,
        "num_ctx": info.num_ctx,
    }


async def one_run(
    env: dict[str, Any], plants: list[Plant], turns: int, seed: int, max_depth: int
) -> dict[str, Any]:
    script = Script(env["docs"], plants, env["span_ids"], turns, seed)
    provider = TimedFake(script)
    options = QueryOptions(
        provider="fake",
        model="fake",
        max_depth=max_depth,
        max_iterations=min(turns + 1, 200),
        max_tool_calls=10**6,
    )
    rc = build_run(
        env["runtime"],
        env["session_id"],
        env["plan"],
        options,
        ProviderPool(overrides={"fake": provider}),
    )
    limits = BudgetLimits(
        max_sub_calls=10**6, max_tool_calls=10**6, max_prompt_chars=10**12, max_wall_s=10**6
    )
    rc = rc.with_settings(max_iterations=turns + 1).derive(budget=Budget(limits))
    state = RecursionState(depth=0, max_depth=max_depth)
    system = ROOT_SYSTEM.format(overview=f"{len(env['docs'])} documents")
    started, cpu = time.perf_counter(), time.process_time()
    answer = await run_agent(rc, state, system, "What is the special magic number?")
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    if answer.stopped != "answer" or answer.iterations != turns or script.errors:
        raise SystemExit(f"run went wrong: {answer}, {script.errors} tool errors")
    calls = provider.calls
    # Gap i: from the end of model call i-1 to the start of call i (one tool turn).
    gaps = [(b[0] - a[1]) * 1000 for a, b in pairwise(calls)]
    model_s = sum(end - start for start, end in calls)
    return {
        "wall_s": wall,
        "model_s": model_s,
        "turns": len(calls),
        "gaps_ms": gaps,
        "runner_cpu_s": cpu - provider.cpu_s,
        "tools": script.names[: len(gaps)],
    }


async def run(
    args: argparse.Namespace, corpus: Path, plants: list[Plant], data_dir: Path
) -> dict[str, Any]:
    env = await setup(args, corpus, data_dir)
    await one_run(env, plants, min(args.turns, 10), args.seed, args.max_depth)  # warm-up
    profiler = cProfile.Profile() if args.profile else None
    results = []
    if profiler:
        profiler.enable()
    for r in range(args.runs):
        results.append(await one_run(env, plants, args.turns, args.seed + r, args.max_depth))
    if profiler:
        profiler.disable()
        stats = pstats.Stats(profiler, stream=sys.stderr)
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumtime").print_stats(40)
    env["runtime"].close()
    gaps = [g for res in results for g in res["gaps_ms"]]
    turns = sum(res["turns"] for res in results)
    runner_ms = sum(res["wall_s"] - res["model_s"] for res in results) * 1000
    by_turn = [[res["gaps_ms"][i] for res in results] for i in range(args.turns - 1)]
    tenth = max(len(by_turn) // 10, 1)
    per_tool: dict[str, list[float]] = {}
    for res in results:
        for name, gap in zip(res["tools"], res["gaps_ms"], strict=True):
            per_tool.setdefault(name, []).append(gap)
    return {
        "chars": sum(d["length_chars"] for d in env["docs"]),
        "runs": args.runs,
        "turns_per_run": args.turns,
        "model_turns": turns,
        "num_ctx": env["num_ctx"],
        "catalogued": env["catalogued"],
        "max_depth": args.max_depth,
        "runner_ms_per_turn": runner_ms / turns,
        "runner_cpu_ms_per_turn": sum(res["runner_cpu_s"] for res in results) * 1000 / turns,
        "turn_p50_ms": statistics.median(gaps),
        "turn_mean_ms": statistics.fmean(gaps),
        "turn_p95_ms": pct(gaps, 0.95),
        "first_tenth_mean_ms": statistics.fmean(g for col in by_turn[:tenth] for g in col),
        "last_tenth_mean_ms": statistics.fmean(g for col in by_turn[-tenth:] for g in col),
        "model_ms_per_turn": sum(res["model_s"] for res in results) * 1000 / turns,
        "per_tool_p50_ms": {k: statistics.median(v) for k, v in sorted(per_tool.items())},
        "per_tool_mean_ms": {k: statistics.fmean(v) for k, v in sorted(per_tool.items())},
        "target_ms": TARGET_MS,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chars", type=int, default=20_000_000)
    ap.add_argument("--files", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--corpus", type=Path, help="use this folder instead of generating one")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--turns", type=int, default=50, help="model turns per run, answer included")
    ap.add_argument(
        "--num-ctx",
        type=int,
        default=32768,
        help="model window in tokens (default 32768, like qwen3:8b; 0: the catalog's, 8192 for"
        " the uncatalogued fake model)",
    )
    ap.add_argument("--max-depth", type=int, default=1, help="1 offers the sub-query tools")
    ap.add_argument("--profile", action="store_true", help="cProfile the runs (to stderr)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.turns < 2:
        raise SystemExit("--turns must be at least 2")
    with tempfile.TemporaryDirectory(prefix="rlm-loop-") as tmp:
        if args.corpus:
            corpus, plants = args.corpus, scan_plants(args.corpus)
        else:
            corpus = Path(tmp) / "corpus"
            plants = generate(corpus, args.chars, args.files, args.seed)
        f = asyncio.run(run(args, corpus, plants, Path(tmp) / "data"))
    f["meets_target"] = f["turn_p50_ms"] < TARGET_MS and f["runner_ms_per_turn"] < TARGET_MS
    if args.json:
        print(json.dumps(f))
        return
    print(
        f"{f['runs']} runs x {f['turns_per_run']} turns = {f['model_turns']} fake-model turns"
        f" on {f['chars']:,} chars; window {f['num_ctx']} tokens"
        f" ({'catalogued' if f['catalogued'] else 'uncatalogued'} model), max_depth"
        f" {f['max_depth']}"
    )
    ok = "ok" if f["meets_target"] else "MISSED"
    print(
        f"  runner time per turn, (wall - model) / turns  {f['runner_ms_per_turn']:8.3f} ms"
        f"   < {TARGET_MS:g}  {ok}"
    )
    print(
        f"  runner CPU time per turn (robust to a busy box) {f['runner_cpu_ms_per_turn']:6.3f} ms"
    )
    print(
        f"  per tool turn: p50 {f['turn_p50_ms']:.3f} ms, mean {f['turn_mean_ms']:.3f} ms,"
        f" p95 {f['turn_p95_ms']:.3f} ms"
    )
    print(
        f"  history growth: mean of the first tenth of turns {f['first_tenth_mean_ms']:.3f}"
        f" ms, last tenth {f['last_tenth_mean_ms']:.3f} ms"
    )
    print(f"  model (fake provider) time per turn           {f['model_ms_per_turn']:8.3f} ms")
    for name, p50 in f["per_tool_p50_ms"].items():
        print(
            f"  turns calling {name:<18} p50 {p50:7.3f} ms, mean"
            f" {f['per_tool_mean_ms'][name]:7.3f} ms"
        )


if __name__ == "__main__":
    main()

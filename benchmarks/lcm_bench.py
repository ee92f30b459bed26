#!/usr/bin/env python
"""LCM numbers: token reduction by compaction, assembly time, and the agent's fixed prompt.

    python benchmarks/lcm_bench.py              # all three, printed
    python benchmarks/lcm_bench.py --json

1. Reduction: the fixture conversations of the acceptance tests (50, 60, 120 turns; the
   scaled-down knobs and the default ones), assembled tokens before and after a manual
   compaction with the model-free extractive summariser.
2. Assembly: one turn's `ContextAssembler.assemble` on a 1,000-message conversation (raw, and
   compacted), under an 8,192-token budget; median and p95 of 200 calls, real SQLite on disk.
   CPU time is shown too: on a shared machine it is steadier than wall time.
3. Fixed prompt: the agent strategy's system text plus the turn's tool menu, counted by the
   embedded model's own tokenizer (llama.cpp, when the `local` extra is installed) and by
   the loop's 3-characters-per-token rule, for the first turn, a turn with look-back tools,
   and the largest menu a turn can get.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from lcm_fixtures import build_conversation, small_config

from rlm_recursive.lcm import LcmConfig


def reduction() -> list[dict[str, Any]]:
    rows = []
    for turns, config, label in [(50, small_config(), "scaled"), (60, small_config(), "scaled"),
                                 (120, small_config(), "scaled"), (120, LcmConfig(), "default"),
                                 (300, LcmConfig(), "default")]:
        with tempfile.TemporaryDirectory() as folder:
            lcm, cid, _ = build_conversation(Path(folder), turns, config=config)
            before = lcm.assembler.assemble(cid, 10**9).token_estimate
            result = asyncio.run(lcm.compaction.compact(cid))
            after = lcm.assembler.assemble(cid, 10**9).token_estimate
            rows.append({"turns": turns, "knobs": label, "before": before, "after": after,
                         "reduction_pct": round(100 * (1 - after / before), 1),
                         "leaf": len(result.leaf_ids), "condensed": len(result.condensed_ids)})
            lcm.close()
    return rows


def assembly(messages: int = 1000, calls: int = 200) -> dict[str, Any]:
    out: dict[str, Any] = {"messages": messages}
    with tempfile.TemporaryDirectory() as folder:
        lcm, cid, _ = build_conversation(Path(folder), messages, config=LcmConfig())
        for label in ("raw", "compacted"):
            if label == "compacted":
                asyncio.run(lcm.compaction.compact(cid))
            times, cpu = [], []
            for _ in range(calls):
                started, cpu_started = time.perf_counter(), time.process_time()
                lcm.assembler.assemble(cid, 8192, system="You are helpful.",
                                       query="Which container for the Rotterdam order?")
                times.append((time.perf_counter() - started) * 1000)
                cpu.append((time.process_time() - cpu_started) * 1000)
            times.sort()
            out[label] = {"median_ms": round(statistics.median(times), 3),
                          "p95_ms": round(times[int(0.95 * len(times))], 3),
                          "cpu_median_ms": round(statistics.median(cpu), 3),
                          "context_items": len(lcm.store.get_context_items(cid))}
        lcm.close()
    return out


def fixed_prompt() -> dict[str, Any]:
    from rlm_recursive.agent.loop import FINAL_ANSWER, LOOKBACK_TOOLS
    from rlm_recursive.agent.strategies.agent import ROOT_SYSTEM
    from rlm_recursive.agent.tool_menu import terse
    from rlm_recursive.agent.toolset import full_registry

    counter, tokenizer = None, "3 chars/token"
    try:
        from rlm_recursive.providers.embedded import EmbeddedProvider

        provider = EmbeddedProvider()
        counter, tokenizer = provider.count_tokens, "smollm2 (llama.cpp)"
    except Exception:  # the `local` extra is optional
        pass
    registry = full_registry()
    system = ROOT_SYSTEM.format(overview="1 documents, 120,000 characters.\n"
                                         "- doc_0123456789ab: corpus/report.txt (120,000 chars)")
    first = ["rlm_search_query", "rlm_docs_peek", "rlm_chunk_create", "rlm_artifact_store",
             "rlm_sub_query"]
    lookback = ["rlm_search_query", "rlm_docs_peek", "rlm_chunk_create", "rlm_sub_query",
                *LOOKBACK_TOOLS]
    largest = ["rlm_docs_list", *lookback, "rlm_span_get", "rlm_sub_query_batch"]
    menus: dict[str, Any] = {"tokenizer": tokenizer}
    old = ["rlm_docs_list", "rlm_docs_peek", "rlm_search_query", "rlm_chunk_create",
           "rlm_span_get", "rlm_artifact_store", "rlm_sub_query", "rlm_sub_query_batch"]
    for label, names, shorten in [("before (9 full schemas)", old, False),
                                  ("first turn", first, True), ("with look-back", lookback, True),
                                  ("largest menu", largest, True)]:
        defs = registry.tool_defs(for_model=True, names=names)
        defs = [*(terse(defs) if shorten else defs), FINAL_ANSWER]
        rendered = json.dumps([{"type": "function", "function": {
            "name": d.name, "description": d.description, "parameters": d.parameters}}
            for d in defs])
        chars = len(system) + len(rendered)
        tokens = (counter(system) + counter(rendered)) if counter else round(chars / 3)
        menus[label] = {"tools": len(defs), "chars": chars, "tokens": tokens,
                        "tokens_at_3_chars": round(chars / 3)}
    return menus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = {"reduction": reduction(), "assembly": assembly(), "fixed_prompt": fixed_prompt()}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print("compaction (assembled tokens, before -> after):")
    for r in report["reduction"]:
        print(f"  {r['turns']:4} turns, {r['knobs']:7} knobs: {r['before']:6} -> {r['after']:6}"
              f"  (-{r['reduction_pct']}%, {r['leaf']} leaf, {r['condensed']} condensed)")
    a = report["assembly"]
    print(f"assembly at {a['messages']} messages, 8192-token budget:")
    for label in ("raw", "compacted"):
        print(f"  {label:9}: median {a[label]['median_ms']} ms, p95 {a[label]['p95_ms']} ms, "
              f"CPU median {a[label]['cpu_median_ms']} ms "
              f"({a[label]['context_items']} context items)")
    f = report["fixed_prompt"]
    print(f"fixed prompt (system + tool menu), tokens by {f['tokenizer']}:")
    for label, row in f.items():
        if isinstance(row, dict):
            print(f"  {label:24}: {row['tools']:2} tools, {row['tokens']:5} tokens "
                  f"({row['chars']} chars)")


if __name__ == "__main__":
    main()

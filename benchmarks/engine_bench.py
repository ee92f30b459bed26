"""Benchmark the search engine on a deterministic synthetic corpus.

    python benchmarks/engine_bench.py --chars 50000000

Builds a PassageIndex over ~100 generated documents (Zipf-distributed pseudo-words in
sentences and paragraphs, plus planted sentences), then prints build time, peak RSS,
BM25 search latency (highlight included), top-hit accuracy on the planted sentences, and
regex/literal scan times. The corpus is first written to temporary files and streamed
from them into the build, so build time and peak RSS exclude generating it.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import string
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

from rlm_recursive.corpus.scan import literal_search, regex_search
from rlm_recursive.corpus.search import PassageIndex

VOCAB_SIZE = 3000
CONTEXT = 200  # the tool layer shows ±200 chars around a highlight


@dataclass(frozen=True)
class Plant:
    doc_id: str
    sentence: str
    query: str
    kind: str  # "key": a unique token in the query; "rare": only rare vocabulary words


def _vocab(rng: random.Random) -> list[str]:
    words: set[str] = set()
    while len(words) < VOCAB_SIZE:
        words.add("".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 10))))
    return sorted(words)


def _plants(rng: random.Random, vocab: list[str], n_docs: int, n: int) -> list[Plant]:
    rare = vocab[2000:]  # the Zipf tail: each word is seldom in the corpus
    plants = []
    for i in range(n):
        doc_id = f"doc-{rng.randrange(n_docs):04d}.txt"
        if i % 2 == 0:
            key = "zq" + "".join(rng.choices(string.ascii_lowercase, k=6))
            sentence = f"The special magic number for {key} is {rng.randrange(10**6)}."
            query = rng.choice(
                [
                    f"{key} magic number",
                    f"special magic number {key}",
                    f"What is the special magic number for {key}?",
                    key,
                ]
            )
            plants.append(Plant(doc_id, sentence, query, "key"))
        else:
            w = rng.sample(rare, 4)
            sentence = f"Remember that {w[0]} {w[1]} met {w[2]} near the {w[3]}."
            query = " ".join(rng.sample(w, rng.randint(3, 4)))
            plants.append(Plant(doc_id, sentence, query, "rare"))
    return plants


def corpus(chars: int, n_docs: int, seed: int) -> tuple[list[Plant], Iterator[tuple[str, str]]]:
    """The planted sentences and a generator of (doc_id, text), the same for a given seed."""
    rng = random.Random(seed)
    vocab = _vocab(rng)
    cum = list(accumulate(1.0 / (rank + 1) for rank in range(len(vocab))))
    plants = _plants(rng, vocab, n_docs, 200)
    per_doc = chars // n_docs

    def docs() -> Iterator[tuple[str, str]]:
        for d in range(n_docs):
            doc_id = f"doc-{d:04d}.txt"
            drng = random.Random(f"{seed}-{d}")
            words = drng.choices(vocab, cum_weights=cum, k=per_doc // 6 + 64)
            # Each plant goes in at a uniformly random offset, replacing one filler sentence.
            mine = sorted(
                (drng.randrange(per_doc), p.sentence) for p in plants if p.doc_id == doc_id
            )
            sentences: list[str] = []
            size = pos = 0
            while size < per_doc or mine:
                k = drng.randint(6, 18)
                chunk = words[pos : pos + k] if pos + k <= len(words) else words[:k]
                pos = pos + k if pos + k <= len(words) else 0
                s = " ".join(chunk).capitalize() + "."
                if mine and size >= mine[0][0]:
                    s = mine.pop(0)[1]
                sentences.append(s + ("\n\n" if drng.random() < 0.2 else " "))
                size += len(sentences[-1])
            yield doc_id, "".join(sentences)

    return plants, docs()


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chars", type=int, default=20_000_000)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--path", type=Path, default=None, help="index folder (default: a temp dir)")
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    folder = Path(tmp.name) / "docs"
    folder.mkdir()
    path = args.path or Path(tmp.name) / "index"

    t0 = time.perf_counter()
    plants, stream = corpus(args.chars, args.docs, args.seed)
    for doc_id, text in stream:
        (folder / doc_id).write_text(text, encoding="utf-8")
    print(
        f"corpus: {args.chars:,} chars in {args.docs} files, seed {args.seed} "
        f"(generated in {time.perf_counter() - t0:.1f} s)"
    )

    def read_docs() -> Iterator[tuple[str, str]]:
        # Streamed from disk, one file at a time, as the tool layer streams from its store.
        for f in sorted(folder.iterdir()):
            yield f.name, f.read_text(encoding="utf-8")

    rss_before = _rss_mb()
    index = PassageIndex(path)
    t0 = time.perf_counter()
    passages = index.add_documents(read_docs())
    build = time.perf_counter() - t0
    rss_build = _rss_mb()
    size_mb = sum(f.stat().st_size for f in path.iterdir()) / 1e6
    print(
        f"build: {build:.2f} s (reading files, splitting, indexing, commit), "
        f"{passages:,} passages, index {size_mb:.1f} MB on disk"
    )
    print(f"peak RSS after build: {rss_build:.0f} MB (before build: {rss_before:.0f} MB)")

    texts = dict(read_docs())
    located = {}
    for p in plants:
        at = texts[p.doc_id].find(p.sentence)
        assert at >= 0, p
        located[p.sentence] = at

    def run(text_of: bool) -> tuple[list[float], dict[str, list[bool]]]:
        lat: list[float] = []
        ok: dict[str, list[bool]] = {"passage": [], "highlight": []}
        for p in plants:
            t = time.perf_counter()
            hits, _ = index.search(p.query, 10, text_of=texts.__getitem__ if text_of else None)
            lat.append((time.perf_counter() - t) * 1000)
            s0 = located[p.sentence]
            s1 = s0 + len(p.sentence)
            top = hits[0] if hits else None
            in_passage = bool(top and top.doc_id == p.doc_id and top.start <= s0 and s1 <= top.end)
            mid = (top.highlight_start + top.highlight_end) // 2 if top else 0
            ok["passage"].append(in_passage)
            ok["highlight"].append(in_passage and mid - CONTEXT <= s0 and s1 <= mid + CONTEXT)
        return lat, ok

    run(True)  # warm the page cache and the searcher
    results = {}
    for label, text_of in (("with highlight", True), ("no highlight", False)):
        lat, results[label] = run(text_of)
        print(
            f"search {label}: p50 {statistics.median(lat):.3f} ms, p95 {_pct(lat, 0.95):.3f} ms"
            f", max {max(lat):.3f} ms over {len(lat)} queries"
        )
    # Worst case: every term among the 50 most frequent words (each in most passages).
    common = _vocab(random.Random(args.seed))[:50]
    qrng = random.Random(args.seed)
    lat = []
    for _ in range(100):
        query = " ".join(qrng.sample(common, qrng.randint(2, 4)))
        t = time.perf_counter()
        index.search(query, 10, text_of=texts.__getitem__)
        lat.append((time.perf_counter() - t) * 1000)
    print(
        f"search, worst case (all terms very common), with highlight: p50 "
        f"{statistics.median(lat):.3f} ms, p95 {_pct(lat, 0.95):.3f} ms over {len(lat)} queries"
    )
    ok = results["with highlight"]
    for kind in ("key", "rare"):
        idx = [i for i, p in enumerate(plants) if p.kind == kind]
        pas = sum(ok["passage"][i] for i in idx)
        hl = sum(ok["highlight"][i] for i in idx)
        print(
            f"accuracy ({kind} queries, n={len(idx)}): top passage holds the sentence {pas}/"
            f"{len(idx)}, ±{CONTEXT} around highlight holds it {hl}/{len(idx)}"
        )

    items = list(texts.items())
    t = time.perf_counter()
    _, n = literal_search(items, "special magic", 10, max_count=10**9)
    print(f"literal scan (case-insensitive): {time.perf_counter() - t:.2f} s, {n} matches")
    t = time.perf_counter()
    _, n = regex_search(items, r"magic number for zq\w+", 10, timeout_s=30)
    print(f"regex scan: {time.perf_counter() - t:.2f} s, {n} matches")
    print(f"peak RSS overall: {_rss_mb():.0f} MB")
    index.close()
    tmp.cleanup()


if __name__ == "__main__":
    main()

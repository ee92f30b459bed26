"""The search engine: passages, BM25 over a real tantivy index, regex and literal scans."""

from __future__ import annotations

import random
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlm_recursive import errors
from rlm_recursive.corpus.scan import literal_search, regex_search
from rlm_recursive.corpus.search import Hit, PassageIndex, split_passages

_WORD_TEXT = (
    "river stone lamp orchard window copper meadow harbor lantern violet engine candle "
    "thunder pebble garden mirror saddle basket compass feather marble valley"
)
WORDS = _WORD_TEXT.split()
PLANT = "The special magic number for the ledger is 7342."


def filler(seed: int, chars: int) -> str:
    """Deterministic prose-like text: sentences of common words, some paragraph breaks."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < chars:
        s = " ".join(rng.choices(WORDS, k=rng.randint(5, 14))).capitalize() + "."
        s += "\n\n" if rng.random() < 0.15 else " "
        parts.append(s)
        size += len(s)
    return "".join(parts)


def planted(seed: int, chars: int, sentence: str = PLANT) -> tuple[str, int]:
    """Filler with `sentence` inserted at a sentence boundary near the middle."""
    text = filler(seed, chars)
    at = text.index(". ", chars // 2) + 2
    return text[:at] + sentence + " " + text[at:], at


@pytest.fixture
def corpus() -> dict[str, str]:
    docs = {f"doc{i}.txt": filler(i, 20_000) for i in range(5)}
    docs["needle.txt"], _ = planted(99, 20_000)
    return docs


@pytest.fixture
def index(tmp_path: Path, corpus: dict[str, str]) -> PassageIndex:
    ix = PassageIndex(tmp_path / "idx")
    ix.add_documents(corpus.items())
    return ix


# -- split_passages ---------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from("ab .!?\n\t\u00e9\u6771\U0001f600"), max_size=3000),
    target=st.integers(min_value=1, max_value=400),
)
def test_passages_cover_text_exactly(text: str, target: int) -> None:
    spans = split_passages(text, target)
    assert "".join(text[s:e] for s, e in spans) == text
    pos = 0
    for i, (s, e) in enumerate(spans):
        assert s == pos and s < e <= s + target
        if i < len(spans) - 1:
            assert e - s > target // 2  # never a sliver, except possibly the last
        pos = e
    assert pos == len(text)


def test_passages_prefer_paragraph_then_sentence_boundaries() -> None:
    para1 = "word " * 120 + "end.\n\n"  # 606 chars
    text = para1 + "more " * 200
    spans = split_passages(text, 1000)
    assert spans[0] == (0, len(para1))

    sentences = "Alpha beta gamma. " * 80  # no newline at all
    first_end = split_passages(sentences, 1000)[0][1]
    assert sentences[:first_end].endswith(". ")
    assert first_end > 500


def test_passages_of_empty_text_and_bad_target() -> None:
    assert split_passages("") == []
    with pytest.raises(errors.InvalidArgs):
        split_passages("abc", 0)


# -- BM25 -----------------------------------------------------------------------------------


def test_planted_sentence_is_top_hit_with_highlight(
    index: PassageIndex, corpus: dict[str, str]
) -> None:
    text = corpus["needle.txt"]
    s0 = text.index(PLANT)
    s1 = s0 + len(PLANT)
    hits, total = index.search("special magic number ledger", 5, text_of=corpus.__getitem__)
    top = hits[0]
    assert top.doc_id == "needle.txt"
    assert top.start <= s0 and s1 <= top.end
    assert text[top.highlight_start : top.highlight_end] == PLANT
    mid = (top.highlight_start + top.highlight_end) // 2
    assert mid - 200 <= s0 and s1 <= mid + 200
    assert total == 1  # no filler passage has any of these words
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_highlight_picks_densest_sentence_not_first_match(tmp_path: Path) -> None:
    text = (
        "A magic trick opened the show. Nothing else happened here. "
        "The special magic number for the ledger is 12. Then the lights went out."
    )
    ix = PassageIndex(tmp_path / "idx")
    ix.add_documents([("d", text)])
    (hit,), _ = ix.search("special magic number ledger", text_of={"d": text}.__getitem__)
    assert text[hit.highlight_start : hit.highlight_end] == (
        "The special magic number for the ledger is 12."
    )


def test_without_text_of_highlight_is_the_passage(index: PassageIndex) -> None:
    hits, _ = index.search("ledger", 3)
    assert hits and all((h.highlight_start, h.highlight_end) == (h.start, h.end) for h in hits)


def test_search_ranks_passages_not_whole_files(index: PassageIndex) -> None:
    hits, total = index.search("lantern", 50)
    assert total > 50 and len(hits) == 50  # many passages match a filler word
    assert all(h.end - h.start <= 1000 for h in hits)
    assert len({h.doc_id for h in hits}) > 1
    assert len({(h.doc_id, h.start) for h in hits}) == 50


def test_doc_ids_filter(index: PassageIndex) -> None:
    all_hits, all_total = index.search("lantern compass", 100)
    hits, total = index.search("lantern compass", 100, doc_ids=["doc2.txt", "needle.txt"])
    assert hits and {h.doc_id for h in hits} <= {"doc2.txt", "needle.txt"}
    assert 0 < total < all_total
    # Filtering keeps BM25 scores as they were.
    scores = {(h.doc_id, h.start): h.score for h in all_hits}
    for h in hits:
        if (h.doc_id, h.start) in scores:
            assert h.score == pytest.approx(scores[(h.doc_id, h.start)])
    assert index.search("special magic", 10, doc_ids=["doc0.txt"]) == ([], 0)
    assert index.search("lantern", 10, doc_ids=["nope"]) == ([], 0)
    assert index.search("lantern", 10, doc_ids=[]) == ([], 0)


def test_index_persists_across_reopen(tmp_path: Path, corpus: dict[str, str]) -> None:
    path = tmp_path / "idx"
    first = PassageIndex(path)
    added = first.add_documents(corpus.items())
    assert added == sum(len(split_passages(t)) for t in corpus.values())
    first.close()
    with pytest.raises(errors.InternalError):
        first.search("ledger")

    again = PassageIndex(path)
    assert again.indexed_doc_ids() == set(corpus)
    hits, _ = again.search("magic ledger")
    assert hits[0].doc_id == "needle.txt"


def test_incremental_add_is_found_and_known_ids_skipped(tmp_path: Path) -> None:
    ix = PassageIndex(tmp_path / "idx")
    assert ix.indexed_doc_ids() == set()
    assert ix.search("lantern") == ([], 0)
    ix.add_documents([("a.txt", filler(1, 5000))])
    text, _ = planted(2, 5000, "The zebra quartz protocol was signed at noon.")
    assert ix.add_documents(iter([("b.txt", text), ("a.txt", "ignored")])) > 0
    assert ix.indexed_doc_ids() == {"a.txt", "b.txt"}
    hits, total = ix.search("zebra quartz")
    assert total == 1 and hits[0].doc_id == "b.txt"
    assert ix.search("lantern", 100)[1] > 1  # a.txt is still searchable
    assert ix.add_documents([("a.txt", "zebra")]) == 0  # already indexed: skipped
    assert ix.search("zebra quartz")[1] == 1
    # Reopening sees the incremental add too.
    assert PassageIndex(tmp_path / "idx").indexed_doc_ids() == {"a.txt", "b.txt"}


def test_empty_document_counts_as_indexed(tmp_path: Path) -> None:
    ix = PassageIndex(tmp_path / "idx")
    assert ix.add_documents([("empty.txt", "")]) == 1
    assert ix.indexed_doc_ids() == {"empty.txt"}
    with pytest.raises(errors.InvalidArgs):
        ix.add_documents([("", "text")])


@pytest.mark.parametrize(
    "query",
    [
        '"special magic',
        "special: magic:",
        "(special AND magic) OR -number",
        "magic* ledger~2 ^3",
        "body:ledger doc_id:x",
        "[1 TO 2] {a TO b} special",
        '\\ + - && || ! ( ) { } [ ] ^ " ~ * ? : / ledger',
        "NOT ledger",
        "IN special",
    ],
)
def test_query_syntax_characters_do_not_crash(
    index: PassageIndex, corpus: dict[str, str], query: str
) -> None:
    hits, total = index.search(query, 5, text_of=corpus.__getitem__)
    assert total >= 1 and hits[0].doc_id == "needle.txt"


@pytest.mark.parametrize("query", ["", "   ", "!!! ??? :::", '"()"', "-*-"])
def test_empty_query_is_invalid(index: PassageIndex, query: str) -> None:
    with pytest.raises(errors.InvalidArgs):
        index.search(query)


def test_stopwords_are_dropped_unless_alone(tmp_path: Path) -> None:
    ix = PassageIndex(tmp_path / "idx")
    ix.add_documents([("a", "the cat is here."), ("b", "what is the ledger about?")])
    hits, total = ix.search("what is the ledger")
    assert total == 1 and hits[0].doc_id == "b"
    assert ix.search("the is", 10)[1] == 2  # only stopwords: they are kept
    with pytest.raises(errors.InvalidArgs):
        ix.search("ledger", limit=0)


# -- regex and literal --------------------------------------------------------------------------


def test_regex_offsets_are_str_indices_on_non_ascii() -> None:
    docs = [
        ("a", "😀😀 x=42, naïve café: x=7"),
        ("b", "東京 x=1000\nline two"),
    ]
    hits, total = regex_search(docs, r"x=\d+", 10)
    texts = dict(docs)
    assert total == 3
    assert [(h.doc_id, texts[h.doc_id][h.start : h.end]) for h in hits] == [
        ("a", "x=42"),
        ("a", "x=7"),
        ("b", "x=1000"),
    ]
    assert hits[0].start == 3  # two astral chars and a space: code points, not bytes/UTF-16
    assert all((h.highlight_start, h.highlight_end, h.score) == (h.start, h.end, 1.0) for h in hits)
    (cafe,), _ = regex_search(docs, r"CAF\w", 5, ignore_case=True)
    assert texts["a"][cafe.start : cafe.end] == "café"


def test_regex_limit_total_and_multiline() -> None:
    docs = [("d", "one\ntwo\nthree\nfour\nfive")]
    hits, total = regex_search(docs, r"^\w+$", 2)
    assert [docs[0][1][h.start : h.end] for h in hits] == ["one", "two"]
    assert total == 5
    assert regex_search(docs, r"^\w+$", 2, multiline=False) == ([], 0)
    assert regex_search(docs, r"\w+", 0, max_count=3) == ([], 3)


def test_pathological_regex_times_out() -> None:
    docs = [("d", "a" * 5000 + "b")]
    t = time.monotonic()
    with pytest.raises(errors.Timeout) as info:
        regex_search(docs, r"(a+)+$", 10, timeout_s=0.5)
    assert time.monotonic() - t < 3.0
    assert info.value.code == "timeout"


@pytest.mark.parametrize("pattern", ["(", "a)", "[a-", "[z-a]", "a**", "\\", r"\p{NoSuchProp}", ""])
def test_invalid_regex_is_invalid_args(pattern: str) -> None:
    with pytest.raises(errors.InvalidArgs):
        regex_search([("d", "abc")], pattern, 5)


def test_literal_search_case_insensitive_exact_offsets() -> None:
    text = "The Ledger, the LEDGER; ledgers. Ünïcode LeDgEr"
    hits, total = literal_search([("d", text)], "ledger", 10)
    assert total == 4
    assert [text[h.start : h.end] for h in hits] == ["Ledger", "LEDGER", "ledger", "LeDgEr"]
    assert hits[0].start == text.index("Ledger")
    exact, n = literal_search([("d", text)], "LEDGER", 10, case_sensitive=True)
    assert n == 1 and exact[0].start == text.index("LEDGER")


def test_literal_search_when_lowercasing_changes_length() -> None:
    # 'İ'.lower() is two code points: offsets must still index the original text.
    text = "İİ MAGIC word İ magic"
    hits, total = literal_search([("d", text)], "Magic", 10)
    assert total == 2
    assert [text[h.start : h.end] for h in hits] == ["MAGIC", "magic"]


def test_literal_search_limit_and_errors() -> None:
    docs = [("a", "x x x"), ("b", "x")]
    hits, total = literal_search(docs, "x", 2)
    assert total == 4 and [(h.doc_id, h.start) for h in hits] == [("a", 0), ("a", 2)]
    assert isinstance(hits[0], Hit)
    with pytest.raises(errors.InvalidArgs):
        literal_search(docs, "", 2)
    with pytest.raises(errors.InvalidArgs):
        literal_search(docs, "x", -1)


def test_index_is_usable_from_worker_threads(index: PassageIndex) -> None:
    # The tool layer runs searches via asyncio.to_thread: tantivy handles must not be
    # bound to the thread that opened them.
    with ThreadPoolExecutor(max_workers=2) as pool:
        found = list(pool.map(lambda q: index.search(q)[0][0].doc_id, ["magic ledger"] * 4))
        added = pool.submit(index.add_documents, [("late.txt", "a quokka appeared.")]).result()
    assert found == ["needle.txt"] * 4
    assert added == 1 and index.search("quokka")[0][0].doc_id == "late.txt"


STEMMED = {
    "net.md": "Backoff: the client retries a failed request three times, waiting longer "
              "each time.\n\nUnrelated: the lantern is copper.",
    "ops.md": "Logging: every request is logged once.\n\nThe meadow is green.",
    "api.md": "The retry budget is ten requests per minute.",
}


def test_stemmed_words_match_how_people_ask(tmp_path: Path):
    with PassageIndex(tmp_path / "ix") as index:
        index.add_documents(STEMMED.items())
        # "retry logic" finds "retries" (no exact "retry" there), highlighted on its sentence.
        hits, total = index.search("retry logic", text_of=STEMMED.get)
        by_doc = {h.doc_id: h for h in hits}
        assert total == 2 and set(by_doc) == {"net.md", "api.md"}
        net = by_doc["net.md"]
        assert STEMMED["net.md"][net.highlight_start:net.highlight_end].startswith(
            "Backoff: the client retries")
        # An exact word ranks above the same stem in another form.
        hits, _ = index.search("retry budget", text_of=STEMMED.get)
        assert hits[0].doc_id == "api.md"
        hits, _ = index.search("retrying", text_of=STEMMED.get)
        assert {h.doc_id for h in hits} == {"net.md", "api.md"}

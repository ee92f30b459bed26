"""Search engine over document texts: passage-level BM25 (tantivy). Scans live in scan.py.

Pure engine: it knows nothing of the store or the tools. Offsets everywhere are Python str
indices into the document text, so `text[hit.start:hit.end]` is the passage or the match.
"""

from __future__ import annotations

import contextlib
import fcntl
import math
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import tantivy
from tenacity import (
    RetryError,
    Retrying,
    retry_if_exception_type,
    stop_after_delay,
    wait_exponential,
)

from rlm_recursive import errors

from .highlight import highlight
from .passages import page_passages, split_passages
from .reading import reading_text

__all__ = ["Hit", "PassageIndex", "page_passages", "split_passages"]

# Writer memory is shared by its threads; 64 MB keeps a 50M-char build in a few segments
# while the whole process stays far under 200 MB. Two threads match the 2-core target box.
_WRITER_HEAP = 64_000_000
_WRITER_THREADS = 2
# How long a process waits for another one's index write before answering `conflict`.
_LOCK_WAIT_S = 30.0
# Our cross-process lock, taken before tantivy's own: tantivy fails at once when its writer
# lock is busy, and opening a new index from two processes races on meta.json.
_LOCK_FILE = ".rlm-index.lock"
# Dropped from queries unless nothing else is left (Lucene's English list + question words).
_STOPWORD_TEXT = (
    "a an and are as at be but by for if in into is it no not of on or such that the their"
    " then there these they this to was will with what which who whom where when why how"
    " do does did has have had were been"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@dataclass(frozen=True)
class Hit:
    """One result: a passage (BM25) or a match (regex/literal) inside a document."""

    doc_id: str
    start: int
    end: int
    score: float
    highlight_start: int
    highlight_end: int


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    # Body is indexed but not stored (the caller owns the text); BM25 needs frequencies only.
    sb.add_text_field("body", stored=False, tokenizer_name="default", index_option="freq")
    sb.add_text_field("doc_id", stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_unsigned_field("start", stored=True)
    sb.add_unsigned_field("end", stored=True)
    # "doc_id<TAB>content hash" on a document's first passage: what the index holds, read
    # back by `contents()` (corpus/index_cache.py keys the index by it).
    sb.add_text_field("doc_key", stored=False, tokenizer_name="raw", index_option="basic")
    return sb.build()


def _query_analyzer(stemmed: bool = False) -> tantivy.TextAnalyzer:
    # Same chain as tantivy's "default" tokenizer, so query tokens equal indexed terms; the
    # stemmed one adds tantivy's English (Snowball) stemmer.
    builder = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
    )
    if stemmed:
        builder = builder.filter(tantivy.Filter.stemmer("english"))
    return builder.build()


_FORM_BOOST = 0.5
"""Another form of a query word ("retries" for "retry") counts half as much as the word."""
_MAX_FORMS = 8
_MAX_CANDIDATES = 256
"""Words read from the dictionary per query word (the most frequent, when more begin so)."""
_MIN_STEM_PREFIX = 3
"""Shorter shared beginnings ("re") would walk much of the term dictionary."""


class PassageIndex:
    """Persistent tantivy BM25 index over passages of one session's documents.

    Documents are split with `split_passages`; each passage is a tantivy document holding
    doc_id, start and end (the body is indexed, not stored). Thread-safe: writes are
    serialised, searches use one cached searcher that is swapped after each add.
    """

    def __init__(self, path: Path, *, lock_wait_s: float = _LOCK_WAIT_S) -> None:
        """Open the index at path, creating it (and its folder) if absent.

        Another process writing the same index is waited for up to `lock_wait_s`, then
        Conflict (retryable) is raised.
        """
        path = Path(path)
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._path = path
        self._lock_wait_s = lock_wait_s
        self._schema = _schema()
        # Creating an index writes meta.json: two processes doing it at once race. An existing
        # index opens without waiting for a writer elsewhere.
        creating = not (path / "meta.json").exists()
        with self._process_lock() if creating else contextlib.nullcontext():
            try:
                self._index = tantivy.Index(self._schema, path=str(path), reuse=True)
            except (OSError, ValueError) as exc:
                raise errors.InternalError(f"cannot open search index at {path}: {exc}") from exc
            _private_files(path)
        # Manual reload: no file-watcher thread; we reload ourselves after our own commits.
        self._index.config_reader(reload_policy="Manual")
        self._analyzer = _query_analyzer()
        self._stemmer = _query_analyzer(stemmed=True)
        self._forms: dict[str, list[tuple[str, int]]] = {}
        """Query word → the indexed words of the same English stem, with their document
        counts; valid for the current searcher (cleared when it is swapped)."""
        self._lock = threading.Lock()
        self._searcher: tantivy.Searcher | None = self._index.searcher()

    def _live_searcher(self) -> tantivy.Searcher:
        if self._searcher is None:
            raise errors.InternalError("search index is closed")
        return self._searcher

    def indexed_doc_ids(self) -> set[str]:
        """Ids of every document already in the index."""
        return {term for term, _ in self._live_searcher().terms_with_prefix("doc_id", "")}

    def indexed_contents(self) -> dict[str, str]:
        """doc_id -> content hash of every document added with its hash."""
        terms = self._live_searcher().terms_with_prefix("doc_key", "")
        return dict(term.split("\t", 1) for term, _ in terms)

    def reload(self) -> None:
        """Search the index as it is on disk now (another process may have committed)."""
        with self._lock:
            self._refresh()

    def add_documents(
        self, docs: Iterable[tuple[str, str] | tuple[str, str, Sequence[int]]
                             | tuple[str, str, Sequence[int], str]],
        *, replace: bool = False,
    ) -> int:
        """Index (doc_id, text[, page breaks[, content hash]]) one at a time, commit once;
        return passages added.

        Passages never cross a page break. Ids already in the index are skipped (documents
        are immutable). An empty text is recorded as one empty passage so its id still counts
        as indexed. `replace` deletes every passage already there in the same commit (a
        rebuild: a reader sees the old index or the new one, never a mix).
        """
        with self._lock, self._process_lock():
            # Another process may have indexed some of these since our searcher was made:
            # only the index as it is now, under the lock, says what is missing.
            self._refresh()
            known = set() if replace else self.indexed_doc_ids()
            writer: tantivy.IndexWriter | None = None
            added = 0
            try:
                if replace:
                    writer = self._writer()
                    writer.delete_all_documents()
                for doc_id, text, *rest in docs:
                    if not doc_id:
                        raise errors.InvalidArgs("doc_id must be a non-empty string")
                    if doc_id in known:
                        continue
                    known.add(doc_id)
                    if writer is None:
                        writer = self._writer()
                    breaks = rest[0] if rest else ()
                    content_hash = rest[1] if len(rest) > 1 else None
                    # The words a reader sees (no troff or escaped HTML glued to them), at
                    # the text's own offsets.
                    seen = reading_text(text)
                    for start, end in page_passages(text, breaks) or [(0, 0)]:
                        doc = tantivy.Document()
                        doc.add_text("doc_id", doc_id)
                        if content_hash is not None:
                            doc.add_text("doc_key", f"{doc_id}\t{content_hash}")
                            content_hash = None  # the first passage carries it
                        doc.add_text("body", seen[start:end])
                        doc.add_unsigned("start", start)
                        doc.add_unsigned("end", end)
                        writer.add_document(doc)
                        added += 1
                if writer is not None:
                    writer.commit()
            except BaseException:
                if writer is not None:
                    writer.rollback()
                raise
            finally:
                if writer is not None:
                    writer.wait_merging_threads()  # also releases the directory lock
            if writer is not None:
                _private_files(self._path)
                self._refresh()
            return added

    def _refresh(self) -> None:
        self._live_searcher()  # raises if closed
        self._index.reload()
        self._searcher = self._index.searcher()
        self._forms = {}

    def _other_forms(self, searcher: tantivy.Searcher, term: str) -> list[tuple[str, int]]:
        """The indexed words sharing `term`'s English stem ("retries", "retried" for
        "retry"), most frequent first, with their document counts.

        Stemming at query time over the exact field's term dictionary: the index stays one
        field (a second, stemmed field tripled the indexing time). Candidates are the words
        that begin like the term and its stem, less the stem's last letter ("retr" for
        retries/retri), stemmed in one call.
        """
        cached = self._forms.get(term)
        if cached is not None:
            return cached
        stem = self._stemmer.analyze(term)
        forms: list[tuple[str, int]] = []
        if stem:
            shared = next((i for i, (a, b) in enumerate(zip(term, stem[0], strict=False))
                           if a != b), min(len(term), len(stem[0])))
            # One letter less than the stem: its last letter may differ in another form
            # ("retri" is the stem of retries and of retry).
            shared = min(shared, max(_MIN_STEM_PREFIX, len(stem[0]) - 1))
            if shared >= _MIN_STEM_PREFIX:
                words = [(w, n) for w, n in searcher.terms_with_prefix(
                    "body", term[:shared], limit=_MAX_CANDIDATES) if w != term]
                stems = self._stemmer.analyze(" ".join(w for w, _ in words)) if words else []
                if len(stems) == len(words):  # one token per indexed word, as indexed
                    forms = [pair for pair, s in zip(words, stems, strict=True)
                             if s == stem[0]][:_MAX_FORMS]
        self._forms[term] = forms
        return forms

    @contextlib.contextmanager
    def _process_lock(self) -> Iterator[None]:
        """Hold the index's cross-process write lock, waiting a bounded time for it."""
        fd = os.open(
            self._path / _LOCK_FILE, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600
        )
        try:
            try:
                for attempt in Retrying(
                    retry=retry_if_exception_type(BlockingIOError),
                    stop=stop_after_delay(self._lock_wait_s),
                    wait=wait_exponential(multiplier=0.01, max=0.25),
                ):
                    with attempt:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except RetryError:
                raise errors.Conflict(
                    f"another process has been writing the search index for over "
                    f"{self._lock_wait_s:g}s; try again when it has finished",
                    retryable=True,
                ) from None
            yield
        finally:
            os.close(fd)  # releases the lock

    def _writer(self) -> tantivy.IndexWriter:
        try:
            return self._index.writer(heap_size=_WRITER_HEAP, num_threads=_WRITER_THREADS)
        except ValueError as exc:  # every process takes _process_lock first, so not busy
            raise errors.InternalError(f"cannot write to the search index: {exc}") from exc

    def search(
        self,
        query: str,
        limit: int = 10,
        doc_ids: Sequence[str] | None = None,
        text_of: Callable[[str], str] | None = None,
    ) -> tuple[list[Hit], int]:
        """BM25 over passages, OR of the query's words; return (hits best-first, total matches).

        Query text is tokenised like the index (no query syntax), so any string is safe; one
        with no word raises InvalidArgs. English stopwords are dropped unless that would
        leave no term. `doc_ids` restricts the search to those documents.
        `text_of(doc_id)` returns a document's full text: when given, each hit's highlight
        is the sentence/line of its passage densest in (idf-weighted) query terms; without
        it the highlight is the whole passage. total counts every matching passage.
        """
        if limit < 1:
            raise errors.InvalidArgs("limit must be at least 1")
        terms = list(dict.fromkeys(self._analyzer.analyze(query)))
        if not terms:
            raise errors.InvalidArgs(f"search query has no searchable words: {query!r}")
        # Stopwords match nearly every passage: they add latency, not ranking signal.
        terms = [t for t in terms if t not in _STOPWORDS] or terms
        searcher = self._live_searcher()
        if searcher.num_docs == 0 or (doc_ids is not None and not doc_ids):
            return [], 0
        schema = self._schema
        # Each word, and at half weight the other indexed forms of its English stem:
        # "retry logic" finds "retries" too, and the exact word still ranks first.
        forms = {t: self._other_forms(searcher, t) for t in terms}
        clauses = []
        for t in terms:
            clauses.append(
                (tantivy.Occur.Should, tantivy.Query.term_query(schema, "body", t, "freq"))
            )
            clauses.extend(
                (tantivy.Occur.Should, tantivy.Query.boost_query(
                    tantivy.Query.term_query(schema, "body", form, "freq"), _FORM_BOOST))
                for form, _ in forms[t]
            )
        q = tantivy.Query.boolean_query(clauses)
        if doc_ids is not None:
            # Score 0 so the filter restricts without changing BM25 scores.
            only = tantivy.Query.term_set_query(schema, "doc_id", list(doc_ids))
            q = tantivy.Query.boolean_query(
                [
                    (tantivy.Occur.Must, q),
                    (tantivy.Occur.Must, tantivy.Query.const_score_query(only, 0.0)),
                ]
            )
        result = searcher.search(q, limit, count=True)
        weights: dict[str, float] = {}
        if text_of is not None:
            n = searcher.num_docs
            for t in terms:
                df = searcher.doc_freq("body", t)
                weights[t] = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
                for form, form_df in forms[t]:  # its other forms light the sentence up too
                    weights.setdefault(form, math.log(1.0 + (n - form_df + 0.5)
                                                      / (form_df + 0.5)))
            # Highlight on the informative terms: a term in most passages would only add
            # work and pull the window towards filler.
            top = max(weights.values())
            weights = {t: w for t, w in weights.items() if w >= 0.25 * top}
        texts: dict[str, str] = {}
        hits: list[Hit] = []
        for score, address in result.hits:
            stored = searcher.doc(address)
            doc_id = stored.get_first("doc_id")
            start, end = stored.get_first("start"), stored.get_first("end")
            hl_start, hl_end = start, end
            if text_of is not None:
                if doc_id not in texts:
                    texts[doc_id] = reading_text(text_of(doc_id))
                window = highlight(texts[doc_id][start:end], weights)
                if window is not None:
                    hl_start, hl_end = start + window[0], start + window[1]
            hits.append(Hit(doc_id, start, end, float(score), hl_start, hl_end))
        return hits, int(result.count or 0)

    def close(self) -> None:
        """Drop the searcher and index handles; later calls raise InternalError."""
        with self._lock:
            self._searcher = None
            self._index = None  # type: ignore[assignment]  # frees mmaps; guarded by _searcher

    def __enter__(self) -> PassageIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _private_files(folder: Path) -> None:
    """Index files hold the documents' vocabulary: make them 0600 (tantivy uses the umask)."""
    with os.scandir(folder) as entries:
        for entry in entries:
            with contextlib.suppress(FileNotFoundError):  # a merge may delete one meanwhile
                if entry.is_file(follow_symlinks=False) and entry.stat().st_mode & 0o077:
                    os.chmod(entry.path, 0o600)

"""The search index as a per-process cache keyed by the session's content
(`corpus/index_cache.py`, `tools/search.py`): real tantivy, real stores, no mocks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rlm_recursive.config import SessionConfig
from rlm_recursive.corpus.index_cache import content_key, index_folder, sync
from rlm_recursive.corpus.search import PassageIndex
from rlm_recursive.store import Store
from rlm_recursive.tools.search import search_session


def _add(store: Store, session_id: str, text: str) -> str:
    return store.add_document(session_id, text.encode(), length_chars=len(text),
                              source="x.txt", source_type="file").id


def _hits(store: Store, session_id: str, query: str) -> tuple[int, bool]:
    """(total matches, whether the index changed for this search)."""
    _, total, built, _ = search_session(store, session_id, query)
    return total, built


def _contents(store: Store, session_id: str) -> dict[str, str]:
    return {d.id: d.content_hash for d in store.documents(session_id)}


@pytest.fixture
def stores(data_dir: Path, database_url: str | None) -> Iterator[tuple[Store, Store]]:
    """Two processes' stores on one data dir, on each backend (two data dirs: below)."""
    first, second = Store(data_dir), Store(data_dir)
    yield first, second
    first.close()
    second.close()


def test_documents_added_by_another_process_reach_a_cached_index(
    stores: tuple[Store, Store],
) -> None:
    loader, searcher = stores
    sid = loader.create_session("s", SessionConfig())["session_id"]
    _add(loader, sid, "the apples are stored in the north barn")
    assert _hits(searcher, sid, "apples") == (1, True)  # built, and cached in `searcher`
    assert _hits(searcher, sid, "apples") == (1, False)
    _add(loader, sid, "the bananas ripen in the south shed")
    assert _hits(searcher, sid, "bananas") == (1, True)  # extended, not served stale
    key = searcher.indexes[sid].key
    assert key == content_key(_contents(loader, sid)) and len(key) == 64
    # The loader's own first search finds the index on disk already holds both documents.
    assert _hits(loader, sid, "bananas apples") == (2, False)
    assert loader.indexes[sid].key == key


def test_a_store_whose_content_differs_from_the_index_rebuilds_it(
    stores: tuple[Store, Store],
) -> None:
    """The shared store was restored, or this data dir's index was built from another one:
    a document's content hash differs from what the index holds. It is rebuilt, never
    served: the old words are gone and the new ones found."""
    loader, searcher = stores
    sid = loader.create_session("s", SessionConfig())["session_id"]
    doc_id = _add(loader, sid, "the apples are stored in the north barn")
    _add(loader, sid, "a second, unchanged document about pears")
    assert _hits(searcher, sid, "apples") == (1, True)
    index = searcher.indexes[sid].index
    changed = "the cherries are stored in the west cellar"
    new_hash = loader.blobs.put(changed.encode())
    loader.sql.execute("UPDATE documents SET content_hash = ?, length_chars = ? WHERE id = ?",
                      (new_hash, len(changed), doc_id))
    loader.sql.execute("UPDATE sessions SET docs_version = docs_version + 1 WHERE id = ?",
                      (sid,))
    assert _hits(searcher, sid, "apples") == (0, True)
    assert _hits(searcher, sid, "cherries pears") == (2, False)
    assert index.indexed_contents() == _contents(loader, sid)
    assert searcher.indexes[sid].key == content_key(_contents(loader, sid))


def test_an_index_of_the_first_format_is_replaced(data_dir: Path) -> None:
    store = Store(data_dir)
    try:
        sid = store.create_session("s", SessionConfig())["session_id"]
        doc_id = _add(store, sid, "the apples are stored in the north barn")
        old = data_dir / "indexes" / sid  # format 1: files straight in the session's folder
        with PassageIndex(old) as index:
            index.add_documents([(doc_id, "stale words only")])
        assert (old / "meta.json").exists()
        assert _hits(store, sid, "apples") == (1, True)
        assert _hits(store, sid, "stale") == (0, False)
        assert not (old / "meta.json").exists()
        assert (index_folder(data_dir / "indexes", sid) / "meta.json").exists()
        assert oct((old).stat().st_mode & 0o777) == "0o700"
    finally:
        store.close()


def _texts(texts: dict[str, str]):
    def documents(ids):
        return ((i, texts[i], [], f"hash-{texts[i]}") for i in ids)
    return documents


def test_sync_extends_a_consistent_subset_and_rebuilds_anything_else(tmp_path: Path) -> None:
    texts = {"doc_a": "alpha words", "doc_b": "beta words", "doc_c": "gamma words"}
    hashes = {i: f"hash-{t}" for i, t in texts.items()}
    with PassageIndex(tmp_path / "idx") as index:
        two = {i: hashes[i] for i in ("doc_a", "doc_b")}
        assert sync(index, lambda: two, _texts(texts))[0] == "extended"  # from empty
        assert sync(index, lambda: two, _texts(texts))[0] == "current"
        assert sync(index, lambda: hashes, _texts(texts))[0] == "extended"
        assert index.indexed_contents() == hashes
        # A listing read before another process added doc_c is read again, not rebuilt.
        listings = iter([two, hashes])
        assert sync(index, lambda: next(listings), _texts(texts)) == ("current", hashes)
        # A document indexed without its hash cannot be vouched for: rebuilt.
        index.add_documents([("doc_d", "delta words")])
        assert sync(index, lambda: hashes, _texts(texts))[0] == "rebuilt"
        assert index.indexed_doc_ids() == set(hashes)
        # A document the store no longer lists goes with a rebuild.
        assert sync(index, lambda: two, _texts(texts))[0] == "rebuilt"
        assert index.search("gamma")[1] == 0 and index.search("alpha")[1] == 1


def test_two_data_dirs_on_one_shared_store_never_serve_a_stale_index(
    tmp_path: Path, data_dir: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two machines: each its own data dir (and search index), one PostgreSQL store and one
    shared blob volume."""
    monkeypatch.setenv("RLM_DATABASE_URL", postgres_url)
    monkeypatch.setenv("RLM_BLOB_URL", (tmp_path / "shared-blobs").as_uri())
    here, there = Store(tmp_path / "machine-a"), Store(tmp_path / "machine-b")
    try:
        sid = here.create_session("s", SessionConfig())["session_id"]
        first = _add(here, sid, "the apples are stored in the north barn")
        assert _hits(there, sid, "apples") == (1, True)  # built on machine b from the store
        _add(here, sid, "the bananas ripen in the south shed")  # loaded on machine a
        assert _hits(there, sid, "bananas") == (1, True)  # b extends its own index
        assert _hits(here, sid, "apples bananas") == (2, True)  # a builds its own
        assert here.indexes[sid].key == there.indexes[sid].key == content_key(
            _contents(here, sid))
        # The shared store changes under both cached indexes: each rebuilds.
        changed = "the cherries are stored in the west cellar"
        here.sql.execute("UPDATE documents SET content_hash = ?, length_chars = ? WHERE id = ?",
                         (here.blobs.put(changed.encode()), len(changed), first))
        here.sql.execute("UPDATE sessions SET docs_version = docs_version + 1 WHERE id = ?",
                         (sid,))
        for store in (here, there):
            assert _hits(store, sid, "apples") == (0, True)
            assert _hits(store, sid, "cherries") == (1, False)
        assert not list(tmp_path.glob("machine-*/*.db*"))
    finally:
        here.close()
        there.close()

"""A session's search index as a cache under the local data dir, keyed by the session's content.

The documents live in the store (shared by every machine when it is PostgreSQL); the tantivy
index is this machine's own copy, built from them on first use. Its key is
`content_key(...)`: sha256 over the index format version and the session's (doc_id, content
hash) pairs. The index records the pairs it holds itself (`PassageIndex.indexed_contents`, in
the same commit as the passages), so the key of what is on disk is never out of step with it.

`sync` brings an open index to the store's documents:
- same key: served as it is;
- the index holds a consistent subset (documents are immutable, and another machine only
  added some): the missing ones are added;
- anything else (a document whose hash differs, one the store no longer lists, passages not
  recorded with a hash, or a format this code does not write): rebuilt from the store in one
  commit. A stale index is never served.

Bump `INDEX_FORMAT_VERSION` whenever passages or the schema change: the index then lives in a
new folder (`indexes/<session>/v<N>`), built afresh.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal

from .search import PassageIndex

__all__ = ["INDEX_FORMAT_VERSION", "Sync", "content_key", "index_folder", "sync"]

INDEX_FORMAT_VERSION = 3
"""1: passages at `indexes/<session>/`, no content hashes; 2: hashes recorded, `v2/`; 3: the
body indexed as a reader sees it (`corpus.reading`: no troff or escaped HTML), `v3/`."""

Sync = Literal["current", "extended", "rebuilt"]

DocSource = Callable[[Sequence[str]], Iterable[tuple[str, str, Sequence[int], str]]]
"""(doc_id, text, page breaks, content hash) of the given documents, one at a time."""


def content_key(contents: Mapping[str, str]) -> str:
    """The key of a session's index: its format and every (doc_id, content hash) pair."""
    digest = hashlib.sha256(f"rlm-recursive passage index v{INDEX_FORMAT_VERSION}\n".encode())
    for doc_id, content_hash in sorted(contents.items()):
        digest.update(f"{doc_id}\t{content_hash}\n".encode())
    return digest.hexdigest()


def index_folder(indexes: Path, session_id: str) -> Path:
    """Where this format's index of the session lives. A format-1 index (its files directly
    in the session's folder) is deleted, best effort: it can never be served again."""
    session = indexes / session_id
    session.mkdir(mode=0o700, exist_ok=True)  # it holds the documents' vocabulary
    if (session / "meta.json").exists():
        with contextlib.suppress(OSError), os.scandir(session) as entries:
            for entry in entries:
                if entry.is_file(follow_symlinks=False):
                    Path(entry.path).unlink(missing_ok=True)
    return session / f"v{INDEX_FORMAT_VERSION}"


def sync(index: PassageIndex, read_store: Callable[[], Mapping[str, str]],
         documents: DocSource) -> tuple[Sync, Mapping[str, str]]:
    """Make `index` hold exactly the session's documents, as `read_store()` lists them
    (doc_id -> content hash); return what was done and the listing it matches."""
    wanted = read_store()
    index.reload()  # what is on disk now, whoever wrote it
    held, ids = index.indexed_contents(), index.indexed_doc_ids()
    if held.keys() > wanted.keys() and _agree(held, wanted, ids):
        wanted = read_store()  # another process indexed documents added after we listed
    if held == wanted and ids == held.keys():
        return "current", wanted
    if _agree(held, wanted, ids) and held.keys() <= wanted.keys():
        index.add_documents(documents([d for d in wanted if d not in held]))
        return "extended", wanted
    index.add_documents(documents(list(wanted)), replace=True)
    return "rebuilt", wanted


def _agree(held: Mapping[str, str], wanted: Mapping[str, str], ids: set[str]) -> bool:
    """Every passage is recorded with a hash, and no document both know differs."""
    return ids == held.keys() and all(wanted.get(d, h) == h for d, h in held.items())

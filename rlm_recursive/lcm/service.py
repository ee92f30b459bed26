"""`Lcm`: the services of one database wired together (what adapters and the agent use)."""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import Any

from ..store import Store
from ..store.blobs import Blobs, blob_store_for
from ..store.connector import SqliteConnector, open_connector
from .assembler import ContextAssembler
from .compaction import CompactionEngine, Summariser
from .config import LcmConfig
from .files import LargeFileService
from .integrity import IntegrityChecker
from .records import MessageRecord
from .retrieval import RetrievalEngine
from .sqlite_store import SqliteConversationStore
from .store import SqlConversationStore
from .tokens import TokenEstimator

__all__ = ["Lcm", "lcm_for", "open_conversation_store", "release_lcm"]


def open_conversation_store(data_dir: Path, database_url: str | None = None
                            ) -> SqlConversationStore:
    """PostgreSQL when `database_url` (or `RLM_DATABASE_URL`) is set, else `rlm.db`."""
    database = open_connector(data_dir / "rlm.db", database_url)
    if isinstance(database, SqliteConnector):
        return SqliteConversationStore(database)
    from .postgres_store import PostgresConversationStore

    return PostgresConversationStore(database)  # type: ignore[arg-type]


class Lcm:
    """Store, estimator, assembler, compaction, retrieval, integrity and large files."""

    def __init__(self, data_dir: Path, config: LcmConfig | None = None, *,
                 estimator: TokenEstimator | None = None, summariser: Summariser | None = None,
                 blobs: Blobs | None = None, database_url: str | None = None) -> None:
        self.config = config or LcmConfig.load()
        data_dir.mkdir(parents=True, exist_ok=True)
        self.store = open_conversation_store(data_dir, database_url)
        self.estimator = estimator or TokenEstimator()
        self.assembler = ContextAssembler(self.store, self.estimator)
        self.compaction = CompactionEngine(self.store, self.estimator, self.config, summariser)
        self.retrieval = RetrievalEngine(self.store, self.estimator,
                                         self.config.max_expand_tokens)
        self.integrity = IntegrityChecker(self.store)
        self.files = LargeFileService(self.store, blobs or blob_store_for(data_dir),
                                      self.estimator, self.config.large_file_tokens)

    def close(self) -> None:
        self.store.close()

    def append(self, conversation_id: int, role: str, content: str, *,
               parts: list[dict[str, Any]] | None = None,
               file_name: str | None = None) -> MessageRecord:
        """Append a canonical message; oversized content becomes a `file_…` reference."""
        parts = list(parts or [])
        if self.files.is_large(content):
            record = self.files.store_file(conversation_id, content, file_name=file_name)
            content = self.files.reference(record)
            parts.append({"part_type": "file", "file_name": record.file_name,
                          "file_mime": record.mime_type, "file_url": record.storage_uri,
                          "metadata": {"file_id": record.file_id}})
        return self.store.append_message(conversation_id, role, content,
                                         self.estimator.message(content), parts)


_BY_STORE: weakref.WeakKeyDictionary[Store, Lcm] = weakref.WeakKeyDictionary()


def lcm_for(store: Store, config: LcmConfig | None = None) -> Lcm:
    """The one `Lcm` of a project store (its own connection to the same database)."""
    lcm = _BY_STORE.get(store)
    if lcm is None:
        if config is None:
            from ..catalog import load_catalog

            config = LcmConfig.load(load_catalog().lcm)
        lcm = _BY_STORE[store] = Lcm(store.data_dir, config, blobs=store.blobs)
    return lcm


def release_lcm(store: Store) -> None:
    """Close the `Lcm` of a store that is closing (its connection is its own)."""
    lcm = _BY_STORE.pop(store, None)
    if lcm is not None:
        lcm.close()

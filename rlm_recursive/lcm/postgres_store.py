"""The PostgreSQL backend of the LCM store (seed 002's schema: enums, JSONB, tsvector).

Full-text search uses the generated `content_tsv` columns (English stemming, ranked by
`ts_rank`, snippets by `ts_headline`). The compaction lock is a session-level advisory lock
on a pooled connection kept until release: a holder that dies loses its connection and so
its lock, which is what SQLite's lease TTL approximates.
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from ..errors import Conflict, InvalidArgs
from ..store.connector import Executor, advisory_key
from ..store.postgres import PostgresConnector
from .store import SqlConversationStore

__all__ = ["PostgresConversationStore"]

_LOCK_NAMESPACE = "rlm-recursive:lcm-conversation"
_HEADLINE = "StartSel=[, StopSel=], MaxWords=16, MinWords=6, MaxFragments=1"


_CREATION_ORDER = {"messages": "seq", "summaries": "summary_seq"}


class PostgresConversationStore(SqlConversationStore):
    """Conversations in a shared PostgreSQL database (`RLM_DATABASE_URL`)."""

    _SUMMARY_ORDER = "summary_seq"

    def __init__(self, connector: PostgresConnector) -> None:
        super().__init__(connector)
        self.pg = connector
        self._held: dict[int, tuple[str, Any]] = {}
        self._held_lock = threading.Lock()

    def close(self) -> None:
        with self._held_lock:
            held, self._held = list(self._held.values()), {}
        for _, conn in held:  # the pool is shared: no lock may go back into it
            self._give_back(conn, "SELECT pg_advisory_unlock_all()")
        super().close()

    # engine hooks
    def _param_time(self, iso: str) -> Any:
        return datetime.fromisoformat(iso)

    def _param_json(self, column: str, value: Any) -> Any:
        return list(value) if column == "patch_files" else Jsonb(value)  # TEXT[] / JSONB

    def _param_bool(self, value: Any) -> Any:
        return bool(value)

    def _load_json(self, value: Any) -> Any:
        return value  # psycopg already loaded JSONB and arrays

    def _lock_conversation(self, db: Executor, conversation_id: int) -> None:
        db.execute("SELECT 1 FROM conversations WHERE conversation_id = ? FOR UPDATE",
                   (conversation_id,))

    def _search(self, table: str, alias: str, columns: str, conversation_id: int, query: str,
                limit: int) -> list[Any]:
        """The generated `content_tsv` column (GIN-indexed) against the words as a plain
        AND query, ranked by ts_rank; ties oldest first."""
        if not query.split():
            raise InvalidArgs("the search query is empty")
        a, oldest = alias, _CREATION_ORDER[table]
        return self.query(
            f"SELECT {columns}, ts_headline('english', {a}.content, q, "
            f"'{_HEADLINE}') FROM {table} {a}, plainto_tsquery('english', ?) q "
            f"WHERE {a}.conversation_id = ? AND {a}.content_tsv @@ q "
            f"ORDER BY ts_rank({a}.content_tsv, q) DESC, {a}.{oldest} LIMIT ?",
            (query, conversation_id, limit))

    # the per-conversation compaction lock (seed 002: "one advisory lock per conversation")
    def acquire_lock(self, conversation_id: int, owner: str, ttl_s: float) -> None:
        """Take the conversation's advisory lock or raise a retryable Conflict.

        `ttl_s` is not needed: the lock lives exactly as long as its holder's connection.
        """
        with self._held_lock:
            held = self._held.get(conversation_id)
            if held is not None and held[0] == owner:
                return
            if held is None:
                conn = self.pg.pool.getconn()
                try:
                    taken = conn.execute("SELECT pg_try_advisory_lock(%s)", (
                        advisory_key(_LOCK_NAMESPACE, conversation_id),)).fetchone()[0]
                except BaseException:
                    self.pg.pool.putconn(conn)
                    raise
                if taken:
                    self._held[conversation_id] = (owner, conn)
                    return
                self.pg.pool.putconn(conn)
        raise Conflict(f"conversation {conversation_id} is being compacted by another "
                       "process; retry shortly", conversation_id=conversation_id)

    def release_lock(self, conversation_id: int, owner: str) -> None:
        with self._held_lock:
            held = self._held.get(conversation_id)
            if held is None or held[0] != owner:
                return
            del self._held[conversation_id]
        self._give_back(held[1], "SELECT pg_advisory_unlock(%s)",
                        advisory_key(_LOCK_NAMESPACE, conversation_id))

    def _give_back(self, conn: Any, unlock: str, *params: Any) -> None:
        """Unlock on the pinned connection, then return it to the pool."""
        try:
            conn.execute(unlock, params)
        except psycopg.OperationalError:
            pass  # the connection is gone, and its lock with it; the pool replaces it
        finally:
            self.pg.pool.putconn(conn)

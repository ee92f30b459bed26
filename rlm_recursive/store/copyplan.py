"""What `store copy` copies: the tables of a data dir's SQLite store, in the order their
foreign keys need, with each column converted to its PostgreSQL counterpart's type.

The plan is read from the two schemas themselves, as their migrations made them (the
source's `migrations/`, the target's `migrations_postgresql/`), not from a list kept here:
a table a later SQLite migration adds is copied as soon as PostgreSQL has it too, and one
PostgreSQL lacks stops the copy (`InternalError`) instead of being left behind in silence.
Only the tables below are SQLite's own and stay behind, each for a stated reason.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from graphlib import TopologicalSorter
from typing import Any

from ..errors import InternalError

__all__ = ["SQLITE_ONLY", "Column", "TablePlan", "plan_tables", "source_tables",
           "target_columns"]

SQLITE_ONLY = {
    "schema_migrations": "each database records its own migrations",
    "lcm_locks": "PostgreSQL's compaction lock is an advisory lock, not a row",
}
"""SQLite tables with no rows to carry over. FTS5 tables (virtual, and their shadow tables)
are skipped too: PostgreSQL's `content_tsv` columns are generated from the copied text."""

Convert = Callable[[Any], Any]


def _as_bool(value: Any) -> Any:
    return None if value is None else bool(value)


def _as_list(value: Any) -> Any:
    return None if value is None else list(json.loads(value))


_CONVERTERS: dict[str, Convert] = {"boolean": _as_bool, "ARRAY": _as_list}
"""SQLite keeps booleans as 0/1 and arrays as JSON text (LCM's message parts); every other
value (ISO times, JSON text for JSONB, enum labels, numbers) is read by COPY as it is."""


@dataclass(frozen=True)
class Column:
    name: str
    convert: Convert | None = None


@dataclass(frozen=True)
class TablePlan:
    name: str
    columns: tuple[Column, ...]

    @property
    def column_list(self) -> str:
        return ", ".join(f'"{c.name}"' for c in self.columns)

    def convert(self, row: tuple[Any, ...]) -> tuple[Any, ...]:
        if not any(c.convert for c in self.columns):
            return row
        return tuple(c.convert(v) if c.convert else v
                     for c, v in zip(self.columns, row, strict=True))


def source_tables(db: sqlite3.Connection) -> dict[str, list[str]]:
    """The SQLite store's tables that hold data, with their columns in schema order."""
    rows = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' "
                      "AND name NOT LIKE 'sqlite_%' ORDER BY name").fetchall()
    virtual = [name for name, sql in rows if (sql or "").upper().startswith("CREATE VIRTUAL")]
    tables: dict[str, list[str]] = {}
    for name, _ in rows:
        if name in SQLITE_ONLY or any(name == v or name.startswith(f"{v}_") for v in virtual):
            continue
        tables[name] = [r[1] for r in db.execute(f'PRAGMA table_info("{name}")')]
    return tables


def target_columns(conn: Any) -> dict[str, dict[str, str]]:
    """PostgreSQL's tables in the public schema: column name -> data type."""
    found: dict[str, dict[str, str]] = {}
    for table, column, data_type in conn.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = 'public' ORDER BY table_name, ordinal_position").fetchall():
        found.setdefault(table, {})[column] = data_type
    return found


def _references(db: sqlite3.Connection, conn: Any, tables: list[str]) -> dict[str, set[str]]:
    """Which tables each table's foreign keys point at, in either schema."""
    edges: dict[str, set[str]] = {t: set() for t in tables}
    for table in tables:
        edges[table].update(r[2] for r in db.execute(f'PRAGMA foreign_key_list("{table}")'))
    for child, parent in conn.execute(
            "SELECT c.conrelid::regclass::text, c.confrelid::regclass::text "
            "FROM pg_constraint c WHERE c.contype = 'f'").fetchall():
        if child in edges:
            edges[child].add(parent)
    for table in tables:
        edges[table] &= set(tables) - {table}
    return edges


def plan_tables(db: sqlite3.Connection, conn: Any) -> list[TablePlan]:
    """Every data table of the source, parents before children, with the target's types.

    `db` is the source (SQLite), `conn` a psycopg connection to the migrated target.
    """
    source = source_tables(db)
    target = target_columns(conn)
    missing = sorted(set(source) - set(target))
    if missing:
        raise InternalError(f"the PostgreSQL schema has no table for SQLite's {missing}: "
                            "a SQLite migration without its PostgreSQL counterpart")
    plans: dict[str, TablePlan] = {}
    for table, columns in source.items():
        types = target[table]
        lacking = [c for c in columns if c not in types]
        if lacking:
            raise InternalError(f"PostgreSQL's {table} lacks SQLite's columns {lacking}")
        plans[table] = TablePlan(table, tuple(
            Column(c, _CONVERTERS.get(types[c])) for c in columns))
    order = TopologicalSorter(_references(db, conn, sorted(source))).static_order()
    return [plans[t] for t in order]

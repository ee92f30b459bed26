"""`store copy`: move a data dir's embedded store (its SQLite `rlm.db`, its `blobs/` and its
`audit.jsonl`) into the shared PostgreSQL store and blob store, keeping every id.

- The source is opened read-only (`mode=ro`) and read in one snapshot: nothing in the data
  dir changes, whatever happens, so a failed copy loses nothing and can simply be re-run.
- Blobs go first (content-addressed puts, each read back and checked against its sha256),
  then every row in **one PostgreSQL transaction**: the target is either a complete copy or
  still empty. One transaction per table would leave a half-filled target after a failure,
  which the empty-target rule then refuses, and api/worker processes started early would
  see sessions without their documents. The cost (one long transaction) is paid once.
- Rows are streamed with COPY in batches (`batch_rows`), in foreign-key order
  (`copyplan.py`); identity sequences are moved past the copied ids afterwards.
- The target must be empty: ids cannot be merged, since LCM conversation and message ids,
  trace ids and the audit's are integers every store counts from 1 (so there is no `--merge`).
- API keys are HMACs under the data dir's salt file; on PostgreSQL every process hashes
  under RLM_API_KEY_SALT / RLM_API_KEY_SALT_FILE. Keys are copied only when that salt is
  the data dir's (`key_salt_mismatch` otherwise), or left behind with `skip_keys`.
- Row counts per table are compared before the commit; a mismatch rolls everything back.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from ..errors import (
    FileNotFound,
    InternalError,
    InvalidArgs,
    KeySaltMismatch,
    KeySaltMissing,
    StoreUnavailable,
    TargetNotEmpty,
)
from ..types import sha256_hex
from .auditrows import AUDIT_COLUMNS
from .blobs import BLOB_URL_ENV, Blobs, blob_store_for
from .connector import advisory_key, database_errors, redact_url
from .copyplan import TablePlan, plan_tables, source_tables
from .db import sqlite_migration_versions
from .tenancy import SALT_FILE, shared_salt

__all__ = ["CopyReport", "copy_store"]

_COPY_LOCK = "rlm-recursive:store-copy"
_BLOB_NAME = re.compile(r"[0-9a-f]{64}")
Progress = Callable[[str], None]


@dataclass
class CopyReport:
    source: str
    target: str
    blob_target: str
    dry_run: bool
    tables: dict[str, int] = field(default_factory=dict)
    """Rows per table (copied, or that would be)."""
    audit_records: int = 0
    blobs: int = 0
    blob_bytes: int = 0
    blobs_in_place: bool = False
    """The target blob store is the data dir's own folder (RLM_BLOB_URL unset)."""
    keys_skipped: int = 0
    unfinished_executions: list[str] = field(default_factory=list)
    table_seconds: float = 0.0
    blob_seconds: float = 0.0

    @property
    def rows(self) -> int:
        return sum(self.tables.values()) + self.audit_records

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "rows": self.rows,
                "seconds": round(self.table_seconds + self.blob_seconds, 3)}


def copy_store(data_dir: Path, target_url: str, *, dry_run: bool = False,
               skip_keys: bool = False, batch_rows: int = 5000,
               progress: Progress | None = None) -> CopyReport:
    """Copy the data dir's SQLite store, blobs and audit log into `target_url` and the blob
    store RLM_BLOB_URL names; verify and report. The source is never written."""
    if batch_rows < 1:
        raise InvalidArgs("--batch-rows must be at least 1")
    say = progress or (lambda _: None)
    blob_target, in_place = _blob_destination(data_dir)
    report = CopyReport(str(data_dir), redact_url(target_url), blob_target, dry_run,
                        blobs_in_place=in_place)
    with _read_only(data_dir / "rlm.db") as db:
        db.execute("BEGIN")  # one snapshot for every read below
        tables = source_tables(db)
        report.tables = {t: db.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]
                         for t in tables}
        report.unfinished_executions = [r[0] for r in db.execute(
            "SELECT id FROM executions WHERE status IN ('QUEUED', 'RUNNING') ORDER BY id")]
        audit = _audit_records(data_dir / "audit.jsonl")
        report.audit_records = len(audit)
        if report.tables.get("api_keys"):
            if skip_keys:
                report.keys_skipped = report.tables.pop("api_keys")
            else:
                _check_salt(data_dir, report.tables["api_keys"])
        blobs = _source_blobs(data_dir / "blobs")
        report.blobs, report.blob_bytes = len(blobs), sum(p.stat().st_size for p in blobs)
        _check_references(db, {p.name for p in blobs})
        if dry_run:
            _check_empty_unmigrated(target_url, [*report.tables, "audit_log"])
            return report
        from .postgres import PostgresConnector  # psycopg: the postgres extra

        target = PostgresConnector(target_url)
        try:
            with target.transaction() as tx:
                conn = tx.conn
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (advisory_key(_COPY_LOCK),))
                plans = [p for p in plan_tables(db, conn) if p.name in report.tables]
                _check_empty(conn, [*(p.name for p in plans), "audit_log"])
                started = time.perf_counter()
                _copy_blobs(data_dir, blobs, in_place, say)
                report.blob_seconds = time.perf_counter() - started
                started = time.perf_counter()
                for plan in plans:
                    say(f"{plan.name}: {report.tables[plan.name]} rows")
                    _copy_table(db, conn, plan, batch_rows)
                _copy_audit(conn, audit)
                _reset_identities(conn, [*(p.name for p in plans), "audit_log"])
                _verify_counts(conn, {**report.tables, "audit_log": report.audit_records})
                report.table_seconds = time.perf_counter() - started
        finally:
            target.close()
    return report


@contextmanager
def _read_only(path: Path) -> Iterator[sqlite3.Connection]:
    """The SQLite store, read-only (it is never created, migrated or checkpointed here)."""
    if not path.is_file():
        raise FileNotFound(f"no SQLite store at {path}: pass the data dir that holds rlm.db "
                           "(--data-dir or RLM_DATA_DIR)")
    try:
        db = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True,
                             isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise FileNotFound(f"cannot open {path} read-only: {exc}") from None
    with closing(db):
        db.execute("PRAGMA busy_timeout=30000")
        applied = {r[0] for r in db.execute("SELECT version FROM schema_migrations")}
        behind = sorted(sqlite_migration_versions() - applied)
        if behind:
            raise InvalidArgs(f"{path} lacks migrations {behind}: run any command on it once "
                              "with this version (e.g. `rlm-recursive sessions`), then copy")
        yield db


def _blob_destination(data_dir: Path) -> tuple[str, bool]:
    """RLM_BLOB_URL, and whether it is the data dir's own `blobs/` (unset, or that folder)."""
    own = (data_dir / "blobs").resolve()
    url = (os.environ.get(BLOB_URL_ENV) or "").strip()
    if not url:
        return own.as_uri(), True
    parts = urlsplit(url)
    return url, parts.scheme == "file" and Path(unquote(parts.path)).resolve() == own


def _source_blobs(folder: Path) -> list[Path]:
    """Blob files of the data dir (named by their sha256; a killed writer's temp files
    are not blobs)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("??/*") if _BLOB_NAME.fullmatch(p.name)
                  and p.parent.name == p.name[:2] and p.is_file())


def _check_references(db: sqlite3.Connection, present: set[str]) -> None:
    """Every blob a row names must be among the files, or the copy would carry a dangling
    reference to machines that can never read it."""
    named = {r[0] for r in db.execute("SELECT DISTINCT content_hash FROM documents")}
    named |= {r[0].removeprefix("blob:") for r in db.execute(
        "SELECT DISTINCT storage_uri FROM large_files WHERE storage_uri LIKE 'blob:%'")}
    missing = sorted(named - present)
    if missing:
        raise InternalError(f"{len(missing)} blobs the store names are missing from the data "
                            f"dir's blobs/ (first: {missing[0]}); nothing was copied")


def _check_salt(data_dir: Path, keys: int) -> None:
    salt_file = data_dir / SALT_FILE
    fix = (f"set RLM_API_KEY_SALT_FILE={salt_file} (and give every process that file), or "
           "pass --skip-keys to leave them behind and create new keys")
    try:
        local = salt_file.read_bytes()
    except OSError:
        raise KeySaltMismatch(f"the data dir has {keys} API keys but no readable {SALT_FILE} "
                              "file: they cannot be carried over; pass --skip-keys") from None
    try:
        shared = shared_salt()
    except KeySaltMissing:
        raise KeySaltMismatch(f"the data dir's {keys} API keys are hashed under its own salt, "
                              f"and no shared salt is set: {fix}") from None
    if shared != local:
        raise KeySaltMismatch(f"the shared API-key salt is not this data dir's, so its {keys} "
                              f"keys would never authenticate on PostgreSQL: {fix}")


def _audit_records(path: Path) -> list[tuple[Any, ...]]:
    """audit.jsonl as audit_log rows, in file order."""
    try:
        lines = path.read_text("ascii").splitlines()
    except FileNotFoundError:
        return []
    rows = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            rows.append(tuple(record.get(c) for c in AUDIT_COLUMNS))
        except (ValueError, AttributeError):
            raise InvalidArgs(f"{path} line {number} is not an audit record; nothing was "
                              "copied") from None
    return rows


def _check_empty_unmigrated(url: str, tables: list[str]) -> None:
    """The dry run's check, without migrating (writing) the target."""
    import psycopg

    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            present = {r[0] for r in conn.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = 'public'").fetchall()}
            _check_empty(conn, [t for t in tables if t in present])
    except psycopg.OperationalError as exc:
        raise StoreUnavailable(f"cannot connect to PostgreSQL at {redact_url(url)} "
                               f"({type(exc).__name__})") from None


def _check_empty(conn: Any, tables: list[str]) -> None:
    filled = [t for t in tables
              if conn.execute(f'SELECT EXISTS (SELECT 1 FROM "{t}")').fetchone()[0]]
    if filled:
        raise TargetNotEmpty(
            f"the target database already holds rows in {', '.join(filled)}: `store copy` "
            "fills an empty store only (ids from two stores collide); use a new database")


def _copy_blobs(data_dir: Path, blobs: list[Path], in_place: bool, say: Progress) -> None:
    """Put every blob into the target blob store and read it back against its sha256 (in
    place, each file is only checked against its name)."""
    target: Blobs | None = None if in_place else blob_store_for(data_dir)
    say(f"blobs: {len(blobs)} " + ("checked in place" if target is None else f"to {target.url}"))
    for path in blobs:
        data = path.read_bytes()
        if sha256_hex(data) != path.name:
            raise InternalError(f"blob {path.name} in the data dir does not match its hash; "
                                "nothing was copied")
        if target is None:
            continue
        if target.put(data) != path.name or sha256_hex(target.data(path.name)) != path.name:
            raise InternalError(f"blob {path.name} did not read back intact from {target.url}")


def _copy_table(db: sqlite3.Connection, conn: Any, plan: TablePlan, batch_rows: int) -> None:
    """One COPY per table, fed in batches, in insertion order (PostgreSQL's `row_seq` and
    `summary_seq` columns number the rows as SQLite's rowid ordered them)."""
    rows = db.execute(f'SELECT {plan.column_list} FROM "{plan.name}" ORDER BY rowid')
    try:
        with conn.cursor() as cur, \
                cur.copy(f'COPY "{plan.name}" ({plan.column_list}) FROM STDIN') as copy:
            while batch := rows.fetchmany(batch_rows):
                for row in batch:
                    copy.write_row(plan.convert(row))
    except database_errors() as exc:  # a row PostgreSQL's constraints refuse
        said = " ".join(str(exc).split())  # the driver's message and detail, on one line
        raise InternalError(f"{plan.name}: {said} The copy was rolled back: the target is "
                            "as it was") from None


def _copy_audit(conn: Any, records: list[tuple[Any, ...]]) -> None:
    columns = ", ".join(AUDIT_COLUMNS)
    with conn.cursor() as cur, cur.copy(f"COPY audit_log ({columns}) FROM STDIN") as copy:
        for record in records:
            copy.write_row(record)


def _reset_identities(conn: Any, tables: list[str]) -> None:
    """Copied ids were given explicitly: each identity's next value goes past the largest."""
    for table, column in conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = 'public' AND is_identity = 'YES' "
            "AND table_name = ANY(%s)", (tables,)).fetchall():
        conn.execute(f'SELECT setval(pg_get_serial_sequence(%s, %s), '
                     f'COALESCE(MAX("{column}"), 0) + 1, false) FROM "{table}"',
                     (table, column))


def _verify_counts(conn: Any, expected: dict[str, int]) -> None:
    for table, rows in expected.items():
        copied = conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
        if copied != rows:
            raise InternalError(f"{table}: {copied} rows in PostgreSQL, {rows} in the source; "
                                "the copy was rolled back")

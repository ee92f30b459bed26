"""Loaders: files, directories, globs and inline text, parsed (parsers/) into the store.

Sources are walked first (corpus.walk: policy and ignore rules), then read and parsed in a
bounded process pool, in order; each file that cannot be loaded is one coded error and the
load goes on.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..config import SessionConfig
from ..errors import FileNotFound, FileTooLarge, RlmError, UnsupportedFile
from ..parsers import OcrEngine, Parsed
from ..parsers.pool import default_workers, parse_many
from ..policy import PathPolicy
from ..store import Document, Store
from .walk import walk_source

__all__ = ["LoadProgress", "LoadReport", "Source", "load_sources", "ocr_engine"]


@dataclass
class LoadProgress:
    """Counted as the load goes: files stored or refused, PDF pages and raw bytes read."""

    files: int = 0
    pages: int = 0
    bytes: int = 0


ProgressCallback = Callable[[LoadProgress, str], None]
"""Called after each file with the running totals and the file's label."""


class Source(BaseModel):
    """One thing to load (seed 000 §4.4 `rlm.docs.load`)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["file", "directory", "glob", "inline"]
    path: str | None = None
    content: str | None = None
    recursive: bool = False
    include_pattern: str | None = None
    exclude_pattern: str | None = None
    ignore_rules: bool = Field(
        True, description="Folders and globs: skip .git, caches, virtualenvs, node_modules "
        "and what .gitignore names (counted in `skipped`)")
    token_count_hint: int | None = Field(None, ge=0)
    name: str | None = Field(None, description="inline: a label for the document")

    @model_validator(mode="after")
    def _check(self) -> Source:
        if self.type == "inline" and self.content is None:
            raise ValueError("an inline source needs content")
        if self.type != "inline" and not self.path:
            raise ValueError(f"a {self.type} source needs path")
        return self


@dataclass
class LoadReport:
    """The `rlm_docs_load` output."""

    loaded: list[Document] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    details: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per loaded doc_id: format, parser_version, pages, encoding, warnings, raw_sha256."""
    pages: int = 0
    bytes_read: int = 0
    """Raw bytes read: files as on disk, inline text as UTF-8."""

    def error(self, source: str, exc: RlmError) -> None:
        self.errors.append({"source": source, "error_code": exc.code, "message": exc.message})

    def to_dict(self) -> dict[str, Any]:
        return {
            "loaded": [
                {
                    "doc_id": d.id,
                    "content_hash": d.content_hash,
                    "source": d.source,
                    "length_chars": d.length_chars,
                    "length_tokens_est": d.length_tokens_est,
                    **self.details.get(d.id, {}),
                }
                for d in self.loaded
            ],
            "errors": self.errors,
            "skipped": dict(sorted(self.skipped.items())),
            "total_chars": sum(d.length_chars for d in self.loaded),
            "total_tokens_est": sum(d.length_tokens_est for d in self.loaded),
            "total_pages": self.pages,
        }


def ocr_engine(ocr: bool | None) -> OcrEngine | None:
    """The engine for `ocr`: False is no OCR (None); True and automatic (None) look for
    tesseract, and without it each image-only page is warned about."""
    return None if ocr is False else OcrEngine.find()


def load_sources(
    store: Store,
    session_id: str,
    sources: list[Source],
    policy: PathPolicy,
    config: SessionConfig,
    progress: ProgressCallback | None = None,
    *,
    ocr: bool | None = None,
    workers: int | None = None,
) -> LoadReport:
    """Load every source; a bad file becomes a per-source error and the batch goes on.

    `ocr`: None reads image-only PDF pages when tesseract is installed, True asks for it
    (each page warns when it is missing), False never runs it.
    """
    report, budget = LoadReport(), _LoadBudget(config.max_load_bytes)
    # Whoever built the policy: the store's own files are never a source (they would be
    # corrupted, see policy.inodes).
    policy.protect(store.data_dir)
    cap = _file_cap(policy, config)
    # Every source's files in order; an inline source is an entry without a path.
    entries: list[tuple[str, Path | None, Source]] = []
    for source in sources:
        if source.type == "inline":
            entries.append(("", None, source))
            continue
        include = [source.include_pattern] if source.include_pattern else []
        exclude = [source.exclude_pattern] if source.exclude_pattern else []
        for path, problem in walk_source(
                source.type, source.path or "", policy, cap, recursive=source.recursive,
                include=include, exclude=exclude, ignore=source.ignore_rules,
                skipped=report.skipped):
            if problem is not None:
                report.error(_display_path(path), problem)
            else:
                entries.append((_display_path(path), path, source))
    sizes = [_size(path) if path is not None else None for _, path, _ in entries]
    files = [i for i, (_, path, _) in enumerate(entries) if path is not None]
    counts, done = LoadProgress(), 0

    def inline_before(index: int) -> None:
        nonlocal done
        for _, path, source in entries[done:index]:
            if path is None:
                _load_inline(store, session_id, source, report, budget)
        done = max(done, index + 1)

    results = parse_many(
        _read_all(entries, files, sizes, policy, cap, budget, report), ocr=ocr_engine(ocr),
        workers=workers or default_workers(), expected_files=len(files),
        expected_bytes=sum(sizes[i] or 0 for i in files))
    for index, parsed in results:
        inline_before(index)
        label, _, source = entries[index]
        counts.files += 1
        counts.bytes += sizes[index] or 0
        if isinstance(parsed, UnsupportedFile):
            report.error(label, parsed)
        else:
            counts.pages += parsed.page_count or 0
            _store(store, session_id, label, parsed, source, sizes[index], report)
        if progress is not None:
            progress(replace(counts), label)
    inline_before(len(entries))
    report.pages = counts.pages
    report.bytes_read += counts.bytes
    return report


def _display_path(path: Path) -> str:
    """The path as valid Unicode: a name that is not UTF-8 (a Latin-1 `caf\xe9.txt` on
    Linux) keeps its odd bytes as `\xe9` escapes instead of surrogates, which no store,
    JSON or terminal accepts. The same bytes always give the same label."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _store(store: Store, session_id: str, label: str, parsed: Parsed, source: Source,
           size: int | None, report: LoadReport) -> None:
    meta = parsed.meta()
    doc = store.add_document(
        session_id, parsed.text.encode("utf-8"), length_chars=len(parsed.text), source=label,
        source_type="file", token_hint=source.token_count_hint,
        metadata={"filename": Path(label).name, "bytes": size, "format": parsed.format},
        parse_meta=meta)
    info = store.parses.info(doc.id)
    report.loaded.append(doc)
    report.details[doc.id] = {
        "format": parsed.format, "parser_version": parsed.parser_version,
        "pages": parsed.page_count, "encoding": parsed.encoding, "warnings": parsed.warnings,
        "raw_sha256": parsed.raw_sha256, "version": info.version,
        **({"previous_doc_id": info.previous_doc_id} if info.previous_doc_id else {}),
    }


def _load_inline(store: Store, session_id: str, source: Source, report: LoadReport,
                 budget: _LoadBudget) -> None:
    label = f"inline:{source.name or len(report.loaded)}"
    try:
        data = _encode_inline(source.content or "", label)
        budget.spend(len(data), label)
    except RlmError as exc:
        report.error(label, exc)
        return
    report.bytes_read += len(data)
    report.loaded.append(store.add_document(
        session_id, data, length_chars=len(source.content or ""), source=label,
        source_type="inline", token_hint=source.token_count_hint))


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _read_all(
    entries: list[tuple[str, Path | None, Source]], files: list[int],
    sizes: list[int | None], policy: PathPolicy, cap: int, budget: _LoadBudget,
    report: LoadReport,
) -> Iterator[tuple[int, str, bytes]]:
    """Each file's bytes, read when the pool has room; a file that cannot be read is an error."""
    for index in files:
        label, path, _ = entries[index]
        assert path is not None
        try:
            size = sizes[index]
            if size is None:  # removed or made unreadable since the walk listed it
                raise FileNotFound(f"{path} cannot be read any more")
            if size > cap:
                raise FileTooLarge(f"{path} is {size} bytes; the per-file limit is {cap}")
            budget.spend(size, label)
            # Through the policy: it re-checks the path at open time (no symlink or FIFO
            # swapped in).
            yield index, label, policy.read_bytes(path, max_bytes=cap)
        except RlmError as exc:
            report.error(label, exc)


class _LoadBudget:
    def __init__(self, limit: int) -> None:
        self.left = limit

    def spend(self, size: int, label: str) -> None:
        if size > self.left:
            raise FileTooLarge(f"{label}: the load would exceed max_load_bytes", limit="load")
        self.left -= size


def _encode_inline(content: str, label: str) -> bytes:
    try:
        return content.encode("utf-8")
    except UnicodeEncodeError as exc:  # lone surrogates arrive through JSON "\ud800" escapes
        raise UnsupportedFile(f"{label} is not valid Unicode text: {exc.reason}") from None


def _file_cap(policy: PathPolicy, config: SessionConfig) -> int:
    """The per-file cap: the session's, lowered by the profile's (a session cannot raise it)."""
    if policy.max_bytes is None:
        return config.max_file_bytes
    return min(config.max_file_bytes, policy.max_bytes)

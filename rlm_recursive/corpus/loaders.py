"""Loaders: files, directories, globs and inline text into the store, one file at a time."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..config import SessionConfig
from ..errors import FileNotFound, FileTooLarge, RlmError, UnsupportedFile
from ..policy import PathPolicy, compile_glob
from ..policy.globs import split_magic
from ..store import Document, Store

__all__ = ["LoadReport", "Source", "load_sources"]

ProgressCallback = Callable[[int, str], None]
"""Called after each file with (bytes just read, source label)."""


class Source(BaseModel):
    """One thing to load (seed 000 §4.4 `rlm.docs.load`)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["file", "directory", "glob", "inline"]
    path: str | None = None
    content: str | None = None
    recursive: bool = False
    include_pattern: str | None = None
    exclude_pattern: str | None = None
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
                }
                for d in self.loaded
            ],
            "errors": self.errors,
            "total_chars": sum(d.length_chars for d in self.loaded),
            "total_tokens_est": sum(d.length_tokens_est for d in self.loaded),
        }


def load_sources(
    store: Store,
    session_id: str,
    sources: list[Source],
    policy: PathPolicy,
    config: SessionConfig,
    progress: ProgressCallback | None = None,
) -> LoadReport:
    """Load every source; a bad file becomes a per-source error and the batch goes on."""
    report, budget = LoadReport(), _LoadBudget(config.max_load_bytes)
    # Whoever built the policy: the store's own files are never a source (they would be
    # corrupted, see policy.inodes).
    policy.protect(store.data_dir)
    for source in sources:
        if source.type == "inline":
            label = f"inline:{source.name or len(report.loaded)}"
            try:
                data = _encode_inline(source.content or "", label)
                budget.spend(len(data), label)
            except RlmError as exc:
                report.error(label, exc)
                continue
            report.loaded.append(
                store.add_document(
                    session_id,
                    data,
                    length_chars=len(source.content or ""),
                    source=label,
                    source_type="inline",
                    token_hint=source.token_count_hint,
                )
            )
            continue
        for path, problem in _expand(source, policy, config):
            label = str(path)
            if problem is not None:
                report.error(label, problem)
                continue
            try:
                doc = _load_file(store, session_id, path, source, policy, config, budget)
            except RlmError as exc:
                report.error(label, exc)
                continue
            report.loaded.append(doc)
            if progress is not None:
                progress(doc.length_chars, label)
    return report


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


def _expand(
    source: Source, policy: PathPolicy, config: SessionConfig
) -> Iterator[tuple[Path, RlmError | None]]:
    include = [source.include_pattern] if source.include_pattern else []
    exclude = [source.exclude_pattern] if source.exclude_pattern else []
    cap = _file_cap(policy, config)
    try:
        if source.type == "file":
            yield policy.resolve(source.path or "", expect="file", max_bytes=cap), None
        elif source.type == "directory":
            root = policy.resolve(source.path or "", expect="dir")
            yield from policy.iter_files(
                root, recursive=source.recursive, include=include, exclude=exclude, max_bytes=cap
            )
        else:
            yield from _expand_glob(source.path or "", policy, cap)
    except RlmError as exc:
        yield Path(source.path or ""), exc


def _expand_glob(
    pattern: str, policy: PathPolicy, cap: int
) -> Iterator[tuple[Path, RlmError | None]]:
    """The files a glob matches, through the policy's bounded, confined folder walk.

    A name that exists as written (`x[1].txt`) is that file, not a pattern. The walk starts at
    the pattern's literal folder, which the policy checks first: a pattern aimed outside the
    roots (`/root/.*`) fails there, before any name is listed. Wildcards skip hidden names
    unless the pattern spells a leading dot, as in the shell.
    """
    try:
        yield policy.resolve(pattern, expect="file", max_bytes=cap), None
        return
    except (FileNotFound, UnsupportedFile):
        pass  # no such file (or a folder): a pattern. PathDenied stands: the walk would be too.
    head, rest = split_magic(pattern)
    if not rest:
        raise FileNotFound(f"no file matches the glob {pattern!r} (relative to {policy.base})")
    top = policy.resolve(head or ".", expect="dir")
    anchored = compile_glob("/" + rest)
    hidden_ok = any(part.startswith(".") for part in rest.split("/"))
    found = False
    for path, problem in policy.iter_files(
        top,
        recursive="/" in rest or "**" in rest,
        include=["/" + rest],
        exclude=[] if hidden_ok else ["**/.*"],
        max_bytes=cap,
    ):
        if (
            problem is not None
            and "limit" not in problem.details
            and path.is_relative_to(top)
            and not anchored.fullmatch(path.relative_to(top).as_posix())
        ):
            continue  # a denied entry the pattern does not name: not the caller's concern
        found = True
        yield path, problem
    if not found:
        raise FileNotFound(f"no file matches the glob {pattern!r} (relative to {policy.base})")


def _load_file(
    store: Store,
    session_id: str,
    path: Path,
    source: Source,
    policy: PathPolicy,
    config: SessionConfig,
    budget: _LoadBudget,
) -> Document:
    cap = _file_cap(policy, config)
    try:
        size = path.stat().st_size
    except OSError as exc:  # removed or made unreadable since the walk listed it
        raise FileNotFound(f"{path} cannot be read: {exc.strerror}") from None
    if size > cap:
        raise FileTooLarge(f"{path} is {size} bytes; the per-file limit is {cap}")
    budget.spend(size, str(path))
    # Through the policy: it re-checks the path at open time (no symlink or FIFO swapped in).
    data = policy.read_bytes(path, max_bytes=cap)
    # A NUL byte is the cheap, reliable sign of a binary file; UTF-8 decoding catches the rest.
    if b"\x00" in data[:8192]:
        raise UnsupportedFile(f"{path} looks binary (NUL bytes); only UTF-8 text is loaded")
    try:
        length = len(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise UnsupportedFile(f"{path} is not valid UTF-8 text: {exc.reason}") from exc
    return store.add_document(
        session_id,
        data,
        length_chars=length,
        source=str(path),
        source_type="file",
        token_hint=source.token_count_hint,
        metadata={"filename": path.name, "bytes": size},
    )

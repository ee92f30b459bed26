"""Trace records as an export shows them: no document text unless include_docs, and every
excerpt of a document redacted by overlap with the document's secret spans.

A tool output that carries document text names where it comes from: a `span` (or, for a
search excerpt, a `context_span`) with `doc_id` and `start` beside the `content`, `context` or
`preview` string. Without include_docs that string becomes a placeholder; with it, each
character inside a known secret span is hidden, so an excerpt that cuts a secret in two still
hides its part (down to one character). Inline documents in a load's arguments are documents
too. Any other string that copies a run of document text (a sub-query prompt, an answer) loses
that run without include_docs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..secretscan import SourceText, apply, overlapping
from ..store.secretspans import SessionSecrets

__all__ = ["TraceSanitizer"]

_TEXT_KEYS = ("content", "context", "preview", "text", "excerpt")
_LOAD_OPS = frozenset({"rlm_docs_load"})


def _omitted(text: str) -> str:
    return f"[document text omitted: {len(text)} chars; export with include_docs to keep it]"


@dataclass
class TraceSanitizer:
    """Rewrites trace inputs and outputs; counts the secret parts it hid."""

    secrets: SessionSecrets
    include_docs: bool
    document_texts: Callable[[], list[str]]
    """Every document text of the session (read only if a long string needs the check)."""
    hidden: list[str] = field(default_factory=list)
    """Kinds of the secret parts hidden in excerpts (one entry per excerpt and secret)."""
    _source: SourceText | None = None

    def record(self, op: str, input_: Any, output: Any) -> tuple[Any, Any]:
        if op in _LOAD_OPS and isinstance(input_, dict):
            input_ = {**input_, "sources": [self._source_arg(s) for s in
                                            input_.get("sources") or []]}
        return self._walk(input_), self._walk(output)

    def _source_arg(self, source: Any) -> Any:
        if (isinstance(source, dict) and isinstance(source.get("content"), str)
                and not self.include_docs):
            return {**source, "content": _omitted(source["content"])}
        return source

    def _walk(self, value: Any) -> Any:
        if isinstance(value, dict):
            out = {k: self._walk(v) for k, v in value.items()}
            for key in _TEXT_KEYS:
                text = value.get(key)
                window = value.get(f"{key}_span") or value.get("span")
                if isinstance(text, str) and _is_window(window):
                    out[key] = self._excerpt(text, window)
            return out
        if isinstance(value, list):
            return [self._walk(v) for v in value]
        if isinstance(value, str) and not self.include_docs:
            return self._without_copies(value)
        return value

    def _excerpt(self, text: str, window: dict[str, Any]) -> str:
        if not self.include_docs:
            return _omitted(text)
        spans = self.secrets.doc_spans.get(window["doc_id"], [])
        # A summarised excerpt ends with "… (N chars)": only the part before it is text.
        cut = text.find("… (") if text.endswith(" chars)") else -1
        length = cut if cut != -1 else len(text)
        parts = overlapping(spans, window["start"], length)
        self.hidden += [kind for *_, kind in parts]
        return apply(text, parts)[0]

    def _without_copies(self, value: str) -> str:
        if len(value) < 64:
            return value
        runs = self._sources().find(value)
        if not runs:
            return value
        out, pos = [], 0
        for start, end in runs:
            out += [value[pos:start], f"[document text omitted: {end - start} chars]"]
            pos = end
        return "".join(out) + value[pos:]

    def _sources(self) -> SourceText:
        if self._source is None:
            self._source = SourceText(self.document_texts())
        return self._source


def _is_window(window: Any) -> bool:
    return (isinstance(window, dict) and isinstance(window.get("doc_id"), str)
            and isinstance(window.get("start"), int))

"""One registry: which parser reads a file, chosen by its first bytes, then its extension."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import PurePath

from ..errors import UnsupportedFile
from ..types import sha256_hex
from .model import Parsed
from .ocr import OcrEngine

__all__ = ["FORMATS", "detect_format", "parse_bytes"]

_MARKDOWN = frozenset({".md", ".markdown", ".mdown", ".rst"})
_CSV = frozenset({".csv", ".tsv"})
_HTML = frozenset({".html", ".htm", ".xhtml"})
_CODE = frozenset({
    ".py", ".pyi", ".js", ".mjs", ".ts", ".tsx", ".jsx", ".java", ".kt", ".c", ".h", ".cc",
    ".cpp", ".hpp", ".cs", ".go", ".rs", ".rb", ".php", ".swift", ".scala", ".sh", ".bash",
    ".sql", ".r", ".lua", ".pl", ".toml", ".yaml", ".yml", ".json", ".xml", ".ini", ".cfg",
    ".css", ".scss", ".mk", ".cmake", ".gradle", ".proto", ".tf",
})
_NO_PARSER = frozenset({
    ".doc", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".png", ".jpg", ".jpeg", ".gif", ".tif",
    ".tiff", ".bmp", ".webp", ".zip", ".gz", ".tar", ".7z", ".exe", ".dll", ".so", ".pyc",
    ".class", ".jar", ".whl", ".sqlite", ".db", ".mp3", ".mp4", ".wav",
})

FORMATS = ("pdf", "docx", "html", "markdown", "csv", "code", "text")


def detect_format(data: bytes, name: str) -> str:
    """The parser for a file: magic bytes first (a PDF named .txt is a PDF), then its name."""
    suffix = PurePath(name).suffix.lower()
    if data[:1024].lstrip().startswith(b"%PDF-") or suffix == ".pdf":
        return "pdf"
    if data.startswith(b"PK\x03\x04"):
        if suffix == ".docx" or _is_docx(data):
            return "docx"
        raise UnsupportedFile(f"{name} is a ZIP archive ({suffix or 'no extension'}); "
                              "only DOCX among ZIP-based formats is read")
    if suffix == ".docx":
        return "docx"
    if suffix in _NO_PARSER:
        raise UnsupportedFile(f"{name}: no parser reads {suffix} files")
    if suffix in _HTML:
        return "html"
    if suffix in _MARKDOWN:
        return "markdown"
    if suffix in _CSV:
        return "csv"
    if suffix in _CODE:
        return "code"
    head = data[:512].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")):
        return "html"
    return "text"


def _is_docx(data: bytes) -> bool:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return "word/document.xml" in archive.namelist()
    except zipfile.BadZipFile:
        return False


def parse_bytes(data: bytes, name: str, *, ocr: OcrEngine | None = None) -> Parsed:
    """Parse one file's bytes. The same bytes and PARSER_VERSION give the same result.

    Raises UnsupportedFile (binary, encrypted, damaged, no parser) with a message naming the
    file. `ocr` reads image-only PDF pages; without it they are warned about.
    """
    fmt = detect_format(data, name)
    raw_sha256 = sha256_hex(data)
    parser: Callable[[], Parsed]
    if fmt == "pdf":
        from .pdf import parse_pdf  # imported on use: pdfium is only needed for PDFs

        def parser() -> Parsed:
            return parse_pdf(data, name, raw_sha256, ocr)
    elif fmt == "docx":
        from .docx import parse_docx

        def parser() -> Parsed:
            return parse_docx(data, name, raw_sha256)
    elif fmt == "html":
        from .html import parse_html

        def parser() -> Parsed:
            return parse_html(data, name, raw_sha256)
    else:
        from .text import parse_text

        def parser() -> Parsed:
            return parse_text(data, name, fmt, raw_sha256)
    parsed = parser()
    _check_text(parsed, name)
    return parsed


def _check_text(parsed: Parsed, name: str) -> None:
    """The canonical text must encode as UTF-8 (no lone surrogates from a broken file)."""
    try:
        parsed.text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UnsupportedFile(f"{name} decodes to invalid Unicode: {exc.reason}") from None

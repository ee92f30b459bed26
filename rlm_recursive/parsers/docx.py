"""DOCX: python-docx. Paragraphs and tables in body order; headings from their styles."""

from __future__ import annotations

import io
import re
import zipfile

import docx
from docx.opc.exceptions import PackageNotFoundError
from docx.table import Table
from docx.text.paragraph import Paragraph

from ..errors import UnsupportedFile
from .model import Parsed, TextBuilder

__all__ = ["parse_docx"]

_HEADING_STYLE = re.compile(r"^(?:Heading|Überschrift|Titre)\s*(\d)$", re.IGNORECASE)


def parse_docx(data: bytes, name: str, raw_sha256: str) -> Parsed:
    try:
        document = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise UnsupportedFile(f"{name} is a damaged DOCX file: {exc}") from None
    builder = TextBuilder()
    for item in document.iter_inner_content():
        if isinstance(item, Table):
            builder.table([[cell.text for cell in row.cells] for row in item.rows])
        elif isinstance(item, Paragraph):
            level = _heading_level(item)
            if level is not None:
                builder.heading(level, item.text)
            elif item.text.strip():
                builder.block(item.text)
    return Parsed(text=builder.text(), format="docx", raw_sha256=raw_sha256,
                  headings=builder.headings, tables=builder.tables)


def _heading_level(paragraph: Paragraph) -> int | None:
    style = paragraph.style.name if paragraph.style is not None else ""
    if style == "Title":
        return 1
    m = _HEADING_STYLE.match(style or "")
    return int(m.group(1)) if m else None

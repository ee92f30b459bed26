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
    # `Paragraph.style` looks the default style up again for every paragraph (seconds for a
    # long document): read each paragraph's style id from its XML, name each id once.
    styles = document.styles.element
    names: dict[str, str | None] = {}
    for item in document.iter_inner_content():
        if isinstance(item, Table):
            builder.table([[cell.text for cell in row.cells] for row in item.rows])
        elif isinstance(item, Paragraph):
            style_id = item._p.style
            if style_id is not None and style_id not in names:
                found = styles.get_by_id(style_id)
                names[style_id] = found.name_val if found is not None else None
            level = _heading_level(names.get(style_id) if style_id else None)
            if level is not None:
                builder.heading(level, item.text)
            elif item.text.strip():
                builder.block(item.text)
    return Parsed(text=builder.text(), format="docx", raw_sha256=raw_sha256,
                  headings=builder.headings, tables=builder.tables)


def _heading_level(style: str | None) -> int | None:
    if style == "Title":
        return 1
    m = _HEADING_STYLE.match(style or "")
    return int(m.group(1)) if m else None

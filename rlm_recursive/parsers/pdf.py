"""PDF: pypdfium2, page by page. Lines are rebuilt from pdfium's text rectangles, so a line
made of cells far apart (a table row) reads `cell | cell`; runs of such rows are tables.
Pages with no text layer go to OCR when it is on, else they get a warning."""

from __future__ import annotations

from itertools import pairwise

import pypdfium2 as pdfium

from ..errors import UnsupportedFile
from .model import PAGE_SEPARATOR, Parsed
from .ocr import OcrEngine

__all__ = ["parse_pdf"]

_CELL_GAP_PT = 12.0
"""Horizontal gap (points) between two rectangles of one line that makes them table cells."""


def parse_pdf(data: bytes, name: str, raw_sha256: str, ocr: OcrEngine | None) -> Parsed:
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        reason = "encrypted" if "password" in str(exc).lower() else "damaged"
        raise UnsupportedFile(f"{name} is {reason} and cannot be read ({exc})", reason=reason
                              ) from None
    try:
        return _parse(document, name, raw_sha256, ocr)
    finally:
        document.close()


def _parse(document: pdfium.PdfDocument, name: str, raw_sha256: str,
           ocr: OcrEngine | None) -> Parsed:
    parts: list[str] = []
    pages: list[tuple[int, int, int]] = []
    tables: list[dict] = []
    warnings: list[str] = []
    length = 0
    for index in range(len(document)):
        number = index + 1
        page = document[index]
        try:
            text, page_tables = _page_text(page)
            if not text.strip() and _has_images(page):
                if ocr is not None and ocr.available:
                    text, problem = ocr.page_text(page)
                    warnings.append(f"{name} page {number}: image only, "
                                    + (f"OCR failed: {problem}" if problem else "OCR applied"))
                else:
                    warnings.append(f"{name} page {number}: image only, no text "
                                    f"(install OCR: {OcrEngine.install_hint()})")
        finally:
            page.close()
        for table in page_tables:
            tables.append({**table, "start_char": length + table["start_char"],
                           "end_char": length + table["end_char"], "page": number})
        pages.append((number, length, length + len(text)))
        parts.append(text + PAGE_SEPARATOR)
        length += len(text) + len(PAGE_SEPARATOR)
    headings = _outline(document, pages)
    return Parsed(text="".join(parts), format="pdf", raw_sha256=raw_sha256, pages=pages,
                  headings=headings, tables=tables, warnings=warnings)


def _page_text(page: pdfium.PdfPage) -> tuple[str, list[dict]]:
    """The page's lines, top to bottom, and the tables among them (offsets in the page)."""
    textpage = page.get_textpage()
    try:
        boxes = []
        for i in range(textpage.count_rects()):
            left, bottom, right, top = textpage.get_rect(i)
            piece = textpage.get_text_bounded(left, bottom, right, top).strip()
            if piece:
                boxes.append((left, bottom, right, top, " ".join(piece.split())))
    finally:
        textpage.close()
    lines = _lines(boxes)
    out, tables, length, run = [], [], 0, []
    for cells in lines:
        row_text = " | ".join(cells)
        start = length
        out.append(row_text)
        length += len(row_text) + 1
        if len(cells) > 1:
            run.append((start, start + len(row_text), len(cells)))
        else:
            _close_table(run, tables)
    _close_table(run, tables)
    return "\n".join(out), tables


def _close_table(run: list[tuple[int, int, int]], tables: list[dict]) -> None:
    if len(run) >= 2:
        tables.append({"start_char": run[0][0], "end_char": run[-1][1], "rows": len(run),
                       "cols": max(cols for _, _, cols in run)})
    run.clear()


def _lines(boxes: list[tuple[float, float, float, float, str]]) -> list[list[str]]:
    """Group rectangles into lines (vertical overlap), left to right; far apart = cells."""
    rows: list[list[tuple[float, float, float, float, str]]] = []
    for box in sorted(boxes, key=lambda b: (-b[3], b[0])):
        middle = (box[1] + box[3]) / 2
        row = rows[-1] if rows else None
        if row is not None and min(b[1] for b in row) <= middle <= max(b[3] for b in row):
            row.append(box)
        else:
            rows.append([box])
    lines = []
    for row in rows:
        row.sort(key=lambda b: b[0])
        cells = [row[0][4]]
        for previous, box in pairwise(row):
            if box[0] - previous[2] > _CELL_GAP_PT:
                cells.append(box[4])
            else:
                cells[-1] += " " + box[4]
        lines.append(cells)
    return lines


def _has_images(page: pdfium.PdfPage) -> bool:
    return any(True for _ in page.get_objects(filter=(pdfium.raw.FPDF_PAGEOBJ_IMAGE,),
                                              max_depth=2))


def _outline(document: pdfium.PdfDocument, pages: list[tuple[int, int, int]]) -> list[dict]:
    """The PDF's bookmarks as headings, each at the start of the page it points to."""
    headings = []
    try:
        for item in document.get_toc(max_depth=6):
            dest = item.get_dest()
            index = dest.get_index() if dest is not None else None
            if index is None or not 0 <= index < len(pages):
                continue
            _, start, end = pages[index]
            headings.append({"type": "section", "title": item.get_title(),
                             "level": item.level + 1, "start_char": start, "end_char": end,
                             "page": index + 1})
    except pdfium.PdfiumError:
        return []
    return headings

"""Real documents made by real writers (fpdf2, python-docx, Pillow) for the parser tests."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import docx
from fpdf import FPDF

__all__ = ["write_docx", "write_image_pdf", "write_pdf"]


def write_pdf(path: Path, pages: Sequence[str], *, table: tuple[int, list[list[str]]] | None = None,
              password: str | None = None, outline: bool = False) -> Path:
    """One page per text; `table` = (page number, rows) adds a table to that page."""
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    if password is not None:
        pdf.set_encryption(owner_password=password + "-owner", user_password=password)
    for number, text in enumerate(pages, start=1):
        pdf.add_page()
        if outline:
            pdf.start_section(f"Part {number}")
        pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
        if table is not None and table[0] == number:
            with pdf.table() as grid:
                for row in table[1]:
                    cells = grid.row()
                    for cell in row:
                        cells.cell(cell)
    pdf.output(str(path))
    return path


def write_image_pdf(path: Path, lines: Sequence[str]) -> Path:
    """A scanned-looking PDF: text drawn by fpdf2, rendered to pixels, saved as an image PDF
    by Pillow (no text layer left)."""
    import pypdfium2 as pdfium

    text_pdf = path.with_suffix(".text.pdf")
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=20)
    for line in lines:
        pdf.cell(0, 14, line, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(text_pdf))
    document = pdfium.PdfDocument(str(text_pdf))
    image = document[0].render(scale=200 / 72, grayscale=True).to_pil()
    document.close()
    text_pdf.unlink()
    image.save(path, "PDF", resolution=200)
    return path


def write_docx(path: Path, blocks: Sequence[tuple[str, object]]) -> Path:
    """Blocks in order: ("h1", text), ("h2", text), ("p", text) or ("table", rows)."""
    document = docx.Document()
    for kind, value in blocks:
        if kind == "table":
            rows = list(value)  # type: ignore[call-overload]
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    table.cell(r, c).text = cell
        elif kind.startswith("h"):
            document.add_heading(str(value), int(kind[1:]))
        else:
            document.add_paragraph(str(value))
    document.save(str(path))
    return path

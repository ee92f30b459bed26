"""Parsers on real files made by real writers (fpdf2, python-docx, Pillow, hand-written HTML)."""

from __future__ import annotations

import codecs
import shutil
from pathlib import Path

import pytest
from doc_writers import write_docx, write_image_pdf, write_pdf

from rlm_recursive.errors import UnsupportedFile
from rlm_recursive.parsers import PAGE_SEPARATOR, PARSER_VERSION, OcrEngine, parse_bytes
from rlm_recursive.types import sha256_hex

PAGES = [
    "Admission. Every patient is weighed on arrival.",
    "Anticoagulation. Check the platelet count before the first dose.",
    "Infusions. Pumps are checked each shift by two nurses.",
    "Heparin. The maximum standard heparin infusion rate is 18 units/kg/h.",
    "Discharge. Give the patient the written plan.",
]


def _pdf(tmp_path: Path, **kwargs: object) -> bytes:
    return write_pdf(tmp_path / "h.pdf", PAGES, **kwargs).read_bytes()  # type: ignore[arg-type]


def test_pdf_page_map_covers_each_page_text(tmp_path: Path) -> None:
    data = _pdf(tmp_path)
    parsed = parse_bytes(data, "h.pdf")
    assert parsed.format == "pdf" and parsed.page_count == 5
    assert [p for p, _, _ in parsed.pages] == [1, 2, 3, 4, 5]
    for (_, start, end), text in zip(parsed.pages, PAGES, strict=True):
        assert " ".join(parsed.text[start:end].split()) == text
        assert parsed.text[end:end + len(PAGE_SEPARATOR)] == PAGE_SEPARATOR
    assert parsed.pages[0][1] == 0 and parsed.pages[-1][2] + len(PAGE_SEPARATOR) == len(
        parsed.text)
    assert parsed.raw_sha256 == sha256_hex(data) and parsed.parser_version == PARSER_VERSION
    assert parsed.encoding is None and parsed.warnings == []


def test_pdf_parse_is_deterministic(tmp_path: Path) -> None:
    data = _pdf(tmp_path, table=(3, [["Drug", "Dose"], ["Heparin", "5000 u"]]))
    first, second = parse_bytes(data, "h.pdf"), parse_bytes(data, "h.pdf")
    assert first.text == second.text
    assert sha256_hex(first.text.encode()) == sha256_hex(second.text.encode())
    assert first.meta() == second.meta()


def test_pdf_table_reads_as_rows_and_is_recorded(tmp_path: Path) -> None:
    rows = [["Drug", "Dose", "Rate"], ["Heparin", "5000 u", "18 u/kg/h"],
            ["Insulin", "2 u", "1 u/h"]]
    parsed = parse_bytes(_pdf(tmp_path, table=(4, rows)), "h.pdf")
    assert "Heparin | 5000 u | 18 u/kg/h" in parsed.text
    [table] = parsed.tables
    assert (table["page"], table["rows"], table["cols"]) == (4, 3, 3)
    assert parsed.text[table["start_char"]:table["end_char"]].splitlines()[0] == \
        "Drug | Dose | Rate"
    _, start, end = parsed.pages[3]
    assert start <= table["start_char"] < table["end_char"] <= end


def test_pdf_outline_gives_headings_with_pages(tmp_path: Path) -> None:
    parsed = parse_bytes(_pdf(tmp_path, outline=True), "h.pdf")
    assert [(h["title"], h["page"]) for h in parsed.headings] == [
        (f"Part {n}", n) for n in range(1, 6)]


def test_encrypted_pdf_is_unsupported_and_says_encrypted(tmp_path: Path) -> None:
    data = _pdf(tmp_path, password="s3cret")
    with pytest.raises(UnsupportedFile) as caught:
        parse_bytes(data, "locked.pdf")
    assert "encrypted" in caught.value.message and "locked.pdf" in caught.value.message
    assert caught.value.details["reason"] == "encrypted"


@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_damaged_pdf_is_unsupported_and_says_damaged(tmp_path: Path, damage: str) -> None:
    data = _pdf(tmp_path)
    bad = data[: len(data) // 3] if damage == "truncated" else b"%PDF-1.7\n" + bytes(range(256))
    with pytest.raises(UnsupportedFile) as caught:
        parse_bytes(bad, "broken.pdf")
    assert "damaged" in caught.value.message
    assert caught.value.details["reason"] == "damaged"


def test_image_only_pdf_without_ocr_loads_with_a_warning_per_page(tmp_path: Path) -> None:
    data = write_image_pdf(tmp_path / "notice.pdf", ["NOTICE ward seven"]).read_bytes()
    parsed = parse_bytes(data, "notice.pdf", ocr=None)
    assert parsed.page_count == 1 and parsed.text.strip() == ""
    assert parsed.warnings == [parsed.warnings[0]]
    assert parsed.warnings[0].startswith("notice.pdf page 1: image only, no text (install OCR")


def test_image_only_pdf_when_ocr_is_asked_but_missing(tmp_path: Path) -> None:
    data = write_image_pdf(tmp_path / "notice.pdf", ["NOTICE ward seven"]).read_bytes()
    parsed = parse_bytes(data, "notice.pdf", ocr=OcrEngine(tesseract=None))
    assert len(parsed.warnings) == 1 and "install OCR" in parsed.warnings[0]


@pytest.mark.skipif(shutil.which("tesseract") is None,
                    reason="tesseract is not installed (.ci/run installs Debian's tesseract-ocr)")
def test_ocr_reads_an_image_only_page_with_real_tesseract(tmp_path: Path) -> None:
    lines = ["NOTICE: ward seven is closed", "Heparin maximum 2000 units per hour"]
    data = write_image_pdf(tmp_path / "scan.pdf", lines).read_bytes()
    parsed = parse_bytes(data, "scan.pdf", ocr=OcrEngine.find())
    assert parsed.warnings == ["scan.pdf page 1: image only, OCR applied"]
    words = " ".join(parsed.text.split()).lower()
    assert "ward seven is closed" in words and "2000 units per hour" in words


def test_docx_paragraphs_headings_and_tables_in_order(tmp_path: Path) -> None:
    path = write_docx(tmp_path / "memo.docx", [
        ("h1", "Ward policy"), ("p", "Visiting hours are 10 to 20."),
        ("h2", "Doses"), ("table", [["Drug", "Max"], ["Heparin", "18 u/kg/h"]]),
        ("p", "Ask the pharmacist when unsure."),
    ])
    parsed = parse_bytes(path.read_bytes(), "memo.docx")
    assert parsed.format == "docx" and parsed.page_count is None
    assert parsed.text.splitlines() == ["Ward policy", "Visiting hours are 10 to 20.", "Doses",
                                        "Drug | Max", "Heparin | 18 u/kg/h",
                                        "Ask the pharmacist when unsure."]
    assert [(h["title"], h["level"]) for h in parsed.headings] == [("Ward policy", 1),
                                                                    ("Doses", 2)]
    [table] = parsed.tables
    assert parsed.text[table["start_char"]:table["end_char"]] == "Drug | Max\nHeparin | 18 u/kg/h"


def test_damaged_docx_is_unsupported(tmp_path: Path) -> None:
    data = write_docx(tmp_path / "m.docx", [("p", "x")]).read_bytes()
    with pytest.raises(UnsupportedFile, match="damaged"):
        parse_bytes(data[:200], "m.docx")


HTML = """<!DOCTYPE html>
<html><head><title>Ward 7</title><style>p { color: red }</style>
<script>var dose = "999 units";</script></head>
<body><nav><a href="/">Home</a> | <a href="/x">Menu item</a></nav>
<main><h1>Heparin protocol</h1>
<p>Start at <b>18 units/kg/h</b> and check
   the aPTT after six hours.</p>
<ul><li>Weigh the patient</li><li>Check platelets</li></ul>
<table><tr><th>Time</th><th>Action</th></tr><tr><td>6 h</td><td>aPTT</td></tr></table>
<div>Loose text in a div</div>
</main><footer>© Hospital 2026</footer></body></html>"""


def test_html_drops_scripts_styles_nav_footer_and_keeps_structure() -> None:
    parsed = parse_bytes(HTML.encode("utf-8"), "ward.html")
    assert parsed.format == "html" and parsed.encoding == "utf-8"
    assert parsed.text.splitlines() == [
        "Heparin protocol", "Start at 18 units/kg/h and check the aPTT after six hours.",
        "Weigh the patient", "Check platelets", "Time | Action", "6 h | aPTT",
        "Loose text in a div"]
    for gone in ("999 units", "color: red", "Menu item", "Hospital 2026"):
        assert gone not in parsed.text
    assert [h["title"] for h in parsed.headings] == ["Heparin protocol"]
    assert parsed.tables[0]["rows"] == 2


TEXT = "Ärztliche Übergabe: café, crème, naïve — 18 units/kg/h.\nZweite Zeile.\n"


@pytest.mark.parametrize(("raw", "encoding"), [
    (TEXT.encode("utf-8"), "utf-8"),
    (codecs.BOM_UTF8 + TEXT.encode("utf-8"), "utf-8"),
    (codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"), "utf-16-le"),
    (codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"), "utf-16-be"),
    (codecs.BOM_UTF32_LE + TEXT.encode("utf-32-le"), "utf-32-le"),
    (TEXT.encode("utf-16-le"), "utf-16-le"),
])
def test_unicode_encodings_and_boms(raw: bytes, encoding: str) -> None:
    parsed = parse_bytes(raw, "notes.txt")
    assert parsed.text == TEXT and parsed.encoding == encoding


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1"])
def test_western_legacy_encodings(encoding: str) -> None:
    text = TEXT.replace("—", "-") * 3
    parsed = parse_bytes(text.encode(encoding), "old.txt")
    assert parsed.text == text
    assert parsed.encoding in {"cp1252", "latin_1", "iso8859_15"}


def test_shift_jis_is_detected() -> None:
    text = "ヘパリンの最大投与速度は毎時18単位です。患者の体重を確認してください。\n" * 3
    parsed = parse_bytes(text.encode("shift_jis"), "jp.txt")
    assert parsed.text == text
    assert parsed.encoding in {"shift_jis", "cp932", "shift_jis_2004"}


@pytest.mark.parametrize("raw", [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01", b"\x00" * 64])
def test_binary_is_unsupported(raw: bytes) -> None:
    with pytest.raises(UnsupportedFile, match="binary"):
        parse_bytes(raw, "blob.dat")


def test_text_keeps_line_endings_and_markdown_headings() -> None:
    raw = b"# Title\r\n\r\nBody line\r\n## Sub\r\n"
    parsed = parse_bytes(raw, "a.md")
    assert parsed.text == raw.decode() and parsed.line_endings == "as-is"
    assert [(h["title"], h["level"]) for h in parsed.headings] == [("Title", 1), ("Sub", 2)]
    assert parsed.text[parsed.headings[1]["start_char"]:parsed.headings[1]["end_char"]] == "Sub"


def test_csv_keeps_its_header() -> None:
    raw = b"drug,max_rate\nheparin,18\n"
    parsed = parse_bytes(raw, "doses.csv")
    assert parsed.format == "csv" and parsed.text.startswith("drug,max_rate\n")


def test_offset_checkpoints_map_chars_to_utf8_bytes() -> None:
    text = ("é" * 9_999 + "x\n") * 3
    meta = parse_bytes(text.encode("utf-8"), "t.txt").meta()
    offsets = meta["offsets"]
    assert offsets["char_length"] == len(text)
    assert offsets["byte_length"] == len(text.encode("utf-8"))
    for point in offsets["checkpoints"]:
        assert len(text[: point["char"]].encode("utf-8")) == point["byte"]

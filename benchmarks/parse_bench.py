"""Parsing throughput (issue 19): PDF pages/s on a generated 500-page PDF (text layer, no
OCR), and files/s loading a generated 2,000-file mixed folder (PDF, DOCX, HTML, Markdown,
CSV, code, Latin-1 and UTF-16 text) into a fresh store.

    python benchmarks/parse_bench.py [--pages 500] [--files 2000] [--workers N] [--dir DIR]

Prints one JSON object. Target: >= 200 PDF pages/s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from fpdf import FPDF

_WORDS = ("dose infusion heparin patient ward nurse protocol chart rate hour review sign "
          "clinic theatre discharge bed audit record shift handover team").split()


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(8, 16))).capitalize() + "."


def make_pdf(path: Path, pages: int, seed: int = 7) -> None:
    """A text-layer PDF: a heading, three paragraphs and, on every fifth page, a table."""
    rng = random.Random(seed)
    pdf = FPDF()
    pdf.set_font("Helvetica", size=10)
    for number in range(1, pages + 1):
        pdf.add_page()
        pdf.cell(0, 8, f"Section {number}", new_x="LMARGIN", new_y="NEXT")
        for _ in range(3):
            pdf.multi_cell(0, 5, " ".join(_sentence(rng) for _ in range(5)),
                           new_x="LMARGIN", new_y="NEXT")
        if number % 5 == 0:
            with pdf.table() as table:
                for row in [("Drug", "Dose", "Rate")] + [
                        (rng.choice(_WORDS), f"{rng.randint(1, 900)} mg", f"{rng.randint(1, 60)}/h")
                        for _ in range(4)]:
                    cells = table.row()
                    for cell in row:
                        cells.cell(cell)
    pdf.output(str(path))


def make_folder(root: Path, files: int, seed: int = 11) -> None:
    """A mixed folder: mostly small text files, some PDFs (3 pages), DOCX and HTML."""
    import docx

    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    small_pdf = root / "_template.pdf"
    make_pdf(small_pdf, 3, seed)
    pdf_bytes = small_pdf.read_bytes()
    small_pdf.unlink()
    for i in range(files):
        kind = i % 10
        body = "\n".join(_sentence(rng) for _ in range(rng.randint(5, 40)))
        if kind == 0:
            (root / f"f{i:05d}.pdf").write_bytes(pdf_bytes)
        elif kind == 1:
            document = docx.Document()
            document.add_heading(f"Memo {i}", 1)
            for line in body.splitlines():
                document.add_paragraph(line)
            document.save(str(root / f"f{i:05d}.docx"))
        elif kind == 2:
            paragraphs = "".join(f"<p>{line}</p>" for line in body.splitlines())
            (root / f"f{i:05d}.html").write_text(
                f"<html><head><script>var x=1;</script></head><body><nav>menu</nav>"
                f"<h1>Page {i}</h1>{paragraphs}<footer>foot</footer></body></html>", "utf-8")
        elif kind == 3:
            (root / f"f{i:05d}.md").write_text(f"# Note {i}\n\n{body}\n", "utf-8")
        elif kind == 4:
            rows = "\n".join(f"{rng.choice(_WORDS)},{rng.randint(1, 99)}" for _ in range(30))
            (root / f"f{i:05d}.csv").write_text("name,value\n" + rows + "\n", "utf-8")
        elif kind == 5:
            (root / f"f{i:05d}.py").write_text(
                "\n".join(f"x{n} = {n}  # {_sentence(rng)}" for n in range(20)), "utf-8")
        elif kind == 6:
            (root / f"f{i:05d}.txt").write_bytes(("Café " + body).encode("latin-1"))
        elif kind == 7:
            (root / f"f{i:05d}.txt").write_bytes(("Ärzte " + body).encode("utf-16"))
        else:
            (root / f"f{i:05d}.log").write_text(body + "\n", "utf-8")


def bench_pdf(path: Path, workers: int | None) -> dict:
    """Pages/s of the parser alone, and of a whole load (read, parse, store) of the PDF."""
    from rlm_recursive.parsers import parse_bytes

    data = path.read_bytes()
    runs = []
    for _ in range(3):
        started = time.perf_counter()
        parsed = parse_bytes(data, path.name)
        runs.append(time.perf_counter() - started)
    pages = parsed.page_count or 0
    load = _load_folder(path, workers)
    return {"pdf_pages": pages, "pdf_bytes": len(data), "pdf_tables": len(parsed.tables),
            "pages_per_s_parse": round(pages / min(runs), 1),
            "pages_per_s_load": round(pages / load["seconds"], 1)}


def _load_folder(target: Path, workers: int | None) -> dict:
    from rlm_recursive.config import SessionConfig
    from rlm_recursive.corpus.loaders import Source, load_sources
    from rlm_recursive.policy import PathPolicy
    from rlm_recursive.store import Store

    with tempfile.TemporaryDirectory() as data_dir:
        store = Store(Path(data_dir))
        config = SessionConfig()
        session = store.create_session("bench", config)["session_id"]
        policy = PathPolicy(allowed_roots=[target.parent], allow_absolute_paths=True)
        kind = "directory" if target.is_dir() else "file"
        started = time.perf_counter()
        report = load_sources(store, session, [Source(type=kind, path=str(target),
                                                      recursive=True)],
                              policy, config, workers=workers, ocr=False)
        elapsed = time.perf_counter() - started
        store.close()
    return {"seconds": elapsed, "loaded": len(report.loaded), "errors": len(report.errors),
            "pages": report.pages}


def bench_folder(root: Path, workers: int | None) -> dict:
    """Files/s of a whole load (walk, read, parse in the pool, store) of the mixed folder."""
    load = _load_folder(root, workers)
    files = load["loaded"] + load["errors"]
    return {"folder_files": files, "folder_loaded": load["loaded"],
            "folder_errors": load["errors"], "folder_pages": load["pages"],
            "files_per_s": round(files / load["seconds"], 1),
            "folder_s": round(load["seconds"], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=500)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--dir", type=Path, default=None, help="keep the generated files here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.dir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        pdf = work / "bench.pdf"
        if not pdf.exists():
            make_pdf(pdf, args.pages)
        folder = work / "mixed"
        if not folder.exists():
            make_folder(folder, args.files)
        result = {**bench_pdf(pdf, args.workers), **bench_folder(folder, args.workers)}
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()

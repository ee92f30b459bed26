"""OCR of image-only PDF pages: Debian's `tesseract-ocr` on pages pypdfium2 renders.

The engine runs as a subprocess with a fixed argument list (no shell, no user text in it);
it is optional: `pip install 'rlm-recursive[ocr]'` (Pillow) and `apt-get install
tesseract-ocr`.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium

__all__ = ["OcrEngine"]

_DPI = 300
_TIMEOUT_S = 120


@dataclass(frozen=True)
class OcrEngine:
    """Where tesseract is (None when not installed) and the language it reads."""

    tesseract: str | None
    language: str = "eng"

    @classmethod
    def find(cls, language: str = "eng") -> OcrEngine:
        return cls(shutil.which("tesseract"), language)

    @property
    def available(self) -> bool:
        return self.tesseract is not None and _pillow()

    @staticmethod
    def install_hint() -> str:
        return "apt-get install tesseract-ocr and pip install 'rlm-recursive[ocr]'"

    def version(self) -> str | None:
        if self.tesseract is None:
            return None
        try:
            done = subprocess.run([self.tesseract, "--version"], capture_output=True,
                                  text=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        first = (done.stdout or done.stderr).splitlines()
        return first[0].strip() if first else None

    def page_text(self, page: pdfium.PdfPage) -> tuple[str, str | None]:
        """The recognised text of a rendered page, or ("", why it failed)."""
        assert self.tesseract is not None
        image = page.render(scale=_DPI / 72, grayscale=True).to_pil()
        with tempfile.TemporaryDirectory(prefix="rlm-ocr-") as folder:
            png = Path(folder) / "page.png"
            image.save(png)
            try:
                done = subprocess.run(
                    [self.tesseract, str(png), "stdout", "-l", self.language, "--dpi",
                     str(_DPI)],
                    capture_output=True, text=True, timeout=_TIMEOUT_S, check=False)
            except subprocess.TimeoutExpired:
                return "", f"tesseract took over {_TIMEOUT_S}s"
            except OSError as exc:
                return "", f"tesseract could not run: {exc.strerror}"
        if done.returncode != 0:
            return "", (done.stderr.strip().splitlines() or ["tesseract failed"])[-1]
        lines = [" ".join(line.split()) for line in done.stdout.splitlines()]
        return "\n".join(line for line in lines if line), None


def _pillow() -> bool:
    try:
        import PIL  # noqa: F401  (the `ocr` extra: pypdfium2 renders to a PIL image)
    except ImportError:
        return False
    return True

"""Plain text, Markdown, CSV and code: decoded from any encoding, kept as written, with lines.

Decoding order: a byte-order mark (UTF-32, then UTF-8 and UTF-16), strict UTF-8, a BOM-less
UTF-16 told apart by its NUL pattern, and last charset-normalizer for legacy encodings
(CP1252, Latin-1, Shift-JIS…). The encoding used is recorded.
"""

from __future__ import annotations

import codecs
import re

import charset_normalizer

from ..errors import UnsupportedFile
from .model import Parsed

__all__ = ["decode", "parse_text"]

# UTF-32 first: its little-endian BOM starts with UTF-16's.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_SNIFF_BYTES = 8192
_WESTERN = ("cp1252", "latin_1", "iso8859_15")
_MARKDOWN_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*\r?$", re.MULTILINE)


def decode(data: bytes, name: str) -> tuple[str, str]:
    """The text of `data` and the encoding it was read in; UnsupportedFile for binary data."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            body = data[len(bom):] if encoding != "utf-8-sig" else data
            try:
                return body.decode(encoding), encoding.removesuffix("-sig")
            except UnicodeDecodeError as exc:
                raise UnsupportedFile(f"{name} starts with a {encoding} byte-order mark but "
                                      f"is not valid {encoding}: {exc.reason}") from None
    head = data[:_SNIFF_BYTES]
    if b"\x00" in head:
        encoding = _utf16_without_bom(head)
        if encoding is None:
            raise UnsupportedFile(f"{name} looks binary (NUL bytes) and no parser reads it")
        try:
            return data.decode(encoding), encoding
        except UnicodeDecodeError:
            raise UnsupportedFile(f"{name} looks binary (NUL bytes) and no parser reads it"
                                  ) from None
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    best = _legacy(data)
    if best is None:
        raise UnsupportedFile(f"{name} is in no text encoding that could be detected")
    return str(best), best.encoding


def _legacy(data: bytes) -> charset_normalizer.CharsetMatch | None:
    """charset-normalizer's pick; among equally clean readings, Windows-1252 (as browsers
    read "Latin-1": short Western texts decode without errors in several code pages)."""
    matches = charset_normalizer.from_bytes(data)
    best = matches.best()
    if best is None:
        return None
    for match in matches:
        if match.chaos <= best.chaos and match.encoding in _WESTERN:
            return match
    return best


def _utf16_without_bom(head: bytes) -> str | None:
    """UTF-16 text of mostly ASCII has NUL in every other byte: which half says the order."""
    even, odd = head[0::2], head[1::2]
    if len(odd) < 2:
        return None
    if odd.count(0) >= 0.9 * len(odd) and even.count(0) <= 0.1 * len(even):
        return "utf-16-le"
    if even.count(0) >= 0.9 * len(even) and odd.count(0) <= 0.1 * len(odd):
        return "utf-16-be"
    return None


def parse_text(data: bytes, name: str, fmt: str, raw_sha256: str) -> Parsed:
    """Text formats keep their characters and line endings: offsets point into the file."""
    text, encoding = decode(data, name)
    headings = [{"type": "section", "title": m.group(2), "level": len(m.group(1)),
                 "start_char": m.start(2), "end_char": m.end(2)}
                for m in _MARKDOWN_HEADING.finditer(text)] if fmt == "markdown" else []
    return Parsed(text=text, format=fmt, raw_sha256=raw_sha256, encoding=encoding,
                  headings=headings, line_endings="as-is")

"""Parsers: every supported file format to one canonical UTF-8 text with its structure.

One module per format (pdf, docx, html, text), one registry that picks the parser, one
result type (`Parsed`, seed 003 §14). Pure: no store, no policy; safe to run in worker
processes.
"""

from .model import PAGE_SEPARATOR, PARSER_VERSION, Parsed
from .ocr import OcrEngine
from .registry import FORMATS, detect_format, parse_bytes

__all__ = [
    "FORMATS",
    "PAGE_SEPARATOR",
    "PARSER_VERSION",
    "OcrEngine",
    "Parsed",
    "detect_format",
    "parse_bytes",
]

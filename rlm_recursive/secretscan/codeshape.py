"""Values a keyword rule matched that are program text, not secrets.

The assignment rules (`token = …`, `auth: …`) fire on code as often as on configuration:
`token = match.group()`, `salt = secrets.token_bytes(32)`, `auth=auth`,
`chars_per_token: float = 3.0`. On this project's own sources they flagged 22 places, so a
code-heavy export needed `--redact` or `--allow-suspects`. A random password can look like a
call (`ix[vRxWMujuxTO8uh]` parses as a subscript), so the code shapes are trusted only where
the text is a Python program (it parses, and defines or imports something) and the value
sits outside its string literals and comments: there an unquoted value is an expression the
program evaluates, never a literal.

Two shapes are no secret anywhere: a placeholder naming a variable (`{token}`, `${TOKEN}`,
`<api_key>`) and an alphabet (detect-secrets' sequential strings, `ABCDEF…`).
"""

from __future__ import annotations

import ast
import bisect
import io
import keyword
import tokenize

import re2
from detect_secrets.filters.heuristic import is_sequential_string

__all__ = ["QUOTES", "PythonText", "is_placeholder"]

_MAX_PYTHON_CHARS = 2_000_000
"""Longer texts are not parsed (cost); their values are judged as configuration."""
QUOTES = "\"'`"
"""What a quoted value starts and ends with (shared with detect.py's widening)."""
_PROGRAM_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)
_PLACEHOLDER = re2.compile(
    r"^(?:\$?\{\{?\s*(?:[a-z_][a-z0-9_.]*|[A-Z_][A-Z0-9_.]*)\s*\}\}?"
    r"|<(?:[a-z_][a-z0-9_.-]*|[A-Z_][A-Z0-9_.-]*)>)$")
"""One-case names only: detect-secrets' own filter takes anything in braces, and a drawn
password such as `{t1Ub?VoS)]h}` or `{aBc9}` is mixed."""
_CALL_OR_ATTRIBUTE = re2.compile(
    r"^\(?[A-Za-z_][A-Za-z0-9_.]*\s*[(\[]"  # a call or a subscript: `match.group()`
    r"|^[A-Za-z_]\w*\.[A-Za-z_]"  # an attribute: `self._entropy`, `key.prompt_sha256`
    r"|^[A-Za-z_]\w*=[A-Za-z_][\w.]*$")  # a keyword argument: `key_requests=requests`
_KEY_BEFORE = re2.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*[:=]{1,2}\s*$")
_ANNOTATION_AFTER = re2.compile(r"^\s*(?:\|\s*None\b|=\s*[^=\s]|[,)])")


def is_placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER.search(value)) or (len(value) >= 8 and is_sequential_string(value))


class PythonText:
    """One scanned text, asked lazily whether a value in it is Python code."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._literals: list[tuple[int, int]] | None = None
        self._parsed: bool | None = None

    def is_code(self, start: int, end: int) -> bool:
        """The unquoted value at `[start, end)` is an expression, the variable its key
        names (`auth=auth`) or a type annotation, in Python code outside its literals."""
        text = self.text
        if start > 0 and text[start - 1] in QUOTES:
            return False
        value = text[start:end]
        name = value.rstrip("),;]}")  # `f(api_key=api_key)` widened to the bracket
        key = _KEY_BEFORE.search(text[max(0, start - 80):start])
        shaped = bool(_CALL_OR_ATTRIBUTE.search(value)) or keyword.iskeyword(name) or (
            key is not None and (
                key.group(1) == name
                or ("=" not in key.group(0) and name.isidentifier()
                    and bool(_ANNOTATION_AFTER.search(text[end:end + 40])))))
        return shaped and self._is_python() and not self.in_literal(start)

    def _is_python(self) -> bool:
        if self._parsed is None:
            self._parsed = False
            if len(self.text) <= _MAX_PYTHON_CHARS:
                try:
                    tree = ast.parse(self.text)
                except (SyntaxError, ValueError, MemoryError, RecursionError):
                    return False
                # `key: value` and `A=b=c` lines parse too: a module is a program when it
                # defines or imports something, which no configuration file does.
                self._parsed = any(isinstance(node, _PROGRAM_NODES) for node in tree.body)
        return self._parsed

    def in_literal(self, offset: int) -> bool:
        """Inside a string (docstrings and f-strings too) or a comment."""
        if self._literals is None:
            self._literals = _literal_spans(self.text)
        at = bisect.bisect_right(self._literals, (offset, float("inf"))) - 1
        return at >= 0 and self._literals[at][0] <= offset < self._literals[at][1]


def _literal_spans(text: str) -> list[tuple[int, int]]:
    # tokenize reads lines split at "\n" only (StringIO's default), as these offsets do.
    line_starts = [0, *(match.end() for match in re2.finditer("\n", text))]

    def offset(position: tuple[int, int]) -> int:
        return line_starts[position[0] - 1] + position[1]

    kinds = {tokenize.STRING, tokenize.COMMENT}
    kinds |= {getattr(tokenize, n) for n in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
              if hasattr(tokenize, n)}
    spans: list[tuple[int, int]] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in kinds:
                spans.append((offset(token.start), offset(token.end)))
    except (tokenize.TokenError, SyntaxError):
        return [(0, len(text))]  # cannot tell: treat everything as a literal (no filtering)
    return sorted(spans)

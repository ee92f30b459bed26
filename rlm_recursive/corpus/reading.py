"""The text a reader sees in a machine-written source, at the same offsets as the source.

A feed's `<content type="html">` holds escaped markup (`&lt;p&gt;Bins are emptied on a
&lt;strong&gt;Thursday&lt;/strong&gt;`), a man page wraps its words in troff (`.TP`,
`.B 3`, `\\fIDEST\\fR`, `\\-\\-keep`), an HTML page or mail body wraps them in tags, XML
hides text in CDATA: a passage cut from the raw text holds the syntax, and a sentence is
broken by it ("a &lt;strong&gt;Thursday" is no "a Thursday"). `reading_text` blanks that
syntax out with spaces (an entity becomes its character, padded; a block's tag a line
break), so the result has the source's length: a unit cut from it is cited at the source's
own offsets, and its words read as the sentence a reader sees.
"""

from __future__ import annotations

import functools
import html
import re

__all__ = ["plain", "reading_text", "shown"]

_ESCAPED_TAG = re.compile(r"&lt;/?(?P<name>[A-Za-z][\w:-]*)(?:\s[^<>\n]*?)?/?&gt;")
"""A tag written as text: HTML inside a feed's entry or an XML field."""
_CDATA = re.compile(r"<!\[CDATA\[|\]\]>")
_HTML_PAGE = re.compile(r"<!doctype\s+html|<html[\s>]|<body[\s>]"
                        r"|(?:<(?:p|br|td|div|li)\b[^<>]*>.*?){5}", re.IGNORECASE | re.DOTALL)
"""An HTML page or e-mail body, written as tags (a feed's or an XML export's own elements
are labels, not presentation: they stay)."""
_HIDDEN = re.compile(r"<(script|style|head)\b.*?</\1\s*>|<!--.*?-->|<![A-Za-z][^<>]*>"
                     r"|<\?[A-Za-z][^<>]*\?>", re.IGNORECASE | re.DOTALL)
_HTML_TAG = re.compile(r"</?(?P<name>[A-Za-z][\w:-]*)(?:\s[^<>]*)?/?>")
_BLOCKS = frozenset("p div br tr li ul ol table thead tbody tfoot h1 h2 h3 h4 h5 h6 hr section "
                    "article header footer nav aside main blockquote pre dl dt dd form "
                    "fieldset figure figcaption caption address title".split())
_ENTITY = re.compile(r"&(?:#\d{1,7}|#x[0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_TROFF_PAGE = re.compile(r"^\.(?:TH|SH|Dt|Sh)\b", re.MULTILINE)
"""A man page's title or section macro (man and mdoc): the document is troff."""
_TROFF_LINE = re.compile(r"^\.[A-Za-z]{1,2}(?:[ \t]|$)", re.MULTILINE)
_TROFF_SHARE = 0.15
"""Share of a passage's lines that are macro lines (`.TP`, `.B 3`) when it holds no section
macro: a window cut from the middle of a man page is troff too."""
_TROFF_COMMENT = re.compile(r'^[.\']?\\"')
_TROFF_MACRO = re.compile(r"^['.][A-Za-z]{1,3}\b\s*")
_TROFF_ESCAPE = re.compile(r"\\f(?:\[[^\]\n]*\]|\([A-Za-z0-9]{2}|[A-Za-z0-9])|\\\([A-Za-z]{2}"
                           r"|\\\[[^\]\n]*\]|\\[&|^/,%:]|\\s[-+]?\d")
"""Font changes (`\\fB`, `\\f(CW`, `\\f[R]`), special characters (`\\(em`), zero-width and
spacing escapes, size changes: presentation, no words."""
_TP_ITEM = re.compile(r"^\.TP[^\n]*\n(?P<tag>[^\n]*)\n", re.MULTILINE)
_ALTERNATING = frozenset("BR RB IR RI BI IB".split())
_TROFF_CHAR = re.compile(r"\\([-e ~0])")
_TROFF_CHARS = {"-": "-", "e": "\\", " ": " ", "~": " ", "0": " "}


_MIN_DIRECTIVES = 2
_POD_LINE = re.compile(r"^=(?:head[1-6]|item|over|back|pod|cut|begin|end|encoding|for)\b",
                       re.MULTILINE)
_POD_SILENT = re.compile(r"^=(?:over|back|pod|cut|begin|end|encoding|for)\b[^\n]*",
                         re.MULTILINE)
_POD_DIRECTIVE = re.compile(r"^=(?:head[1-6]|item)[ \t]*", re.MULTILINE)
_POD_DOUBLE = re.compile(r"([BICFLS]<{2,}\s)(.*?)(\s>{2,})")
_POD_CODE = re.compile(r"([BICFLSEXZ])<([^<>\n]*)>")
_LATEX = re.compile(r"\\documentclass\b|\\begin\{document\}")
_LATEX_HEAD = re.compile(r"^\\(?:part|chapter|section|subsection|subsubsection)\*?\{",
                         re.MULTILINE)
_LATEX_ENV = re.compile(r"\\(?:begin|end|documentclass|usepackage|label|ref|cite|input|include)"
                        r"(?:\[[^\]\n]*\])?\{[^{}\n]*\}(?:\{[^{}\n]*\}|\[[^\]\n]*\])*")
"""Commands whose arguments are names for the typesetter, not words for the reader."""
_TEXINFO = re.compile(r"^\\input texinfo", re.MULTILINE)
_TEXINFO_HEAD = re.compile(r"^@(?:node|chapter|section|subsection|table|item)\b", re.MULTILINE)


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def _entity(match: re.Match[str]) -> str:
    char = html.unescape(match.group(0))
    return (char + " " * len(match.group(0)))[:len(match.group(0))]


def _plain_troff(line: str) -> str:
    """A line's words as printed: `.BR \\-k ", " \\-\\-keep =\\fIN\\fR` is `-k, --keep=N`
    (the alternating-font macros join their arguments), `\\fB14\\fR.` is `14.`"""
    if _TROFF_COMMENT.match(line):
        return ""
    macro = _TROFF_MACRO.match(line)
    if macro:
        args = [a if a else b for a, b in re.findall(r'"([^"]*)"|(\S+)', line[macro.end():])]
        line = ("" if macro.group(0)[1:].strip() in _ALTERNATING else " ").join(args)
    line = _TROFF_ESCAPE.sub("", line)
    return _TROFF_CHAR.sub(lambda m: _TROFF_CHARS[m.group(1)], line)


def _fit(words: str, length: int) -> str:
    """`words` padded (or cut) to `length`: each line keeps its place in the source."""
    return (words + " " * length)[:length]


def _tagged(match: re.Match[str]) -> str:
    """A `.TP` item's head (the macro line and its tag line) as `tag:` on the line of its
    body, padded to the head's length: the tag reads as the label of what follows ("3:
    DEST is locked by another process"), as a definition list shows it."""
    head = match.group(0)
    tag = " ".join(_plain_troff(match.group("tag")).split())
    # A blank line first: each item is a paragraph of its own.
    return _fit(f"\n{tag}: ", len(head)) if len(tag) + 3 <= len(head) else head


def _troff(text: str) -> str:
    """Each line's printed words, padded to the line's length; an item's tag beside its
    body."""
    text = _TP_ITEM.sub(_tagged, text)
    return "\n".join(_troff_line(line) for line in text.split("\n"))


def _troff_line(line: str) -> str:
    if not (line[:1] in ".'\\" or "\\" in line):
        return line
    words = _plain_troff(line)
    # A request that prints nothing (`.PP`, `.br`, `.RS`, a comment) breaks the paragraph:
    # its characters read as blank lines.
    return _fit(words, len(line)) if words.strip() else "\n" * len(line)


def _html_tag(match: re.Match[str]) -> str:
    """A tag as a reader sees it: a block's edge is a line break, a cell's a gutter, any
    other tag nothing."""
    tag = match.group(0)
    if match.group("name").lower() in _BLOCKS:
        return "\n" + " " * (len(tag) - 1)
    return " " * len(tag)


def _html(text: str) -> str:
    text = _HIDDEN.sub(_blank, text)
    return _HTML_TAG.sub(_html_tag, text)


def _is_troff(text: str) -> bool:
    macros = len(_TROFF_LINE.findall(text))
    return macros >= 3 and macros >= _TROFF_SHARE * (text.count("\n") + 1)


def _pod(text: str) -> str:
    """Perl's POD: directive lines read as their text (`=head2 Options`, `=item --keep`), the
    rest (`=over`, `=cut`) as blank lines; `B<...>`, `C<< ... >>` as their contents."""
    text = _POD_SILENT.sub(lambda m: "\n" * len(m.group(0)), text)
    text = _POD_DIRECTIVE.sub(_blank, text)
    text = _POD_DOUBLE.sub(lambda m: " " * len(m.group(1)) + m.group(2) + " " * len(m.group(3)),
                           text)
    for _ in range(3):  # nested codes, innermost first: B<I<x>>
        text = _POD_CODE.sub(_pod_code, text)
    return text


def _pod_code(match: re.Match[str]) -> str:
    letter, body = match.group(1), match.group(2)
    if letter == "E":
        return _fit(" " + html.unescape(f"&{body};"), len(match.group(0)))
    if letter in "XZ":  # an index entry, a zero-width mark: nothing a reader sees
        return " " * len(match.group(0))
    return "  " + body + " "


def _commands(text: str, lead: str) -> str:
    """LaTeX (`\\`) or Texinfo (`@`) source read as its words: comments, commands, their
    braces and option brackets blanked; an escaped character (`\\%`, `@@`) read as itself;
    a table's cell separators as gutters."""
    esc = re.escape(lead)
    comment = r"(?<!\\)%[^\n]*" if lead == "\\" else r"^@c(?:omment)?\b[^\n]*"
    text = re.sub(comment, _blank, text, flags=re.MULTILINE)
    if lead == "\\":
        text = _LATEX_ENV.sub(_blank, text)
        text = re.sub(r"(?<!\\)&", " ", text)  # a table's cells: gutters
    text = re.sub(rf"(?<!{esc})[{{}}]", " ", text)
    text = re.sub(esc + r"[A-Za-z]+\*?(?:\[[^\]\n]*\])?", _blank, text)
    # "\\%" is a per cent sign, "@@" an at sign; LaTeX's "\\\\" ends a line (a table's row).
    return re.sub(esc + r"([^A-Za-z\s])", lambda m: "  " if m.group(0) == "\\\\"
                  else m.group(1) + " ", text)


@functools.lru_cache(maxsize=4)
def reading_text(text: str) -> str:
    """`text` with escaped markup, CDATA markers, entities and document markup (troff, HTML
    tags, POD, LaTeX, Texinfo) blanked out; the same length, every other character where it
    was. Cached: a search highlights its hits, and `shown` cuts each excerpt, from the whole
    document's reading (0.18 s for a 5 MB log, every call, before the cache)."""
    if _TROFF_PAGE.search(text) or _is_troff(text):
        text = _troff(text)
    elif _HTML_PAGE.search(text[:200_000]):
        text = _html(text)
    elif len(_POD_LINE.findall(text)) >= _MIN_DIRECTIVES:
        text = _pod(text)
    elif _LATEX.search(text) or len(_LATEX_HEAD.findall(text)) >= _MIN_DIRECTIVES:
        text = _commands(text, "\\")
    elif _TEXINFO.search(text) or len(_TEXINFO_HEAD.findall(text)) >= _MIN_DIRECTIVES:
        text = _commands(text, "@")
    return _inline(text)


def _inline(text: str) -> str:
    """Escaped tags, CDATA markers and entities blanked (every format may hold them)."""
    if "&lt;" in text:
        text = _ESCAPED_TAG.sub(_html_tag, text)
    if "<![CDATA[" in text:
        text = _CDATA.sub(_blank, text)
    if "&" in text:
        text = _ENTITY.sub(_entity, text)
    return text


def plain(snippet: str) -> str:
    """A snippet cut from somewhere (a model's answer, one line) as a reader sees it: the
    syntax `reading_text` blanks in a document (troff requests and escapes, tags, escaped
    tags, CDATA, entities), blanked whatever its share, since a snippet has no page to tell
    its format by; blanks squeezed, lines kept."""
    text = snippet
    if _TROFF_LINE.search(text) or _TROFF_ESCAPE.search(text):
        text = _troff(text)
    text = _inline(_html(text))
    return "\n".join(" ".join(line.split()) for line in text.split("\n") if line.strip())


def shown(text: str, start: int, end: int) -> str:
    """`text[start:end]` as a prompt shows it: what a reader sees there, the blanks left by
    its syntax squeezed (a passage with no syntax is returned as it is written)."""
    seen = reading_text(text)[start:end]
    if seen == text[start:end]:
        return seen
    seen = re.sub(r"[ \t]+(?=\n)", "", re.sub(r"[ \t]{2,}", " ", seen))
    return re.sub(r"\n[ \t]*(?:\n[ \t]*)+", "\n\n", seen).strip()

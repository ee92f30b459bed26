"""HTML: selectolax (Lexbor). Page furniture and code are dropped; headings, paragraphs,
lists and tables are kept, one block per line, tables as `cell | cell` rows."""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser, LexborNode

from .model import Parsed, TextBuilder
from .text import decode

__all__ = ["parse_html"]

_DROPPED = ("script", "style", "nav", "footer", "noscript", "template", "head", "svg")
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_BLOCKS = frozenset({"p", "li", "dt", "dd", "pre", "blockquote", "caption", "figcaption",
                     "address", "summary", "td", "th"})
_CONTAINERS = frozenset({"html", "body", "div", "section", "article", "main", "header",
                         "aside", "ul", "ol", "dl", "details", "figure", "form", "fieldset",
                         "center"})


def parse_html(data: bytes, name: str, raw_sha256: str) -> Parsed:
    source, encoding = decode(data, name)
    tree = LexborHTMLParser(source)
    for tag in _DROPPED:
        for node in tree.css(tag):
            node.decompose()
    builder = TextBuilder()
    root = tree.body or tree.root
    if root is not None:
        _walk(root, builder)
    return Parsed(text=builder.text(), format="html", raw_sha256=raw_sha256, encoding=encoding,
                  headings=builder.headings, tables=builder.tables)


def _walk(node: LexborNode, out: TextBuilder) -> None:
    """Depth first: a block's text is one line; a container's loose text is a block too."""
    loose: list[str] = []

    def flush() -> None:
        text = " ".join(" ".join(loose).split())
        loose.clear()
        if text:
            out.block(text)

    child = node.child
    while child is not None:
        tag = child.tag
        if tag == "-text":
            loose.append(child.text_content or "")
        elif tag in _HEADINGS:
            flush()
            out.heading(_HEADINGS[tag], child.text(separator=" "))
        elif tag == "table":
            flush()
            out.table([[cell.text(separator=" ") for cell in row.css("th, td")]
                       for row in child.css("tr")])
        elif tag == "pre":
            flush()
            text = child.text(deep=True)
            if text.strip():
                out.block(text.rstrip())
        elif tag in _BLOCKS:
            flush()
            if child.css_first(", ".join(("p", "ul", "ol", "table", "div"))) is not None:
                _walk(child, out)  # a list item holding a nested list or paragraphs
            else:
                text = " ".join(child.text(separator=" ").split())
                if text:
                    out.block(text)
        elif tag in _CONTAINERS:
            flush()
            _walk(child, out)
        elif tag == "br":
            flush()
        elif not tag.startswith("-"):  # inline element (a, b, span…): part of the loose text
            loose.append(child.text(separator=" "))
        child = child.next
    flush()

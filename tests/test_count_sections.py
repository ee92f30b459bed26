"""Counting the items a document lists under the heading the question names: a troff page's
sections of tagged paragraphs, a Markdown file's bullets. The pages are written here, in
their own wording; the expected numbers are the items written, not typed."""

from __future__ import annotations

import pytest
from strategy_support import ask, load_named, no_model, small_runtime

_VARIABLES = ["TIDE_HOME", "TIDE_CACHE", "TIDE_DEBUG"]
_CODES = ["0", "1", "2", "4", "9"]
_PAGE = "\n".join([
    '.TH TIDECTL 1 "March 2026"', ".SH NAME", r"tidectl \- sync tide tables",
    ".SH OPTIONS", ".TP", r".B \-v", "Verbose.", ".TP", r".B \-q", "Quiet.",
    ".SH ENVIRONMENT",
    *[f".TP\n.B {v}\nRead at start; exit code 2 if it names no directory." for v in _VARIABLES],
    ".SH EXIT STATUS", *[f".TP\n.B {c}\nOutcome {c}." for c in _CODES],
    ".SH SEE ALSO", "tide(5)"]) + "\n"
_ISSUES = ["Sync stalls on flaky links", "Times shown in UTC only", "No ARM build",
           "Large ports slow the map"]
_NOTES = "\n".join(["# Tidectl 0.9 release notes", "", "## Changes", "- Faster start",
                    "- New icon", "", "## Known issues", *[f"- {i}" for i in _ISSUES], "",
                    "## Thanks", "- Everyone who tested"]) + "\n"


@pytest.mark.parametrize(("question", "expected"), [
    ("how many different exit statuses does the tidectl page list", len(_CODES)),
    ("How many environment variables does the manual page describe?", len(_VARIABLES)),
    ("how many known issues are there in the release notes", len(_ISSUES)),
])
async def test_the_items_under_the_named_heading_are_counted(tmp_path, monkeypatch, question,
                                                             expected):
    runtime = small_runtime(tmp_path, monkeypatch)
    try:
        sid = load_named(runtime, {"tidectl.1": _PAGE, "NOTES.md": _NOTES})
        result, _ = await ask(runtime, sid, question, "auto", no_model)
    finally:
        runtime.close()
    assert result.strategy == "count", result.answer
    assert result.answer.split()[0] == str(expected), result.answer
    assert result.exact is True and result.grounded is True

"""What runs inside the sandbox before the model's first step: the context views, the `len`
shim, `tool`, and the span log. Also the note on the interpreter's limits for the root prompt.

pydantic-monty 1.4 runs classes but not `len()` on them (no `__len__` dispatch) and cannot
suspend inside a dunder method, so the document text lives in the sandbox and every text
access appends its span to `_spans`, which the host collects after each step. Calls to
`llm_query`, `search`, `FINAL`, … are undefined names here: each call pauses the sandbox and
the host answers it (the sandbox never calls a provider).
"""

from __future__ import annotations

__all__ = ["INTERPRETER_NOTE", "PRELUDE", "SNAPSHOT_FN", "TAKE_SPANS"]

PRELUDE = r'''
import re as _re
_spans = []
_len = len


def len(obj):
    if isinstance(obj, DocView):
        return _len(obj._text)
    return _len(obj)


def _bound(n, value, default):
    if value is None:
        return default
    if value < 0:
        value = n + value
    return min(max(value, 0), n)


class DocView:
    def __init__(self, index, doc_id, name, text):
        self.index = index
        self.doc_id = doc_id
        self.name = name
        self._text = text
        self._line_starts = None

    def __repr__(self):
        size = str(_len(self._text))
        return "DocView(" + str(self.index) + ", " + repr(self.name) + ", " + size + " chars)"

    def _read(self, start, end, tag):
        n = _len(self._text)
        a = _bound(n, start, 0)
        b = _bound(n, end, n)
        if b > a:
            _spans.append([self.index, a, b, tag])
            return self._text[a:b]
        return ""

    def __getitem__(self, key):
        if isinstance(key, slice):
            if key.step is not None and key.step != 1:
                raise ValueError("document slices take no step")
            return self._read(key.start, key.stop, None)
        n = _len(self._text)
        if key < 0:
            key = key + n
        if key < 0 or key >= n:
            raise IndexError("document index out of range")
        return self._read(key, key + 1, None)

    def slice(self, start, end, tag=None):
        return self._read(start, end, tag)

    def find(self, s, start=0, end=None, max_hits=20):
        n = _len(self._text)
        end = _bound(n, end, n)
        hits = []
        pos = self._text.find(s, _bound(n, start, 0), end)
        while pos >= 0 and (max_hits is None or _len(hits) < max_hits):
            hits.append({"start_char": pos, "end_char": pos + _len(s), "text": s})
            _spans.append([self.index, pos, pos + _len(s), None])
            pos = self._text.find(s, pos + max(_len(s), 1), end)
        return hits

    def count(self, s, start=0, end=None):
        n = _len(self._text)
        return self._text.count(s, _bound(n, start, 0), _bound(n, end, n))

    def regex(self, pattern, start=0, end=None, max_hits=None, flags=0):
        n = _len(self._text)
        a = _bound(n, start, 0)
        b = _bound(n, end, n)
        text = self._text if a == 0 and b == n else self._text[a:b]
        hits = []
        for m in _re.finditer(pattern, text, flags):
            if max_hits is not None and _len(hits) >= max_hits:
                break
            s = a + m.start()
            e = a + m.end()
            hits.append({"start_char": s, "end_char": e, "text": m.group(0),
                         "groups": list(m.groups())})
            if e > s:
                _spans.append([self.index, s, e, None])
        return hits

    def _lines(self):
        if self._line_starts is None:
            starts = [0]
            for m in _re.finditer("\n", self._text):
                starts.append(m.end())
            self._line_starts = starts
        return self._line_starts

    def line_count(self):
        starts = self._lines()
        if starts[-1] == _len(self._text) and _len(starts) > 1:
            return _len(starts) - 1
        return _len(starts)

    def lines(self, start, end=None):
        starts = self._lines()
        count = self.line_count()
        a = _bound(count, start, 0)
        b = _bound(count, end, count)
        if b <= a:
            return ""
        stop = starts[b] if b < _len(starts) else _len(self._text)
        return self._read(starts[a], stop, None)


class _Tool:
    def queue_llm(self, key, prompt, model_hint="sub", max_tokens=None, temperature=0,
                  metadata=None):
        return _queue_llm(key, prompt, model_hint, max_tokens, temperature, metadata)

    def queue_search(self, key, query, k=10, filters=None):
        return _queue_search(key, query, k, filters)

    def YIELD(self, reason=None):
        return _yield(reason)

    def FINAL(self, answer):
        return FINAL(answer)

    def schema(self):
        return _tool_schema()


tool = _Tool()
context = [DocView(_i, _d[0], _d[1], _d[2]) for _i, _d in enumerate(_docs)]
_context = context
if "state" not in _restored:
    state = {}
'''
"""Needs the inputs `_docs` ([doc_id, name, text] per document) and `_restored` (a dict)."""

TAKE_SPANS = "_taken = list(_spans)\n_spans.clear()\n_taken"
"""Hands the step's span log to the host and empties it."""

SNAPSHOT_FN = r'''
def _json_or_type(value, depth=0):
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if depth > 20:
        return False
    if isinstance(value, (list, tuple)):
        for item in value:
            if not _json_or_type(item, depth + 1):
                return False
        return True
    if isinstance(value, dict):
        for k, item in value.items():
            if not isinstance(k, str) or not _json_or_type(item, depth + 1):
                return False
        return True
    return False


def _describe(value):
    if _json_or_type(value):
        return ["json", type(value).__name__, value]
    return ["opaque", type(value).__name__, None]
'''
"""Defined once per session: classifies a variable as JSON (persisted) or opaque."""

INTERPRETER_NOTE = """The sandbox runs a Python subset (pydantic-monty 1.4): imports are \
limited to re, json, math, collections, itertools, functools, datetime, random, bisect, csv, \
decimal, hashlib, unicodedata, dataclasses and typing (no statistics, string, heapq, \
operator, textwrap); no class inheritance, no generators (yield), no globals()/locals()/dir(); \
no files, os calls, network or environment. A step has a time and memory limit. Only JSON \
values (None, bool, int, float, str, list, dict) survive a restart of the sandbox; functions \
you define last as long as the sandbox does."""

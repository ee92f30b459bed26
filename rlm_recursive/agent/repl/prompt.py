"""The root model's system prompt for the REPL strategy (seed 003, Appendix D1/D2), and the
parsing of its replies."""

from __future__ import annotations

import ast
import re

from .prelude import INTERPRETER_NOTE

__all__ = ["CONTEXTS_NOTE", "CORRECTIVE", "extract_code", "root_system"]

_SUBCALLS = """- llm_query(prompt) -> str: asks a helper model about text you pass in the prompt \
(it sees nothing else). llm_query_batched([prompt, ...]) -> [str, ...] runs many at once, in \
order; prefer it to a loop of llm_query. Sub-calls cost budget: use code for locating, \
counting and filtering, and sub-calls only for judgement on small pieces of text.
- tool.queue_llm(key, prompt) then tool.YIELD(reason) ends the step; next step the answer is \
in state["_tool_results"]["llm"][key]["text"]."""
_NO_SUBCALLS = "- There are NO sub-model calls here: use code only (slicing, regex, counting)."

_SYSTEM = """You answer a QUESTION about a document collection that you cannot see. It lives \
in a Python sandbox; you explore it by writing code. Reply with EXACTLY ONE fenced block per \
turn, labelled repl, and nothing else:
```repl
print(len(context))
```
The sandbox keeps your variables between steps and gives you:
- context: a list of documents. len(context) is their number; doc = context[i].
  doc.name; len(doc) characters; doc[a:b] or doc.slice(a, b, tag=None) reads text;
  doc.find(s, start=0, end=None, max_hits=20) and doc.regex(pattern, start=0, end=None,
  max_hits=None, flags=0) return [{{"start_char", "end_char", "text", "groups"}}];
  doc.count(s) counts occurrences; doc.lines(a, b) reads lines a..b-1; doc.line_count().
- search(query, k=10, method="bm25"|"literal"|"regex") -> [{{"doc_index", "start", "end",
  "snippet", "score"}}] over all documents.
{subcalls}
- state: a dict kept between steps (use state["work"] for notes).
- print(...) shows you results; output is cut after {stdout_cap} characters, so print
  summaries, counts and short excerpts, never whole documents.
- FINAL(answer) ends the run with your answer; FINAL_VAR("name") answers with a variable.

Citations come from the text your code reads: before you state a fact, read its text with
doc[a:b], find, regex or lines. Count and compute with code: it is exact, a model is not.
Errors in your code come back to you with a traceback; fix them and go on.
{note}

The collection: {overview}
Budget: {budget}"""

CONTEXTS_NOTE = """
This run returns CONTEXTS, not an answer: mark each passage that answers the question with
doc.slice(a, b, tag="context") (or tag="context:<label>"), then call FINAL("done")."""

CORRECTIVE = ("Your reply had no ```repl code block. Reply with exactly one block:\n"
              "```repl\n# your code\n```\nand nothing else. Call FINAL(answer) inside a block "
              "to answer.")

_BLOCK = re.compile(r"```repl[ \t]*\r?\n(.*?)```", re.DOTALL)
_OTHER_BLOCK = re.compile(r"```(?:python3?|py)?[ \t]*\r?\n(.*?)```", re.DOTALL | re.IGNORECASE)
_CALL = re.compile(r"^\s*(print|FINAL|FINAL_VAR)\s*\(|^\s*\w+\s*=|\bcontext\b", re.MULTILINE)


def root_system(overview: str, *, subcalls: bool, stdout_cap: int, budget: str,
                contexts: bool = False) -> str:
    text = _SYSTEM.format(subcalls=_SUBCALLS if subcalls else _NO_SUBCALLS,
                          stdout_cap=stdout_cap, note=INTERPRETER_NOTE, overview=overview,
                          budget=budget)
    return text + (CONTEXTS_NOTE if contexts else "")


def extract_code(reply: str) -> tuple[str | None, int]:
    """The first ```repl block of a reply, and how many blocks there were.

    Small models wrap code in prose: a ```python (or bare ```) block counts when there is no
    repl block, and so does a reply that is Python as a whole and reads the corpus or answers.
    """
    blocks = _BLOCK.findall(reply) or _OTHER_BLOCK.findall(reply)
    if blocks:
        return blocks[0], len(blocks)
    text = reply.strip()
    if text and _CALL.search(text) and _parses(text):
        return text, 1
    return None, 0


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True

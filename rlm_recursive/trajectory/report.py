"""A run's trajectory as data (`load_trajectory`) and as one self-contained HTML file.

The page needs no server and makes no request: CSS and the few lines of script are inline,
the tree is plain `<details>` elements (collapsible without script), and a content security
policy forbids anything external.
"""

from __future__ import annotations

import json
from collections import defaultdict
from html import escape
from importlib import resources
from string import Template
from typing import Any

from ..errors import NotFound, RlmError
from ..store import Store
from ..store.trajectory import load_events, load_run
from ..types import location_label

__all__ = ["load_trajectory", "render_html"]

_BUDGET_ROWS = (  # label, used key (usage), limit key (limits)
    ("model calls", "model_calls", None),
    ("sub-calls", "sub_calls", "max_sub_calls"),
    ("tool calls", "tool_calls", "max_tool_calls"),
    ("input tokens", "input_tokens", None),
    ("output tokens", "output_tokens", None),
    ("prompt chars", "prompt_chars", None),
    ("cost (USD)", "cost_usd", "budget_usd"),
    ("wall time (s)", "wall_s", "timeout_s"),
)


def load_trajectory(store: Store, run_id: str) -> dict[str, Any]:
    """The run row, its events in order, and each citation with the text it cites now."""
    store.flush()
    run = load_run(store.sql, run_id)
    if run is None:
        raise NotFound(f"unknown run {run_id!r}; list runs with `rlm-recursive runs`",
                       kind="run")
    for citation in run.get("citations") or []:
        citation["text"] = None
        if run["mode"] != "full":
            continue  # metadata only: the report must not pull content back in
        try:
            doc = store.document(run["session_id"], citation["doc_id"])
            citation["text"] = store.text(doc)[citation["start"]:citation["end"]]
        except RlmError:
            citation["text"] = None
    return {"run": run, "events": load_events(store.sql, run_id)}


def render_html(trajectory: dict[str, Any]) -> str:
    """One HTML document holding the whole run."""
    run, events = trajectory["run"], trajectory["events"]
    page = Template((resources.files(__package__) / "report.html").read_text("utf-8"))
    full = run["mode"] == "full"
    question = escape(run["question"]) if full and run["question"] else _withheld(
        run["question_chars"])
    facts = " · ".join(escape(str(x)) for x in (
        f"session {run['session_id']}", f"strategy {run.get('strategy') or '?'}",
        f"{run.get('provider') or '?'}/{run.get('model') or '?'}", f"status {run['status']}"
        + (f" ({run['error_code']})" if run.get("error_code") else ""),
        f"{(run.get('duration_ms') or 0) / 1000:.2f} s", f"${run.get('cost_usd') or 0:.4f}",
        f"started {run['started_at']}", f"trace mode {run['mode']}"))
    return page.safe_substitute(
        title=escape(f"rlm-recursive run {run['id']}"), run_id=escape(run["id"]),
        question=question, facts=facts, answer=_answer(run), tree=_tree(events, full),
        budget=_budget(run), citations=_citations(run))


def _withheld(chars: int | None) -> str:
    return (f'<span class="withheld">content not recorded (metadata-only trace): '
            f"{chars or 0} chars</span>")


def _answer(run: dict[str, Any]) -> str:
    if run["mode"] != "full":
        return _withheld(run.get("answer_chars"))
    if run.get("answer") is None:
        return '<span class="withheld">no answer (the run did not finish)</span>'
    refs = "".join(f' <a class="cite-ref" href="#cite-{i}">[{i}]</a>'
                   for i in range(1, len(run.get("citations") or []) + 1))
    return f'<div class="answer">{escape(run["answer"])}{refs}</div>'


def _budget(run: dict[str, Any]) -> str:
    usage, limits = run.get("usage") or {}, run.get("limits") or {}
    rows = []
    for label, used_key, limit_key in _BUDGET_ROWS:
        used, limit = usage.get(used_key), limits.get(limit_key) if limit_key else None
        if used is None:
            continue
        bar = ""
        if isinstance(limit, int | float) and limit > 0:
            share = min(100.0, 100.0 * float(used) / float(limit))
            bar = f'<div class="bar"><span style="width:{share:.0f}%"></span></div>'
        shown = f"{used} / {limit}" if limit is not None else f"{used}"
        rows.append(f"<tr><td>{escape(label)}{bar}</td><td class=\"num\">{escape(shown)}</td>"
                    "</tr>")
    for key in ("max_depth", "max_iterations"):
        if key in limits:
            rows.append(f"<tr><td>{key.replace('_', ' ')}</td><td class=\"num\">"
                        f"{escape(str(limits[key]))}</td></tr>")
    return f'<table class="budget">{"".join(rows)}</table>' if rows else _withheld(0)


def _citations(run: dict[str, Any]) -> str:
    items = []
    for i, c in enumerate(run.get("citations") or [], start=1):
        where = escape(f"{location_label(c)} [{c['start']}:{c['end']}]")
        text = (f"<pre>{escape(c['text'])}</pre>" if c.get("text") is not None
                else _withheld(c["end"] - c["start"]))
        items.append(f'<li id="cite-{i}"><div><b>{where}</b></div>'
                     f'<div class="checksum">{escape(c["checksum"])}</div>{text}</li>')
    return f'<ol class="citations">{"".join(items)}</ol>' if items else "<p>none</p>"


def _tree(events: list[dict[str, Any]], full: bool) -> str:
    children: dict[str | None, list[dict[str, Any]]] = defaultdict(list)
    known = {e["id"] for e in events}
    for event in events:  # finished nodes are stored in end order: show them in start order
        children[event["parent_id"] if event["parent_id"] in known else None].append(event)
    for group in children.values():
        group.sort(key=lambda e: e["started_at"])

    def render(event: dict[str, Any]) -> str:
        kids = children.get(event["id"], [])
        inner = "".join(render(child) for child in kids)
        # Open the path through the tree: model turns at the root and whatever has children.
        opened = kids or (event["kind"] == "model" and event["depth"] == 0)
        open_attr = " open" if opened or event["status"] == "error" else ""
        return (f'<details class="node kind-{event["kind"]} status-{event["status"]}" '
                f'id="node-{escape(event["id"])}"{open_attr}><summary>{_summary(event)}'
                f"</summary>{_body(event, full)}{inner}</details>")

    roots = children.get(None, [])
    return "".join(render(e) for e in roots) or "<p>no calls recorded</p>"


def _summary(event: dict[str, Any]) -> str:
    stats = [f"{event['duration_ms']:.1f} ms", f"depth {event['depth']}"]
    if event.get("input_tokens") is not None:
        stats.append(f"{event['input_tokens']} → {event['output_tokens']} tok")
    if event.get("cache_hit"):
        stats.append("cache hit")
    if event.get("cost_usd"):
        stats.append(f"${event['cost_usd']:.4f}")
    if event.get("error_code"):
        stats.append(f"error {event['error_code']}")
    return (f'<span class="kind">{escape(event["kind"])}</span>'
            f'<b>{escape(event["id"])}</b> {escape(event["name"])}'
            f'<span class="stats">{escape(" · ".join(stats))}</span>')


def _body(event: dict[str, Any], full: bool) -> str:
    if not full:
        meta = {k: v for k, v in (event.get("meta") or {}).items()}
        return (f'<div class="label">metadata</div><pre>{escape(json.dumps(meta))}</pre>'
                f'<div>{_withheld(event["input_chars"])} in, '
                f'{_withheld(event["output_chars"])} out</div>')
    kind, data_in, data_out = event["kind"], event.get("input"), event.get("output")
    parts = []
    if kind == "model":
        messages = "".join(
            f'<div class="msg"><span class="role">{escape(str(m.get("role", "?")))}'
            f'{" · " + escape(str(m["tool_name"])) if m.get("tool_name") else ""}</span>'
            f"<pre>{escape(_message_text(m))}</pre></div>" for m in data_in or [])
        parts.append(f'<details><summary class="label">prompt ({len(data_in or [])} '
                     f"messages)</summary>{messages}</details>")
        reply = data_out or {}
        if reply.get("text"):
            parts.append(f'<div class="label">reply</div><pre>{escape(reply["text"])}</pre>')
        for call in reply.get("tool_calls") or []:
            parts.append(f'<div class="label">tool call {escape(call["name"])}</div>'
                         f"<pre>{escape(json.dumps(call['arguments'], indent=1))}</pre>")
    elif kind == "repl":
        parts.append(f'<div class="label">code</div><pre>{escape((data_in or {}).get("code", ""))}'
                     "</pre>")
        parts.append(f'<div class="label">output</div><pre>{escape(_pretty(data_out))}</pre>')
    else:
        label = "arguments" if kind == "tool" else "sub-query"
        parts.append(f'<div class="label">{label}</div><pre>{escape(_pretty(data_in))}</pre>')
        result = _pretty(data_out)
        parts.append(f'<details{" open" if kind == "sub" else ""}><summary class="label">'
                     f"result ({len(result)} chars)</summary><pre>{escape(result)}</pre>"
                     "</details>")
    return "".join(parts)


def _message_text(message: dict[str, Any]) -> str:
    text = str(message.get("content") or "")
    for call in message.get("tool_calls") or []:
        text += f"\n→ {call.get('name')}({json.dumps(call.get('arguments'))})"
    return text


def _pretty(value: Any) -> str:
    if isinstance(value, dict) and set(value) == {"response"}:
        return str(value["response"])
    return json.dumps(value, indent=1, ensure_ascii=False) if value is not None else ""

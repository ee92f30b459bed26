"""Suite families that count: counting in plain words over every record format, and
classify-then-count over notes. Dev and held-out use different vocabularies and wordings."""

from __future__ import annotations

import json
import random

from .harness import BenchTask
from .oolong import numeric_score

__all__ = ["FORMATS", "classify_task", "count_task"]

FORMATS = ("logfmt", "jsonl", "csv", "tsv", "syslog", "bracketed", "keyvalue")
_VOCAB = {
    "dev": {"services": ("billing", "auth", "search", "checkout", "email"),
            "levels": ("INFO", "INFO", "WARN", "ERROR", "DEBUG"),
            "msgs": ("request served", "cache miss", "retrying upstream call", "slow query"),
            "ask": ("How many {level} lines are from the {service} service?",
                    "How many log lines have level {level} from the {service} service?",
                    "Count the {level} entries for {service}.")},
    "heldout": {"services": ("lab-results", "pharmacy", "radiology", "admissions", "mailer"),
                "levels": ("INFO", "NOTICE", "WARNING", "ERROR", "INFO"),
                "msgs": ("order queued", "result posted", "printer offline", "retry scheduled"),
                "ask": ("how many errors did {service} log", "What's the number of {plural} "
                        "logged by the {service} service?", "Tally the {plural} from {service}.",
                        "How often did {service} report {article} {level_word}?")},
}
_PLURAL = {"error": "errors", "warning": "warnings", "warn": "warnings", "notice": "notices",
           "info": "info messages", "debug": "debug lines"}


def _line(fmt: str, i: int, level: str, service: str, msg: str) -> str:
    stamp = f"2026-03-{1 + i // 5000 % 28:02d}T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:" \
            f"{i % 60:02d}Z"
    if fmt == "logfmt":
        return f'ts={stamp} level={level} service={service} msg="{msg}"'
    if fmt == "jsonl":
        return json.dumps({"time": stamp, "severity": level.lower(), "component": service,
                           "message": msg})
    if fmt == "csv":
        return f"{stamp},{level},{service},{msg}"
    if fmt == "tsv":
        return f"{stamp}\t{level}\t{service}\t{msg}"
    if fmt == "syslog":
        return (f"Mar {1 + i // 5000 % 28:2d} {i // 3600 % 24:02d}:{i // 60 % 60:02d}:"
                f"{i % 60:02d} node{i % 3} {service}[{1000 + i % 97}]: {level.lower()}: {msg}")
    if fmt == "bracketed":
        return f"{stamp.replace('T', ' ')[:-1]},{i % 1000:03d} {level} [{service}] {msg}"
    return f"Time: {stamp}\nLevel: {level}\nService: {service}\nMessage: {msg}\n"


def _header(fmt: str) -> str:
    return {"csv": "time,level,service,message\n",
            "tsv": "time\tlevel\tservice\tmessage\n"}.get(fmt, "")


def count_task(rng: random.Random, part: str, fmt: str, length: int) -> BenchTask:
    """Log records in `fmt`; a plain-words question about one level from one service."""
    vocab = _VOCAB[part]
    body, rows, i = [_header(fmt)], [], 0
    size = len(body[0])
    while size < length:
        level, service = rng.choice(vocab["levels"]), rng.choice(vocab["services"])
        # Messages name other services: a trap for plain word counts.
        msg = f"{rng.choice(vocab['msgs'])} via {rng.choice(vocab['services'])}"
        record = _line(fmt, i, level, service, msg)
        body.append(record + ("\n" if fmt == "keyvalue" else "") + "\n")
        rows.append((level, service))
        size += len(body[-1])
        i += 1
    level = rng.choice(("ERROR", "WARN") if part == "dev" else ("ERROR", "WARNING"))
    service = rng.choice(vocab["services"])
    gold = sum(r == (level, service) for r in rows)
    word = level.lower()
    template = rng.choice(vocab["ask"])
    if "errors did" in template and level != "ERROR":
        template = "How many {plural} came from {service}?"
    question = template.format(level=level, service=service, plural=_PLURAL.get(word, word),
                               level_word=word, article="an" if word[0] in "aeiou" else "a")
    return BenchTask(group=f"{part} count", length=size, question=question,
                     documents=((f"service.{fmt}.log", "".join(body)),),
                     score=numeric_score(gold), gold=f"{gold} ({fmt})")


_NOTES = {
    "dev": {"yes": ("an apple", "a pear", "some grapes", "a banana", "a plum", "a mango"),
            "no": ("a hammer", "a lamp", "a scarf", "a notebook", "a candle", "a radio"),
            "lines": ("Left {x} on the table.", "Bought {x} at the corner shop.",
                      "Remember to bring {x} tomorrow."),
            "question": "How many notes mention a fruit?"},
    "heldout": {"yes": ("a dog", "two sparrows", "a tabby cat", "a hedgehog", "a goat",
                        "an owl"),
                "no": ("a bicycle", "a teapot", "a wheelbarrow", "an umbrella", "a kettle",
                       "a ladder"),
                "lines": ("Saw {x} by the gate this morning.", "Neighbours say {x} was in "
                          "the garden.", "There was {x} near the shed again."),
                "question": "How many of the entries mention an animal?"},
}


def classify_task(rng: random.Random, part: str, items: int) -> BenchTask:
    """Notes one per line; counting them needs a judgement of each."""
    vocab = _NOTES[part]
    lines, gold = [], 0
    for n in range(items):
        positive = rng.random() < 0.25
        gold += positive
        thing = rng.choice(vocab["yes" if positive else "no"])
        lines.append(f"{n + 1}. " + rng.choice(vocab["lines"]).format(x=thing))
    text = "\n".join(lines) + "\n"
    return BenchTask(group=f"{part} classify", length=len(text), question=vocab["question"],
                     documents=(("notes.txt", text),), score=numeric_score(gold),
                     gold=str(gold))


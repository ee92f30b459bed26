"""The corpora the routing suite's questions are asked against: each format the runtime must
read (logfmt, bracketed, syslog, JSON lines, CSV, TSV, `Key: value` blocks, notes, prose).

Small and seeded: routing reads the structure of a corpus, not its size.
"""

from __future__ import annotations

import json
import random

__all__ = ["CORPORA", "corpus"]

_SERVICES = ("billing", "auth", "lab-results", "mailer", "checkout")
_LEVELS = ("INFO", "INFO", "WARN", "ERROR", "DEBUG")
_MSGS = ("request served", "connection reset by peer", "retrying upstream call",
         "slow query detected", "token refreshed", "disk quota exceeded", "timeout talking to db")


def _logfmt(rng: random.Random) -> str:
    return "".join(f"2026-03-01T10:{i // 60 % 60:02d}:{i % 60:02d}Z level={rng.choice(_LEVELS)} "
                   f"service={rng.choice(_SERVICES)} msg=\"{rng.choice(_MSGS)}\"\n"
                   for i in range(300))


def _bracketed(rng: random.Random) -> str:
    return "".join(f"2023-05-01 12:{i // 60 % 60:02d}:{i % 60:02d},120 {rng.choice(_LEVELS)} "
                   f"[{rng.choice(_SERVICES)}] {rng.choice(_MSGS)}\n" for i in range(300))


def _syslog(rng: random.Random) -> str:
    apps, levels = ("sshd", "cron", "nginx", "postfix"), ("error", "info", "warning")
    return "".join(f"Mar  3 10:{i // 60 % 60:02d}:{i % 60:02d} {rng.choice(('web01', 'db02'))} "
                   f"{rng.choice(apps)}[{4000 + i % 50}]: {rng.choice(levels)}"
                   f": {rng.choice(_MSGS)}\n" for i in range(300))


def _jsonl(rng: random.Random) -> str:
    return "".join(json.dumps({"ts": f"2026-04-02T08:00:{i % 60:02d}Z",
                               "severity": rng.choice(("warn", "error", "info")),
                               "svc": rng.choice(("payments", "search", "fire-alarm")),
                               "event": rng.choice(("fire alarm", "door opened", "badge scan"))})
                   + "\n" for i in range(300))


def _csv(rng: random.Random, sep: str) -> str:
    rows = [sep.join(("id", "category", "priority", "status", "opened_by"))]
    for i in range(200):
        rows.append(sep.join((f"T-{1000 + i}", rng.choice(("billing", "shipping", "refund")),
                              rng.choice(("low", "high")), rng.choice(("open", "closed")),
                              rng.choice(("alice", "bob", "chen")))))
    return "\n".join(rows) + "\n"


def _patients(rng: random.Random) -> str:
    blocks = []
    for i in range(120):
        blocks.append(f"Patient: P-{300 + i}\nWard: {rng.choice(('Oak', 'Birch', 'Cedar'))}\n"
                      f"Status: {rng.choice(('admitted', 'discharged'))}\n"
                      f"Diagnosis: {rng.choice(('pneumonia', 'fracture', 'sepsis'))}\n")
    return "\n".join(blocks)


def _notes(rng: random.Random) -> str:
    things = ("an apple", "a hammer", "a pear", "a lamp", "some grapes", "a scarf", "a kiwi")
    return "".join(f"Note {i + 1}: Left {rng.choice(things)} on the kitchen table.\n"
                   for i in range(150))


_HANDBOOK = """\
Acme Ltd holds account number 4471-220-19 at Northbank. The Lisbon office is run by Maria Sousa.
The Halcyon project is run by the Oslo office. The alarm code of the Oslo office is 4417-K.
The Meridian project is run by the Ghent office. The alarm code of the Ghent office is 9921-B.
The Oslo office is housed in the Aldgate building. The Aldgate building's caretaker is Tom Reed.
Invoice 7 was issued to Brightwater on 3 March; the total on invoice 7 is 1,240.00 EUR.
The policy sum insured is 250,000 EUR and the policy number is PX-88213.
The Oak ward has 24 beds and the Birch ward has 18 beds. The hospital employs 412 nurses.
The vault passphrase is amber-7731. Annual leave is 25 days for all staff.
Staff must complete fire safety training every 12 months. The retry budget is 3 attempts.
"""

CORPORA: dict[str, str] = {}


def corpus(name: str) -> str:
    """The named corpus (built once)."""
    if not CORPORA:
        rng = random.Random(20)
        CORPORA.update({
            "logfmt": _logfmt(rng), "bracketed": _bracketed(rng), "syslog": _syslog(rng),
            "jsonl": _jsonl(rng), "csv": _csv(rng, ","), "tsv": _csv(rng, "\t"),
            "patients": _patients(rng), "notes": _notes(rng),
            "handbook": (_HANDBOOK + "\n") * 1})
    return CORPORA[name]

"""Fixture conversations for the LCM tests: deterministic, varied, with known facts."""

from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path
from typing import Any

from rlm_recursive.lcm import Lcm, LcmConfig

TURN3_FACT = "The container for the Rotterdam order is MSCU-4471902."

_TOPICS = ["billing export", "the staging cluster", "quarterly churn", "the parser rewrite",
           "on-call rota", "the vendor contract", "GPU budget", "the release checklist"]
_PHRASES = ["we agreed to revisit", "numbers look off by", "the owner is", "blocked on",
            "deadline moved to", "needs a second review from", "rolled back because of"]


def turn_text(rng: random.Random, turn: int) -> str:
    """One turn: a few sentences with ids and numbers (they tokenise like real chat)."""
    if turn == 3:
        return f"{TURN3_FACT} Please keep it for customs.\r\nThanks — ünïcode ✓  "
    sentences = []
    for _ in range(rng.randint(3, 7)):
        sentences.append(f"On {rng.choice(_TOPICS)}, {rng.choice(_PHRASES)} "
                         f"{rng.choice(['Ana', 'Bo', 'Chen', 'Dev'])} "
                         f"(ticket T-{rng.randint(1000, 9999)}, {rng.randint(1, 99)}%).")
    return f"Turn {turn}: " + " ".join(sentences)


def small_config(**overrides: object) -> LcmConfig:
    """Knobs scaled down so a short fixture exercises both passes."""
    values: dict[str, object] = dict(fresh_tail_count=8, leaf_target_tokens=120,
                                     condensed_target_tokens=160, condense_fanout=3)
    values.update(overrides)
    return LcmConfig.model_validate(values)


def build_conversation(data_dir: Path, turns: int = 60, *, seed: int = 7,
                       config: LcmConfig | None = None) -> tuple[Lcm, int, list[str]]:
    """A conversation of `turns` alternating user/assistant messages; returns the texts."""
    lcm = Lcm(data_dir, config or small_config())
    cid = lcm.store.create_conversation("ses_fixture", "fixture").conversation_id
    rng = random.Random(seed)
    texts = []
    for turn in range(1, turns + 1):
        text = turn_text(rng, turn)
        lcm.append(cid, "user" if turn % 2 else "assistant", text)
        texts.append(text)
    return lcm, cid, texts


class RawDatabase:
    """The LCM tables past the store, to damage them as a bug or a hand edit would: foreign
    keys are not enforced, and `drop_constraints` removes a table's keys and checks."""

    def __init__(self, data_dir: Path) -> None:
        self.url = os.environ.get("RLM_DATABASE_URL")
        if self.url:
            import psycopg

            self.pg = psycopg.connect(self.url, autocommit=True)
            self.pg.execute("SET session_replication_role = replica")  # no FK triggers
        else:
            self.sqlite = sqlite3.connect(data_dir / "rlm.db", isolation_level=None)
            self.sqlite.execute("PRAGMA foreign_keys=OFF")

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> None:
        if self.url:
            self.pg.execute(sql.replace("?", "%s"), params)  # type: ignore[arg-type]
        else:
            self.sqlite.execute(sql, params)

    def drop_constraints(self, table: str) -> None:
        if self.url:
            names = self.pg.execute("SELECT conname FROM pg_constraint WHERE conrelid = "
                                    "%s::regclass", (table,)).fetchall()
            for (name,) in names:
                self.pg.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}" CASCADE')
            return
        conn = self.sqlite
        cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
        conn.execute(f"ALTER TABLE {table} RENAME TO {table}_old")
        conn.execute(f"CREATE TABLE {table} ({', '.join(cols)})")
        conn.execute(f"INSERT INTO {table} SELECT * FROM {table}_old")
        conn.execute(f"DROP TABLE {table}_old")

-- The trajectory of a run: every model call, tool call, REPL step and sub-call, as a tree.
-- In metadata mode (the restricted profile) the content columns stay NULL: ids, sizes,
-- timings, tokens and error codes only.
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    mode TEXT NOT NULL,              -- full | metadata
    question TEXT,
    question_chars INTEGER NOT NULL,
    strategy TEXT,
    provider TEXT,
    model TEXT,
    status TEXT NOT NULL,            -- running | ok | error
    error_code TEXT,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    duration_ms REAL,
    cost_usd REAL,
    usage TEXT,                      -- JSON: the budget spent
    limits TEXT,                     -- JSON: the budget limits
    plan TEXT,                       -- JSON: the tier per depth
    answer TEXT,
    answer_chars INTEGER,
    citations TEXT                   -- JSON: doc_id, start, end, checksum (+ source, full mode)
);
CREATE INDEX runs_by_session ON runs(session_id, started_at);
CREATE INDEX runs_by_start ON runs(started_at);

CREATE TABLE run_events (
    run_id TEXT NOT NULL REFERENCES runs(id),
    id TEXT NOT NULL,                -- m1 (model call), t1 (tool), r1 (REPL step), s1 (sub-call)
    parent_id TEXT,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,              -- model | tool | repl | sub
    depth INTEGER NOT NULL,
    name TEXT NOT NULL,              -- provider/model, tool name, step number, sub-call id
    status TEXT NOT NULL,            -- ok | error
    error_code TEXT,
    started_at TEXT NOT NULL,
    duration_ms REAL NOT NULL,
    input_tokens INTEGER,
    output_tokens INTEGER,
    cost_usd REAL,
    cache_hit INTEGER,
    input_chars INTEGER NOT NULL,
    output_chars INTEGER NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}', -- JSON, never content: ids, counts, tool names
    input TEXT,                      -- JSON: prompt messages, tool arguments, code, sub-query
    output TEXT,                     -- JSON: reply and tool calls, tool result, stdout, answer
    PRIMARY KEY (run_id, id)
);
CREATE INDEX run_events_by_run ON run_events(run_id, seq);

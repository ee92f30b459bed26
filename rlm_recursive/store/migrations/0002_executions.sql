-- REPL executions and their steps (seed 003 §6, §10), and the temperature-0 sub-call cache.
-- State is JSON only; a run resumes from its last step.
CREATE TABLE executions (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    mode TEXT NOT NULL,                 -- answerer | runtime
    question TEXT,
    status TEXT NOT NULL,               -- RUNNING COMPLETED FAILED TIMEOUT BUDGET_EXCEEDED MAX_TURNS_EXCEEDED
    options TEXT NOT NULL DEFAULT '{}', -- JSON: plan source, limits, output mode
    answer TEXT,
    error TEXT,                         -- JSON error envelope when the run failed
    usage TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX executions_by_session ON executions(session_id, created_at);

CREATE TABLE execution_steps (
    execution_id TEXT NOT NULL REFERENCES executions(id),
    turn_index INTEGER NOT NULL,
    code TEXT NOT NULL,
    stdout TEXT NOT NULL,
    state TEXT NOT NULL,                -- JSON: persisted variables and the `state` dict
    span_log TEXT NOT NULL,             -- JSON list of {doc_index, start_char, end_char, tag}
    tool_requests TEXT NOT NULL,        -- JSON {llm: [...], search: [...]}
    final TEXT,                         -- JSON {is_final, answer} when the step finished the run
    error TEXT,                         -- JSON {type, message, traceback} of the model's code
    checksum TEXT NOT NULL,             -- "sha256:" over the step's canonical JSON
    timings TEXT NOT NULL,              -- JSON {sandbox_ms, host_ms, total_ms}
    created_at TEXT NOT NULL,
    PRIMARY KEY (execution_id, turn_index)
);

CREATE TABLE llm_cache (
    key TEXT PRIMARY KEY,               -- sha256 of provider, model, options and prompt sha256
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    options TEXT NOT NULL,
    prompt_sha256 TEXT NOT NULL,
    response TEXT NOT NULL,             -- JSON ChatResult
    created_at TEXT NOT NULL
);

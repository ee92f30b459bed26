-- Executions, their steps and the temperature-0 sub-call cache on PostgreSQL: SQLite's 0002
-- (plus `result` from its 0006), so one ExecutionStore serves both. JSON stays in TEXT
-- columns, as on SQLite: the store reads and writes it the same way on both engines.
--
-- Queue columns (PostgreSQL only; SQLite never queues):
--   job_id   the procrastinate job that runs the execution (abort on cancel);
--   attempt  a fencing token: each worker run takes the next attempt, and every write it makes
--            checks it, so a run that lost its lease (its worker stalled, the job was retried
--            elsewhere) can never overwrite the newer attempt's steps or result.
-- No foreign key to `sessions`: that table arrives with the rest of the store's port, in
-- whichever order the two land.
CREATE TABLE executions (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    mode TEXT NOT NULL,                 -- answerer | runtime
    question TEXT,
    status TEXT NOT NULL,               -- QUEUED RUNNING COMPLETED FAILED TIMEOUT BUDGET_EXCEEDED MAX_TURNS_EXCEEDED
    options TEXT NOT NULL DEFAULT '{}',
    answer TEXT,
    error TEXT,
    usage TEXT NOT NULL DEFAULT '{}',
    result TEXT,
    job_id BIGINT,
    attempt INTEGER NOT NULL DEFAULT 0,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX executions_by_session ON executions(session_id, created_at);
CREATE INDEX executions_unfinished ON executions(status) WHERE status IN ('QUEUED', 'RUNNING');

CREATE TABLE execution_steps (
    execution_id TEXT NOT NULL REFERENCES executions(id),
    turn_index INTEGER NOT NULL,
    code TEXT NOT NULL,
    stdout TEXT NOT NULL,
    state TEXT NOT NULL,
    span_log TEXT NOT NULL,
    tool_requests TEXT NOT NULL,
    final TEXT,
    error TEXT,
    checksum TEXT NOT NULL,
    timings TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (execution_id, turn_index)
);

CREATE TABLE llm_cache (
    key TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    options TEXT NOT NULL,
    prompt_sha256 TEXT NOT NULL,
    response TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);

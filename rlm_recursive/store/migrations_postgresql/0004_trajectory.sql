-- The trajectory of a run (SQLite's 0004, with 0008's lease columns and 0009's grounding):
-- every model call, tool call, REPL step and sub-call, as a tree. In metadata mode the
-- content columns stay NULL.
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
  started_at TIMESTAMPTZ NOT NULL,
  ended_at TIMESTAMPTZ,
  duration_ms DOUBLE PRECISION,
  cost_usd DOUBLE PRECISION,
  usage TEXT,
  limits TEXT,
  plan TEXT,
  answer TEXT,
  answer_chars INTEGER,
  citations TEXT,
  heartbeat_at TIMESTAMPTZ,
  owner TEXT,                      -- host:pid of the recording process
  grounding TEXT,
  row_seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE
);
CREATE INDEX runs_by_session ON runs (session_id, started_at);
CREATE INDEX runs_by_start ON runs (started_at);
CREATE INDEX runs_running ON runs (status) WHERE status = 'running';

CREATE TABLE run_events (
  run_id TEXT NOT NULL REFERENCES runs(id),
  id TEXT NOT NULL,
  parent_id TEXT,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  depth INTEGER NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  error_code TEXT,
  started_at TIMESTAMPTZ NOT NULL,
  duration_ms DOUBLE PRECISION NOT NULL,
  input_tokens BIGINT,
  output_tokens BIGINT,
  cost_usd DOUBLE PRECISION,
  cache_hit INTEGER,
  input_chars BIGINT NOT NULL,
  output_chars BIGINT NOT NULL,
  meta TEXT NOT NULL DEFAULT '{}',
  input TEXT,
  output TEXT,
  PRIMARY KEY (run_id, id)
);
CREATE INDEX run_events_by_run ON run_events (run_id, seq);

-- Runs and sessions that end properly (issue 21).
-- A run's lease: the recording process renews heartbeat_at while the run goes on; a run still
-- `running` whose lease lapsed, or whose owner (host:pid) is gone, is recorded as failed.
ALTER TABLE runs ADD COLUMN heartbeat_at TEXT;
ALTER TABLE runs ADD COLUMN owner TEXT;
CREATE INDEX runs_running ON runs(status) WHERE status = 'running';

-- A session's time to live (seed 003 §13.1): past expires_at it is EXPIRED, and `gc` may
-- collect what only it referenced. NULL: no TTL (CLI and MCP sessions, unless asked).
ALTER TABLE sessions ADD COLUMN expires_at TEXT;
CREATE INDEX sessions_by_expiry ON sessions(expires_at) WHERE expires_at IS NOT NULL;

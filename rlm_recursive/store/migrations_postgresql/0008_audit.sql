-- The audit log on a shared database: one row per call, the fields of policy/audit.py's
-- JSONL record (ids, sizes, timing, model, cost, codes; never content), so every process's
-- calls are in one place. SQLite stores keep `audit.jsonl` in the data dir.
CREATE TABLE audit_log (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  ts TIMESTAMPTZ NOT NULL,
  profile TEXT,
  correlation_id TEXT,
  tool TEXT,
  duration_ms BIGINT,
  bytes_read BIGINT,
  model_used TEXT,
  cost DOUBLE PRECISION,
  error_code TEXT,
  tenant_id TEXT,
  key_id TEXT,
  route TEXT,
  status INTEGER,
  execution_id TEXT,
  tokens BIGINT
);
CREATE INDEX audit_log_by_ts ON audit_log (ts);
CREATE INDEX audit_log_by_tenant ON audit_log (tenant_id, ts) WHERE tenant_id IS NOT NULL;

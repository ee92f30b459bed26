-- API keys and per-tenant daily usage (SQLite's 0006). A key is stored as the hex
-- HMAC-SHA256 under RLM_API_KEY_SALT, a secret the operator gives every process and never
-- keeps in this database. executions.result (also SQLite's 0006) comes with the executions
-- table.
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  name TEXT,
  key_hash TEXT NOT NULL UNIQUE,
  scopes TEXT NOT NULL,            -- JSON list: read, run, admin
  created_at TIMESTAMPTZ NOT NULL,
  last_used_at TIMESTAMPTZ,
  revoked_at TIMESTAMPTZ
);
CREATE INDEX api_keys_by_tenant ON api_keys (tenant_id);

CREATE TABLE tenant_usage (
  tenant_id TEXT NOT NULL,
  day TEXT NOT NULL,               -- UTC, YYYY-MM-DD
  executions BIGINT NOT NULL DEFAULT 0,
  sub_calls BIGINT NOT NULL DEFAULT 0,
  tokens BIGINT NOT NULL DEFAULT 0,
  usd DOUBLE PRECISION NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, day)
);

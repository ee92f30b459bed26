-- Tenancy for the HTTP API (seed 003 §13.1 rlm_api_keys, §18.1): keys map to tenants; only a
-- salted hash of a key is kept. Sessions carry their tenant; executions, documents, steps,
-- artifacts and traces are reached only through a session, so they inherit it. Rows made by
-- the CLI or MCP have tenant_id NULL and are invisible to every API tenant.
CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    name TEXT,
    key_hash TEXT NOT NULL UNIQUE,      -- hex HMAC-SHA256 of the key under the data dir's salt
    scopes TEXT NOT NULL,               -- JSON list: read, run, admin
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
);
CREATE INDEX api_keys_by_tenant ON api_keys(tenant_id);

ALTER TABLE sessions ADD COLUMN tenant_id TEXT;
ALTER TABLE sessions ADD COLUMN readiness TEXT;     -- API: CREATING READY FAILED DELETED
ALTER TABLE sessions ADD COLUMN load_error TEXT;    -- JSON error of a failed background load
CREATE INDEX sessions_by_tenant ON sessions(tenant_id, created_at);

-- An API execution's result beyond the answer: citations, contexts, the REPL execution that
-- holds its steps.
ALTER TABLE executions ADD COLUMN result TEXT;

-- Per-tenant daily spend (UTC day), checked before an execution starts.
CREATE TABLE tenant_usage (
    tenant_id TEXT NOT NULL,
    day TEXT NOT NULL,
    executions INTEGER NOT NULL DEFAULT 0,
    sub_calls INTEGER NOT NULL DEFAULT 0,
    tokens INTEGER NOT NULL DEFAULT 0,
    usd REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, day)
);

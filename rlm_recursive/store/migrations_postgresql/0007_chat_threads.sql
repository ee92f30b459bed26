-- OpenAI-compatible chat (SQLite's 0011): the history a client will send next leads back to
-- the LCM conversation that holds it.
CREATE TABLE chat_threads (
  history_sha256 TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  conversation_id BIGINT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);

-- OpenAI-compatible chat (POST /v1/chat/completions): a client sends the whole history on
-- every turn. The history as the client will send it next (its sha256, over tenant, session
-- and messages) leads back to the LCM conversation that holds it, so a follow-up continues
-- that conversation instead of starting a new one.
CREATE TABLE chat_threads (
    history_sha256 TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    conversation_id INTEGER NOT NULL,
    created_at TEXT NOT NULL
);

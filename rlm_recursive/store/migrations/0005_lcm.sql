-- Lossless context management (seed 002): canonical messages and parts are kept forever;
-- summaries carry explicit lineage back to them. The seed's PostgreSQL schema, in SQLite:
-- enums become CHECKs, JSONB/arrays become JSON text, tsvector columns become FTS5 tables.

CREATE TABLE conversations (
    conversation_id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    title TEXT,
    message_count INTEGER NOT NULL DEFAULT 0,  -- appended so far: a deleted message shows
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX conversations_by_session ON conversations(session_id, created_at);

CREATE TABLE messages (
    message_id INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id INTEGER NOT NULL REFERENCES conversations(conversation_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content TEXT NOT NULL,
    token_count INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (conversation_id, seq)
);
CREATE VIRTUAL TABLE messages_fts USING fts5(
    content, content='messages', content_rowid='message_id');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.message_id, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content)
    VALUES ('delete', old.message_id, old.content);
END;

CREATE TABLE summaries (
    summary_id TEXT PRIMARY KEY,
    conversation_id INTEGER NOT NULL REFERENCES conversations(conversation_id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('leaf', 'condensed')),
    content TEXT NOT NULL,
    token_count INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    file_ids TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX summaries_conv_created ON summaries(conversation_id, created_at);
CREATE VIRTUAL TABLE summaries_fts USING fts5(content, content='summaries');
CREATE TRIGGER summaries_fts_insert AFTER INSERT ON summaries BEGIN
    INSERT INTO summaries_fts(rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER summaries_fts_delete AFTER DELETE ON summaries BEGIN
    INSERT INTO summaries_fts(summaries_fts, rowid, content)
    VALUES ('delete', old.rowid, old.content);
END;

CREATE TABLE message_parts (
    part_id TEXT PRIMARY KEY,
    message_id INTEGER NOT NULL REFERENCES messages(message_id) ON DELETE CASCADE,
    session_id TEXT NOT NULL,
    part_type TEXT NOT NULL CHECK (part_type IN (
        'text', 'reasoning', 'tool', 'patch', 'file', 'subtask', 'compaction',
        'step_start', 'step_finish', 'snapshot', 'agent', 'retry')),
    ordinal INTEGER NOT NULL,
    text_content TEXT,
    is_ignored INTEGER,
    is_synthetic INTEGER,
    tool_call_id TEXT,
    tool_name TEXT,
    tool_status TEXT,
    tool_input TEXT,
    tool_output TEXT,
    tool_error TEXT,
    tool_title TEXT,
    patch_hash TEXT,
    patch_files TEXT,
    file_mime TEXT,
    file_name TEXT,
    file_url TEXT,
    subtask_prompt TEXT,
    subtask_desc TEXT,
    subtask_agent TEXT,
    step_reason TEXT,
    step_cost REAL,
    step_tokens_in INTEGER,
    step_tokens_out INTEGER,
    snapshot_hash TEXT,
    compaction_auto INTEGER,
    metadata TEXT,
    UNIQUE (message_id, ordinal)
);
CREATE INDEX message_parts_type ON message_parts(part_type);

-- summary_id is the summary; message_id one of its canonical sources.
CREATE TABLE summary_messages (
    summary_id TEXT NOT NULL REFERENCES summaries(summary_id) ON DELETE CASCADE,
    message_id INTEGER NOT NULL REFERENCES messages(message_id) ON DELETE RESTRICT,
    ordinal INTEGER NOT NULL,
    PRIMARY KEY (summary_id, message_id)
);
CREATE INDEX summary_messages_by_message ON summary_messages(message_id);

-- summary_id is a condensed summary; parent_summary_id one of the summaries it condensed.
CREATE TABLE summary_parents (
    summary_id TEXT NOT NULL REFERENCES summaries(summary_id) ON DELETE CASCADE,
    parent_summary_id TEXT NOT NULL REFERENCES summaries(summary_id) ON DELETE RESTRICT,
    ordinal INTEGER NOT NULL,
    PRIMARY KEY (summary_id, parent_summary_id)
);
CREATE INDEX summary_parents_by_parent ON summary_parents(parent_summary_id);

CREATE TABLE context_items (
    conversation_id INTEGER NOT NULL REFERENCES conversations(conversation_id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    item_type TEXT NOT NULL CHECK (item_type IN ('message', 'summary')),
    message_id INTEGER REFERENCES messages(message_id) ON DELETE RESTRICT,
    summary_id TEXT REFERENCES summaries(summary_id) ON DELETE RESTRICT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (conversation_id, ordinal),
    CHECK (
        (item_type = 'message' AND message_id IS NOT NULL AND summary_id IS NULL) OR
        (item_type = 'summary' AND summary_id IS NOT NULL AND message_id IS NULL)
    )
);

CREATE TABLE large_files (
    file_id TEXT PRIMARY KEY,
    conversation_id INTEGER NOT NULL REFERENCES conversations(conversation_id) ON DELETE CASCADE,
    file_name TEXT,
    mime_type TEXT,
    byte_size INTEGER,
    storage_uri TEXT NOT NULL,
    exploration_summary TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX large_files_conv ON large_files(conversation_id, created_at);

-- The per-conversation compaction lock (SQLite has no advisory locks): a lease row that a
-- crashed holder cannot keep forever.
CREATE TABLE lcm_locks (
    conversation_id INTEGER PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_at REAL NOT NULL
);

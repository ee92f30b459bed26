-- Sessions, documents, spans, artifacts and traces. Raw text lives in the blob store.
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    name TEXT,
    created_at TEXT NOT NULL,
    closed_at TEXT,
    status TEXT NOT NULL DEFAULT 'active',
    config TEXT NOT NULL,
    tool_calls_used INTEGER NOT NULL DEFAULT 0,
    docs_version INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE documents (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    content_hash TEXT NOT NULL,
    source TEXT NOT NULL,
    source_type TEXT NOT NULL,
    length_chars INTEGER NOT NULL,
    length_tokens_est INTEGER NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
);
CREATE INDEX documents_by_session ON documents(session_id);
CREATE INDEX documents_by_hash ON documents(content_hash);

-- One row per (document, chunking strategy): the cache key for rlm_chunk_create.
CREATE TABLE chunkings (
    doc_id TEXT NOT NULL REFERENCES documents(id),
    strategy_key TEXT NOT NULL,
    total_spans INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (doc_id, strategy_key)
);

CREATE TABLE spans (
    id TEXT PRIMARY KEY,
    doc_id TEXT NOT NULL REFERENCES documents(id),
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL,
    strategy_key TEXT,
    chunk_index INTEGER,
    content_hash TEXT NOT NULL
);
CREATE INDEX spans_by_chunking ON spans(doc_id, strategy_key, chunk_index);
CREATE INDEX spans_by_range ON spans(doc_id, start_offset, end_offset);

CREATE TABLE artifacts (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    span_id TEXT REFERENCES spans(id),
    type TEXT NOT NULL,
    content TEXT NOT NULL,
    provenance TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX artifacts_by_session ON artifacts(session_id, created_at);

CREATE TABLE traces (
    id INTEGER PRIMARY KEY,
    session_id TEXT,
    ts TEXT NOT NULL,
    op TEXT NOT NULL,
    input TEXT NOT NULL,
    output TEXT NOT NULL,
    duration_ms REAL NOT NULL
);
CREATE INDEX traces_by_session ON traces(session_id, id);

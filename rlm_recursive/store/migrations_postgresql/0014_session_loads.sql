-- Queued loads (issue 23, ingestion jobs): one row per session whose documents a worker
-- loads. PostgreSQL only (SQLite never queues), so no SQLite migration mirrors it.
--
--   sources     the loader's sources as JSON; an inline text is the content hash of its
--               blob (the blob store is shared), never the text itself;
--   origin      'api' (paths relative to the allowed roots, read under the worker's
--               client policy) or 'cli' (absolute paths, under the worker's profile);
--   state       queued | running | done;
--   attempt     a fencing token: each worker run takes the next one, and only the attempt
--               that owns the row may publish its documents and the session's readiness;
--   staging_id  the hidden session the current attempt loads into; its documents move into
--               the real session in the one transaction that makes it READY, so a load that
--               died half way never shows, and a retry never duplicates a document.
CREATE TABLE session_loads (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id),
    origin TEXT NOT NULL,
    sources TEXT NOT NULL,
    ocr BOOLEAN,
    state TEXT NOT NULL DEFAULT 'queued',
    attempt INTEGER NOT NULL DEFAULT 0,
    staging_id TEXT,
    job_id BIGINT,
    created_at TIMESTAMPTZ NOT NULL,
    started_at TIMESTAMPTZ,
    finished_at TIMESTAMPTZ
);
CREATE INDEX session_loads_unfinished ON session_loads(state) WHERE state != 'done';

-- How each document was read (seed 003 §14): its format, parser, raw file identity, encoding,
-- page count and version, and its structure metadata (pages, headings, tables, checkpoints).
-- The canonical text itself is the document's blob.
CREATE TABLE document_parses (
    doc_id TEXT PRIMARY KEY REFERENCES documents(id),
    format TEXT NOT NULL,
    parser_version TEXT NOT NULL,
    raw_sha256 TEXT NOT NULL,
    encoding TEXT,
    page_count INTEGER,
    version INTEGER NOT NULL,
    previous_doc_id TEXT,
    warnings TEXT NOT NULL DEFAULT '[]',
    meta TEXT NOT NULL
);
CREATE INDEX document_parses_by_raw ON document_parses(raw_sha256, parser_version);

-- Secrets found in source texts, once per text and rule set (export redacts every derivative
-- of a text by overlap with these spans). A subject is `blob:<content_hash>` for a document's
-- text (documents that share a text share its scan; join on documents.content_hash) or
-- `art:<artifact id>` for an artifact's strings. Offsets are characters; never the secret.
CREATE TABLE secret_scans (
    subject TEXT PRIMARY KEY,
    ruleset TEXT NOT NULL,
    found INTEGER NOT NULL,
    scanned_at TEXT NOT NULL
);
CREATE TABLE secret_spans (
    subject TEXT NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL,
    kind TEXT NOT NULL,
    confidence TEXT NOT NULL,        -- rule | suspect
    PRIMARY KEY (subject, start_offset)
);

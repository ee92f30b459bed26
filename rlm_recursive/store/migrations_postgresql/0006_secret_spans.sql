-- Secrets found in source texts, once per text and rule set (SQLite's 0010). A subject is
-- `blob:<content_hash>` or `art:<artifact id>`; offsets are characters; never the secret.
CREATE TABLE secret_scans (
  subject TEXT PRIMARY KEY,
  ruleset TEXT NOT NULL,
  found INTEGER NOT NULL,
  scanned_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE secret_spans (
  subject TEXT NOT NULL,
  start_offset BIGINT NOT NULL,
  end_offset BIGINT NOT NULL,
  kind TEXT NOT NULL,
  confidence TEXT NOT NULL,        -- rule | suspect
  PRIMARY KEY (subject, start_offset)
);

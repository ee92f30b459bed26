-- Export bookkeeping: the timestamp a session's branch and folder are named after is chosen
-- once, so a re-export updates the same branch path.
ALTER TABLE sessions ADD COLUMN export_stamp TEXT;
ALTER TABLE sessions ADD COLUMN export_branch TEXT;
ALTER TABLE sessions ADD COLUMN export_commit TEXT;
ALTER TABLE sessions ADD COLUMN exported_at TEXT;

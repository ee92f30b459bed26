-- Fixed-window request counters that every process on this database shares
-- (store/counters.py). One row per limit key; a row whose window ended starts over.
CREATE TABLE rate_counters (
  key TEXT PRIMARY KEY,
  hits BIGINT NOT NULL,
  expires_at DOUBLE PRECISION NOT NULL  -- unix seconds
);

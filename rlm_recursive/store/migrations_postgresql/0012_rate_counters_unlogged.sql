-- Request counters are minutes-long and rebuilt by the next request: they need no WAL.
-- Unlogged, a counting statement does not wait for a WAL flush (each request's limit check
-- commits one); after a crash the table comes back empty, which forgives at most one window.
ALTER TABLE rate_counters SET UNLOGGED;

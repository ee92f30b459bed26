"""The job queue and its workers (issue 23): procrastinate on the store's PostgreSQL.

With `RLM_DATABASE_URL` set, `api` enqueues each execution (`client.ExecutionQueue`) and
`rlm-recursive worker` runs it (`worker.serve_worker`, `jobs.run_execution`); long or bulk
loads are queued the same way (`loads.LoadQueue`, `ingest.ingest`). Without it, nothing here
is used: executions and loads run inside the `api` process as before.
"""

from __future__ import annotations

__all__: list[str] = []

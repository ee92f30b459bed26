-- The live events of queued executions (issue 23's leftovers): the worker that runs an
-- execution appends its steps, sub-calls and progress here (each batch with a NOTIFY on
-- `rlm_execution_events`), and every `api` process relays them to its SSE clients, whichever
-- process queued the execution. PostgreSQL only: SQLite never queues. Rows are pruned by the
-- workers a while after their execution ends.
CREATE TABLE execution_events (
    id BIGSERIAL PRIMARY KEY,
    execution_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    type TEXT NOT NULL,          -- status | step | sub_call | progress (EventFeed's types)
    data TEXT NOT NULL,          -- the event's JSON object, with its one-line `message`
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX execution_events_by_execution ON execution_events(execution_id, id);

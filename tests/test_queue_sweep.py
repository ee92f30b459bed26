"""A queued execution whose final write is lost is not left RUNNING forever (issue 23's
leftovers): the worker's sweep re-queues it, or ends it FAILED (`execution_lost`).

The loss is real: a trigger on `executions` makes the backend that writes a final status
terminate itself (`pg_terminate_backend(pg_backend_pid())`) a set number of times (a sequence
counts them: it is not rolled back with the write), so the worker's connection dies in the
middle of its final write, as when the database goes away at that instant.
"""

from __future__ import annotations

import threading

import psycopg
import test_queue
from queue_support import HeldModel, job_row, start_worker, until
from serve_support import sse_events
from test_queue import ANSWER, _enqueue, _serving

from rlm_recursive.queue.client import ExecutionQueue
from rlm_recursive.queue.jobs import repl_root_id
from rlm_recursive.queue.sweep import sweep_lost
from rlm_recursive.store.executions import ExecutionStore, is_finished

shared, workers = test_queue.shared, test_queue.workers  # the queue suite's fixtures


def _lose_final_writes(url: str, times: int) -> None:
    """The next `times` writes of a final status cut their own connection mid-write."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SEQUENCE lost_writes MAXVALUE {times + 1000}")
        conn.execute(f"""CREATE FUNCTION lose_final_write() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF nextval('lost_writes') <= {times} THEN
                    PERFORM pg_terminate_backend(pg_backend_pid());
                END IF;
                RETURN NEW;
            END $$""")
        conn.execute("CREATE TRIGGER lose_final_write BEFORE UPDATE ON executions FOR EACH ROW "
                     "WHEN (OLD.status IN ('QUEUED', 'RUNNING') AND NEW.status NOT IN "
                     "('QUEUED', 'RUNNING')) EXECUTE FUNCTION lose_final_write()")


def _job_events(url: str, job_id: int) -> list[str]:
    with psycopg.connect(url) as conn:
        return [r[0] for r in conn.execute(
            "SELECT type::text FROM procrastinate_events WHERE job_id = %s ORDER BY id",
            (job_id,))]


def _writes_tried(url: str) -> int:
    with psycopg.connect(url) as conn:
        return int(conn.execute("SELECT last_value FROM lost_writes").fetchone()[0])


def test_a_lost_final_write_is_requeued_and_the_next_run_finishes(
        shared, data_dir, tmp_path, workers):
    runtime, url, key = shared
    store = ExecutionStore(runtime.store.sql)
    _lose_final_writes(url, 2)  # the answer's write, then the failure's write
    held = HeldModel(ANSWER)
    with _serving(runtime, key, held) as (model, client):
        workers.append(start_worker(data_dir, url, model.url, tmp_path / "w.log"))
        _, execution_id, _ = _enqueue(client)
        until(lambda: is_finished(store.status(execution_id)), 90, "the execution to end")
        log = (tmp_path / "w.log").read_text()
        record = store.get(execution_id)
        assert record["status"] == "COMPLETED", (record, log)
        assert record["answer"] == ANSWER
        assert _writes_tried(url) == 3  # two lost writes, then the one that stuck
        attempt = store.db.one("SELECT attempt FROM executions WHERE id = ?", (execution_id,))
        assert attempt[0] == 2
        assert held.answering == 2  # the first run's answer was lost: it ran again
        job_id = store.job_id(execution_id)
        until(lambda: job_row(url, job_id)["status"] == "succeeded", 10, "the job's end")
        events = _job_events(url, job_id)
        assert events.index("failed") < events.index("retried") < events.index("succeeded")
        assert "re-queued ['" + execution_id in log
        # The API that queued it still tells the whole story, from QUEUED to the answer.
        with client.stream("GET", f"/v1/executions/{execution_id}/events") as response:
            told = [e for e in sse_events(list(response.iter_lines())) if "comment" not in e]
        assert told[-1]["json"]["status"] == "COMPLETED"
        assert any(e["event"] == "answer" and e["json"]["answer"] == ANSWER for e in told)


def test_an_execution_lost_too_often_ends_failed_with_a_stable_code(
        shared, data_dir, tmp_path, workers):
    runtime, url, key = shared
    store = ExecutionStore(runtime.store.sql)
    _lose_final_writes(url, 2)
    held = HeldModel(ANSWER)
    with _serving(runtime, key, held) as (model, client):
        workers.append(start_worker(data_dir, url, model.url, tmp_path / "w.log",
                                    "--max-attempts", "1"))
        _, execution_id, _ = _enqueue(client)
        waited = client.post(f"/v1/executions/{execution_id}/wait",
                             json={"timeout_seconds": 90})
        view = waited.json()
        assert view["status"] == "FAILED", (view, (tmp_path / "w.log").read_text())
        assert view["error"]["code"] == "execution_lost"
        assert view["error"]["retryable"] is True
        assert "failed 1 time" in view["error"]["message"]
        assert view["answer"] is None and held.answering == 1  # never run again
        assert job_row(url, store.job_id(execution_id))["status"] == "failed"


def test_the_sweep_acts_only_on_rows_no_job_will_finish(shared):
    runtime, url, _ = shared
    queue = ExecutionQueue(url, runtime.store.sql)
    store = queue.executions

    def queued(name: str) -> tuple[str, int]:
        execution_id = f"exec_{name}"
        return execution_id, queue.enqueue(execution_id, "ses_1", "q?", {}, {}, "acme")

    waiting, waiting_job = queued("waiting")      # job todo: a worker will take it
    gone, gone_job = queued("gone")               # its job row deleted
    cancel, cancel_job = queued("cancel")         # cancelled, but the row's write was lost
    failed, failed_job = queued("failed")         # its worker's final write lost, once
    spent, spent_job = queued("spent")            # lost as often as it may be
    store.create(repl_root_id(spent), "ses_1", "runtime", None, {})  # its REPL steps' row
    store.create("exec_runtime", "ses_1", "runtime", None, {})  # client-driven: no job
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DELETE FROM procrastinate_jobs WHERE id = %s", (gone_job,))
        conn.execute("SELECT procrastinate_cancel_job_v1(%s, true, false)", (cancel_job,))
        for job_id, losses in ((failed_job, 1), (spent_job, 3)):
            for loss in range(losses):  # a worker takes it, then fails without a final write
                if loss:
                    conn.execute("SELECT procrastinate_retry_job_v2(%s, now(), NULL, NULL, "
                                 "NULL)", (job_id,))
                conn.execute("UPDATE procrastinate_jobs SET status = 'doing' WHERE id = %s",
                             (job_id,))
                conn.execute("SELECT procrastinate_finish_job_v1(%s, 'failed', false)",
                             (job_id,))
    for execution_id in (failed, spent):
        assert store.claim(execution_id) == 1  # RUNNING, as its worker left it

    # Two workers sweep at once: each row is set right once.
    reports = []
    sweepers = [threading.Thread(target=lambda: reports.append(sweep_lost(store, 3)))
                for _ in range(2)]
    for thread in sweepers:
        thread.start()
    for thread in sweepers:
        thread.join(30)
    assert sorted(r for report in reports for r in report.requeued) == [failed]
    assert sorted(r for report in reports for r in report.cancelled) == [cancel]
    assert sorted(r for report in reports for r in report.lost) == sorted([gone, spent])

    assert store.status(waiting) == "QUEUED" and job_row(url, waiting_job)["status"] == "todo"
    assert store.status("exec_runtime") == "RUNNING"
    assert store.get(cancel)["error"]["code"] == "cancelled"
    assert store.status(failed) == "QUEUED" and job_row(url, failed_job)["status"] == "todo"
    assert _job_events(url, failed_job).count("retried") == 1
    for execution_id, why in ((gone, "gone from the queue"), (spent, "failed 3 time")):
        record = store.get(execution_id)
        assert record["status"] == "FAILED" and record["error"]["code"] == "execution_lost"
        assert why in record["error"]["message"]
    assert store.get(repl_root_id(spent))["error"]["code"] == "execution_lost"
    # Nothing left to do: a second pass changes nothing.
    assert not sweep_lost(store, 3)
    assert store.claim(failed) == 2  # the retried job's run takes the next attempt

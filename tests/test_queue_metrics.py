"""Metrics for the queue (issue 23's leftovers), scraped over HTTP as Prometheus does: a
`rlm-recursive worker --metrics-port N` subprocess serves its jobs, executions, durations and
in-flight count; the api's /metrics reports the queue's depth read from the shared store.
"""

from __future__ import annotations

import httpx
import test_queue
from api_support import free_port
from prometheus_client.parser import text_string_to_metric_families
from queue_support import HeldModel, start_worker, until
from test_queue import ANSWER, _enqueue, _serving

from rlm_recursive.store.executions import ExecutionStore

shared, workers = test_queue.shared, test_queue.workers  # the queue suite's fixtures

RUN = "rlm.run_execution"


def _scrape(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a real scrape, by (name, sorted labels)."""
    reply = httpx.get(url, timeout=10)
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-type"].startswith("text/plain")
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(reply.text)
            for sample in family.samples}


def _value(samples: dict, name: str, **labels: str) -> float | None:
    return samples.get((name, tuple(sorted(labels.items()))))


def test_a_worker_serves_its_metrics_and_the_api_the_queue_depth(shared, data_dir, tmp_path,
                                                                  workers):
    runtime, url, key = shared
    store = ExecutionStore(runtime.store.sql)
    port = free_port()
    worker_metrics = f"http://127.0.0.1:{port}/metrics"
    held = HeldModel(ANSWER)
    held.held.set()
    with _serving(runtime, key, held) as (model, client):
        api_metrics = f"{client.base_url}/v1/metrics"
        workers.append(start_worker(data_dir, url, model.url, tmp_path / "w.log",
                                    "--metrics-port", str(port), "--concurrency", "2",
                                    "--concurrent-executions", "1"))
        idle = until(lambda: _reachable(worker_metrics), 60, "the worker's metrics")
        assert _value(idle, "rlm_worker_jobs_in_flight", task=RUN) == 0
        _, first, _ = _enqueue(client)
        until(lambda: held.answering >= 1, 60, "the first execution to reach the model")
        _, second, _ = _enqueue(client)  # over the tenant's cap of 1: it waits QUEUED
        busy = _scrape(worker_metrics)
        assert _value(busy, "rlm_worker_jobs_in_flight", task=RUN) >= 1
        until(lambda: _value(_scrape(api_metrics), "rlm_executions_queued") == 1
              and _value(_scrape(api_metrics), "rlm_executions_running") == 1, 30,
              "the api to report one queued and one running execution")
        assert (store.status(first), store.status(second)) == ("RUNNING", "QUEUED")
        held.release.set()
        until(lambda: store.status(first) == store.status(second) == "COMPLETED", 60,
              "both executions")
        done = until(lambda: (s := _scrape(worker_metrics)) and _value(
            s, "rlm_worker_executions_total", status="COMPLETED") == 2 and s, 30,
            "the worker to count both executions")
        assert _value(done, "rlm_worker_jobs_in_flight", task=RUN) == 0
        assert _value(done, "rlm_worker_jobs_total", task=RUN, outcome="succeeded") == 2
        # The second job was sent back while the first held the tenant's only slot.
        assert (_value(done, "rlm_worker_jobs_total", task=RUN, outcome="no_slot") or 0) >= 1
        assert _value(done, "rlm_worker_job_duration_seconds_count", task=RUN) == 2
        assert _value(done, "rlm_worker_job_duration_seconds_sum", task=RUN) > 0
        until(lambda: _value(_scrape(api_metrics), "rlm_executions_queued") == 0
              and _value(_scrape(api_metrics), "rlm_executions_running") == 0, 30,
              "the api's queue gauges to come back to 0")


def _reachable(url: str) -> dict | None:
    try:
        return _scrape(url)
    except httpx.TransportError:
        return None


def test_the_worker_reports_a_metrics_port_in_use(shared, data_dir, tmp_path):
    import socket
    import subprocess

    _, url, _ = shared
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        proc = start_worker(data_dir, url, "http://127.0.0.1:9", tmp_path / "w.log",
                            "--metrics-port", str(taken.getsockname()[1]))
        try:
            assert proc.wait(60) == 1
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    log = (tmp_path / "w.log").read_text()
    assert "error[invalid_args]" in log and "cannot serve metrics" in log, log

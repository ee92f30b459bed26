"""Real database and object-store servers for the tests (a pytest plugin, see conftest).

PostgreSQL: `RLM_TEST_DATABASE_URL` (a server `.ci/run` started), else a throw-away cluster
this session starts from Debian's binaries (`pg_server.py`). Without binaries the tests that
need it are skipped with the reason, except under CI, where that is a failure.
Each test gets a database of its own, dropped afterwards.

S3: a real `moto` server (`python -m moto.server`) on 127.0.0.1, one bucket per test.
"""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from pg_server import PgServer, find_bindir

TEST_DATABASE_URL_ENV = "RLM_TEST_DATABASE_URL"
BACKENDS = ("sqlite", "postgresql")


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run the PostgreSQL tests (see .ci/run)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The superuser URL of a running PostgreSQL on loopback."""
    given = os.environ.get(TEST_DATABASE_URL_ENV)
    if given:
        yield given
        return
    if find_bindir() is None:
        _unavailable("no PostgreSQL server binaries (initdb, pg_ctl): install Debian's "
                     f"`postgresql` or set {TEST_DATABASE_URL_ENV}")
    server = PgServer()
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A fresh, empty database on the test server; dropped when the test ends."""
    import psycopg

    name = f"rlm_test_{secrets.token_hex(6)}"
    with psycopg.connect(postgres_server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = urlsplit(postgres_server)._replace(path=f"/{name}").geturl()
    try:
        yield url
    finally:
        if (pools := sys.modules.get("rlm_recursive.store.postgres")) is not None:
            pools.close_pools(url)  # a test may leave its stores open
        with psycopg.connect(postgres_server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
                 ) -> str | None:
    """Each backend in turn: None (SQLite in the data dir) or a fresh PostgreSQL database,
    also exported as RLM_DATABASE_URL so code that reads the environment follows."""
    request.getfixturevalue("data_dir")  # conftest's clean environment first, then the URL
    if request.param == "sqlite":
        monkeypatch.delenv("RLM_DATABASE_URL", raising=False)
        return None
    url: str = request.getfixturevalue("postgres_url")
    monkeypatch.setenv("RLM_DATABASE_URL", url)
    return url


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The endpoint of a moto S3 server on loopback (its own process)."""
    pytest.importorskip("moto.server", reason="moto[server] is not installed (dev extra)")
    port = _free_port()
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1",
                                 "-p", str(port)], stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"moto server did not start: {log.read_text()}") from None
                time.sleep(0.1)
        yield endpoint
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def s3_bucket(s3_server: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh bucket; the AWS variables point every client at the moto server."""
    import boto3

    for name, value in {"AWS_ENDPOINT_URL": s3_server, "AWS_ACCESS_KEY_ID": "test",
                        "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": "us-east-1",
                        "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    bucket = f"rlm-test-{secrets.token_hex(4)}"
    boto3.client("s3", endpoint_url=s3_server).create_bucket(Bucket=bucket)
    return bucket

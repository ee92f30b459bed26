"""Blob backends (`RLM_BLOB_URL`): the data dir, a shared folder, and S3 on a real moto
server. Each is content-addressed, deduplicated, and shared by every data dir that names it."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import pytest
from lcm_fixtures import small_config

from rlm_recursive.errors import ConfigError, InternalError
from rlm_recursive.lcm import Lcm
from rlm_recursive.store import BlobStore, Store, blob_store_for
from rlm_recursive.store.blobs import Blobs

BACKENDS = ("data-dir", "file-url", "s3")


@pytest.fixture(params=BACKENDS)
def blob_url(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
             ) -> str | None:
    """RLM_BLOB_URL for each backend (None: the data dir's own `blobs/`)."""
    if request.param == "data-dir":
        monkeypatch.delenv("RLM_BLOB_URL", raising=False)
        return None
    if request.param == "file-url":
        url = (tmp_path / "shared volume").as_uri()
    else:
        url = f"s3://{request.getfixturevalue('s3_bucket')}/team/blobs"
    monkeypatch.setenv("RLM_BLOB_URL", url)
    return url


def _objects(blobs: Blobs, bucket_url: str | None) -> list[str]:
    """Every object or file the backend holds, by key relative to its root."""
    if isinstance(blobs, BlobStore):
        return sorted(str(p.relative_to(blobs.root)) for p in blobs.root.rglob("*")
                      if p.is_file())
    import boto3

    assert bucket_url is not None
    bucket, prefix = bucket_url.removeprefix("s3://").split("/", 1)
    listed = boto3.client("s3").list_objects_v2(Bucket=bucket).get("Contents", [])
    return sorted(o["Key"].removeprefix(prefix + "/") for o in listed)


def test_put_is_content_addressed_and_deduplicated(tmp_path: Path, blob_url: str | None
                                                   ) -> None:
    blobs = blob_store_for(tmp_path / "data")
    data = "Grüße, 世界\r\nline two\n".encode()
    digest = blobs.put(data)
    assert digest == hashlib.sha256(data).hexdigest()
    assert blobs.text(digest) == data.decode() and blobs.size(digest) == len(data)
    assert blobs.put(data) == digest
    assert _objects(blobs, blob_url) == [f"{digest[:2]}/{digest}"]
    with pytest.raises(InternalError, match="missing"):
        blobs.text("ab" + "0" * 62)
    if blob_url:
        assert blobs.url == blob_url.rstrip("/")
        assert not (tmp_path / "data" / "blobs").exists()  # nothing went to the data dir


def test_racing_writers_of_one_blob_all_succeed_and_store_it_once(
    tmp_path: Path, blob_url: str | None,
) -> None:
    stores = [blob_store_for(tmp_path / f"machine{i}") for i in range(2)]
    data = b"the same report, loaded on two machines at once\n" * 5000
    digests: list[str] = []
    start = threading.Barrier(6)

    def writer(blobs: Blobs) -> None:
        start.wait()
        digests.append(blobs.put(data))

    threads = [threading.Thread(target=writer, args=(stores[i % 2],)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert digests == [hashlib.sha256(data).hexdigest()] * 6
    if blob_url:  # one shared backend: both machines read it, one object holds it
        assert _objects(stores[0], blob_url) == [f"{digests[0][:2]}/{digests[0]}"]
        assert stores[1].text(digests[0]).encode() == data


def test_two_data_dirs_share_documents_and_lcm_files_through_the_blob_url(
    tmp_path: Path, blob_url: str | None,
) -> None:
    if blob_url is None:
        pytest.skip("the data-dir default is one machine's own")
    first, second = Store(tmp_path / "a"), Store(tmp_path / "b")
    try:
        digest = first.blobs.put(b"Ward 4 rota: Ana, Bo.\n")
        assert second.blobs.text(digest) == "Ward 4 rota: Ana, Bo.\n"
        lcm = Lcm(tmp_path / "a", small_config(large_file_tokens=100))  # its own blob store
        cid = lcm.store.create_conversation("ses_shared").conversation_id
        big = "2026-11-25 12:00:01 INFO request served in 12 ms\n" * 400
        file_id = lcm.append(cid, "tool", big).content[1:].split(":", 1)[0]
        assert lcm.files.read(file_id) == big
        record = lcm.store.get_file(file_id)
        assert record is not None
        assert second.blobs.text(record.storage_uri.removeprefix("blob:")) == big
        assert not list((tmp_path / "a" / "blobs").rglob("*"))
        assert not list((tmp_path / "b" / "blobs").rglob("*"))
    finally:
        first.close()
        second.close()


def test_an_s3_object_that_does_not_match_its_hash_is_refused(
    tmp_path: Path, s3_bucket: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import boto3

    monkeypatch.setenv("RLM_BLOB_URL", f"s3://{s3_bucket}")
    digest = blob_store_for(tmp_path).put(b"dose: 5 mg")
    boto3.client("s3").put_object(Bucket=s3_bucket, Key=f"{digest[:2]}/{digest}",
                                  Body=b"dose: 50 mg")
    with pytest.raises(InternalError, match="does not match"):
        blob_store_for(tmp_path).text(digest)  # a fresh store: nothing cached


@pytest.mark.parametrize("url", ["ftp://host.invalid/x", "file://host.invalid/x", "s3://",
                                 "file:relative/path"])
def test_bad_blob_urls_are_refused_with_a_stable_code(tmp_path: Path, url: str) -> None:
    with pytest.raises(ConfigError) as info:
        blob_store_for(tmp_path, {"RLM_BLOB_URL": url})
    assert info.value.code == "invalid_args" and "RLM_BLOB_URL" in str(info.value)


def test_the_s3_put_is_conditional_so_a_writer_that_lost_the_race_changes_nothing(
    tmp_path: Path, s3_bucket: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two writers that both saw "absent" (the race `put` cannot close by looking first):
    the server's If-None-Match refuses the second, which is no error for a content hash."""
    import boto3

    from rlm_recursive.store.s3blobs import S3BlobStore

    s3 = boto3.client("s3")
    # With versioning on, every write that lands is a version: an overwrite would show.
    s3.put_bucket_versioning(Bucket=s3_bucket, VersioningConfiguration={"Status": "Enabled"})
    store = S3BlobStore(s3_bucket, "p")
    monkeypatch.setattr(store, "_exists", lambda key: False)
    digest = store.put(b"first")
    assert store.put(b"first") == digest  # refused by the server, reported as stored
    versions = s3.list_object_versions(Bucket=s3_bucket)["Versions"]
    assert [v["Key"] for v in versions] == [f"p/{digest[:2]}/{digest}"]


def test_an_unreachable_s3_endpoint_is_a_retryable_store_unavailable_within_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import socket
    import time

    from rlm_recursive.errors import StoreUnavailable

    with socket.socket() as sock:  # a loopback port with nothing listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    for name, value in {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
                        "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                        "AWS_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    blobs = blob_store_for(tmp_path, {"RLM_BLOB_URL": "s3://nowhere/x"})
    started = time.monotonic()
    with pytest.raises(StoreUnavailable) as info:
        blobs.put(b"a report")
    assert info.value.retryable and "s3://nowhere/x" in str(info.value)
    assert time.monotonic() - started < 60

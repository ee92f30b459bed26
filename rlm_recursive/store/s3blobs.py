"""Blobs in an S3-compatible object store (obstore): `s3://bucket/prefix/ab/abcdef…`.

Credentials, region and endpoint come from the standard AWS variables (`AWS_ENDPOINT_URL`
for MinIO, Ceph, moto…). A put is atomic by S3's own contract (an object, multipart or not,
appears whole when its upload completes) and conditional (`If-None-Match: *`): the first
writer of a hash wins and later ones upload nothing. Reads check the sha256, since the
bucket is shared and a key is only as good as its bytes.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Any

import obstore
from obstore.exceptions import AlreadyExistsError, BaseError, PreconditionError
from obstore.store import S3Store

from ..errors import InternalError, StoreUnavailable
from ..types import sha256_hex
from .blobs import CachedTexts

__all__ = ["S3BlobStore"]


class S3BlobStore(CachedTexts):
    def __init__(self, bucket: str, prefix: str = "", *, cache_chars: int = 32_000_000) -> None:
        super().__init__(cache_chars)
        self.url = f"s3://{bucket}/{prefix}".rstrip("/")
        endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
        # Plain HTTP only when the endpoint itself says so (a test or in-cluster server).
        client: dict[str, Any] = {"connect_timeout": timedelta(seconds=5)}
        if (endpoint or "").startswith("http://"):
            client["allow_http"] = True
        # Bounded retries: a store that is down is reported within seconds, not minutes.
        self._store = S3Store(bucket, prefix=prefix or None, client_options=client,
                              retry_config={"max_retries": 3,
                                            "retry_timeout": timedelta(seconds=15)})

    @staticmethod
    def key_for(content_hash: str) -> str:
        return f"{content_hash[:2]}/{content_hash}"

    def put(self, data: bytes) -> str:
        content_hash = sha256_hex(data)
        key = self.key_for(content_hash)
        try:
            if self._exists(key):
                return content_hash
            obstore.put(self._store, key, data, mode="create")
        except (AlreadyExistsError, PreconditionError):
            pass  # another writer stored the same bytes first
        except BaseError as exc:
            raise StoreUnavailable(f"cannot write blob {content_hash} to {self.url}: "
                                   f"{exc}") from exc
        return content_hash

    def _exists(self, key: str) -> bool:
        try:
            obstore.head(self._store, key)
        except FileNotFoundError:
            return False
        return True

    def _read(self, content_hash: str) -> bytes:
        try:
            data = bytes(obstore.get(self._store, self.key_for(content_hash)).bytes())
        except FileNotFoundError as exc:
            raise InternalError(f"blob {content_hash} is missing from {self.url}") from exc
        except BaseError as exc:
            raise StoreUnavailable(f"cannot read blob {content_hash} from {self.url}: "
                                   f"{exc}") from exc
        if sha256_hex(data) != content_hash:
            raise InternalError(f"blob {content_hash} in {self.url} does not match its hash")
        return data

    def size(self, content_hash: str) -> int:
        try:
            return int(obstore.head(self._store, self.key_for(content_hash))["size"])
        except FileNotFoundError as exc:
            raise InternalError(f"blob {content_hash} is missing from {self.url}") from exc
        except BaseError as exc:
            raise StoreUnavailable(f"cannot reach {self.url}: {exc}") from exc

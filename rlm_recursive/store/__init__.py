"""The local store: SQLite (WAL, numbered migrations) plus content-addressed blobs."""

from .blobs import Blobs, BlobStore, blob_store_for
from .store import Document, Span, Store, new_id

__all__ = ["BlobStore", "Blobs", "Document", "Span", "Store", "blob_store_for", "new_id"]

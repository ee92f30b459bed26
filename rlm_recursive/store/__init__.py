"""The local store: SQLite (WAL, numbered migrations) plus content-addressed blobs."""

from .blobs import BlobStore
from .store import Document, Span, Store, new_id

__all__ = ["BlobStore", "Document", "Span", "Store", "new_id"]

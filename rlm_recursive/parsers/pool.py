"""Parse many files in worker processes, in order, with a bounded number in flight.

Memory stays bounded: at most `4 × workers` files' bytes are read ahead, and each worker is
replaced after a number of files (pdfium and lxml keep caches). Small loads are parsed in
this process: starting workers costs more than they save.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from ..errors import RlmError, UnsupportedFile
from .model import Parsed
from .ocr import OcrEngine
from .registry import parse_bytes

__all__ = ["default_workers", "parse_many", "parse_one"]

K = TypeVar("K")
_TASKS_PER_WORKER = 1000
_POOL_MIN_FILES = 32
_POOL_MIN_BYTES = 8_000_000
_PARENT_CHECK_S = 1.0


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 4))


def parse_one(data: bytes, name: str, ocr: OcrEngine | None) -> Parsed | UnsupportedFile:
    """One file; every failure of a parser on a file is that file's coded error."""
    try:
        return parse_bytes(data, name, ocr=ocr)
    except UnsupportedFile as exc:
        return exc
    except RlmError:
        raise
    except Exception as exc:  # a library choking on a malformed file: that file only
        return UnsupportedFile(f"{name} is damaged and cannot be parsed "
                               f"({type(exc).__name__}: {exc})", reason="damaged")


def parse_many(
    jobs: Iterable[tuple[K, str, bytes]], *, ocr: OcrEngine | None, workers: int,
    expected_files: int, expected_bytes: int,
) -> Iterator[tuple[K, Parsed | UnsupportedFile]]:
    """`(key, parsed or error)` per `(key, name, data)` job, in the jobs' order."""
    if workers <= 1 or (expected_files < _POOL_MIN_FILES and expected_bytes < _POOL_MIN_BYTES):
        for key, name, data in jobs:
            yield key, parse_one(data, name, ocr)
        return
    pool = _new_pool(workers)
    pending: deque[tuple[K, str, Future[Parsed | UnsupportedFile]]] = deque()
    try:
        for key, name, data in jobs:
            try:
                future = pool.submit(parse_one, data, name, ocr)
            except BrokenProcessPool:  # a worker died on an earlier file: start afresh
                pool.shutdown(wait=False, cancel_futures=True)
                pool = _new_pool(workers)
                future = pool.submit(parse_one, data, name, ocr)
            pending.append((key, name, future))
            while len(pending) >= 4 * workers:
                yield _result(*pending.popleft())
        while pending:
            yield _result(*pending.popleft())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _new_pool(workers: int) -> ProcessPoolExecutor:
    context = multiprocessing.get_context("spawn")  # no fork of a process running threads
    return ProcessPoolExecutor(workers, mp_context=context,
                               max_tasks_per_child=_TASKS_PER_WORKER,
                               initializer=_exit_with_parent, initargs=(os.getpid(),))


def _exit_with_parent(parent: int) -> None:
    """In each parser process: exit when the process that started it is gone. A SIGKILLed
    `worker` (its load is retried elsewhere) would otherwise leave its parsers waiting on a
    queue nobody writes to, for ever."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_CHECK_S)
        os._exit(1)

    threading.Thread(target=watch, name="rlm-parser-parent", daemon=True).start()


def _result(key: K, name: str, future: Future[Parsed | UnsupportedFile]
            ) -> tuple[K, Parsed | UnsupportedFile]:
    try:
        return key, future.result()
    except BrokenProcessPool:
        return key, UnsupportedFile(f"{name}: the parser process crashed on this file or "
                                     "one read with it", reason="damaged")

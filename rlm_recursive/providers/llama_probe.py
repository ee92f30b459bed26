"""Does this machine's llama.cpp build survive a batched decode? Asked once per build.

llama-cpp-python compiles llama.cpp for the CPU it is built on (GGML_NATIVE). Where that CPU
advertises an instruction set the process may not use (AMX inside some sandboxes), every
decode of more than one token ends the process with SIGSEGV: in-process and uncatchable, so
a query would die without a word. A child process tries one batched decode first; if a signal
kills it, the model runs token by token (`n_batch=1`): slower, but alive, and the user is told
how to rebuild. The verdict is cached per build (the library files' size and mtime), so the
child runs once, not once per process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from platformdirs import user_cache_dir

__all__ = ["REBUILD_HINT", "batched_decode_works", "build_key"]

REBUILD_HINT = (
    "rebuild it for a portable CPU target: CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" "
    "pip install --force-reinstall --no-cache-dir --no-deps llama-cpp-python")

_PROBE = """
import sys, llama_cpp
llm = llama_cpp.Llama(model_path=sys.argv[1], n_ctx=128, n_threads=1, verbose=False)
llm.eval(llm.tokenize(b"Pumps one and two run on generator power during an outage."))
"""
_TIMEOUT_S = 300
"""Loading a model on a loaded 2-core machine can take tens of seconds; a hang is 'works'."""

_LOCK = threading.Lock()
_VERDICTS: dict[str, bool] = {}


def build_key(package_dir: Path) -> str:
    """Identity of the installed llama.cpp build: its shared libraries' names, sizes, mtimes."""
    parts = []
    for lib in sorted(package_dir.rglob("*.so*")) + sorted(package_dir.rglob("*.dylib")):
        st = lib.stat()
        parts.append(f"{lib.name}:{st.st_size}:{st.st_mtime_ns}")
    return "|".join(parts) or str(package_dir)


def _cache_file() -> Path:
    return Path(os.environ.get("RLM_CACHE_DIR") or user_cache_dir("rlm-recursive")) / (
        "llama-probe.json")


def _read_cache(path: Path) -> dict[str, bool]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, bool)} if isinstance(
        data, dict) else {}


def _write_cache(path: Path, verdicts: dict[str, bool]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(verdicts))
        os.replace(tmp, path)
    except OSError:  # a read-only home only costs a probe per process
        pass


def batched_decode_works(model_path: Path, package_dir: Path,
                         command: list[str] | None = None) -> bool:
    """True unless a child doing one batched decode was killed by a signal.

    `command` replaces the child's argv (tests pass one that crashes on purpose); any other
    failure of the child (an exception, a timeout) counts as "works", so the real load in this
    process reports its own error instead of being slowed down for nothing.
    """
    key = build_key(package_dir)
    with _LOCK:
        if key in _VERDICTS:
            return _VERDICTS[key]
        cache = _cache_file()
        verdicts = _read_cache(cache)
        if key not in verdicts:
            argv = command or [sys.executable, "-c", _PROBE, str(model_path)]
            try:
                proc = subprocess.run(argv, capture_output=True, timeout=_TIMEOUT_S,
                                      check=False, env={**os.environ, "OMP_NUM_THREADS": "1"})
                verdicts[key] = proc.returncode >= 0
            except subprocess.TimeoutExpired:
                verdicts[key] = True
            _write_cache(cache, verdicts)
        _VERDICTS[key] = verdicts[key]
        return verdicts[key]

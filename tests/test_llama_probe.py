"""The batched-decode probe: a build that crashes on batches gets token-by-token decoding."""

from __future__ import annotations

import json
import sys

import pytest

from rlm_recursive.providers import llama_probe

CRASH = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"]
WORKS = [sys.executable, "-c", "pass"]
RAISES = [sys.executable, "-c", "raise SystemExit('no such model')"]


@pytest.fixture
def build(tmp_path, monkeypatch):
    """A fake llama_cpp package folder with one shared library, and an empty verdict cache."""
    monkeypatch.setenv("RLM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(llama_probe, "_VERDICTS", {})
    pkg = tmp_path / "llama_cpp" / "lib"
    pkg.mkdir(parents=True)
    (pkg / "libllama.so").write_bytes(b"\x7fELF build one")
    return pkg.parent


def test_a_child_killed_by_a_signal_means_batches_crash(build, tmp_path):
    assert llama_probe.batched_decode_works(tmp_path / "m.gguf", build, CRASH) is False


def test_a_child_that_decodes_means_batches_work(build, tmp_path):
    assert llama_probe.batched_decode_works(tmp_path / "m.gguf", build, WORKS) is True


def test_a_child_that_fails_without_a_signal_is_not_a_crash(build, tmp_path):
    """A missing model or a bad file is the real load's error to report, not a reason to slow
    every decode down."""
    assert llama_probe.batched_decode_works(tmp_path / "m.gguf", build, RAISES) is True


def test_the_verdict_is_kept_per_build_across_processes(build, tmp_path, monkeypatch):
    assert llama_probe.batched_decode_works(tmp_path / "m.gguf", build, CRASH) is False
    cached = json.loads((tmp_path / "cache" / "llama-probe.json").read_text())
    assert list(cached.values()) == [False]
    # A new process (empty memory) reads the file and does not run the child again.
    monkeypatch.setattr(llama_probe, "_VERDICTS", {})
    assert llama_probe.batched_decode_works(tmp_path / "m.gguf", build, WORKS) is False
    # A rebuilt library is another build: probed afresh.
    (build / "lib" / "libllama.so").write_bytes(b"\x7fELF build two, portable")
    monkeypatch.setattr(llama_probe, "_VERDICTS", {})
    assert llama_probe.batched_decode_works(tmp_path / "m.gguf", build, WORKS) is True


def test_an_unwritable_cache_costs_a_probe_not_a_failure(build, tmp_path, monkeypatch):
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    monkeypatch.setenv("RLM_CACHE_DIR", str(blocker / "sub"))
    assert llama_probe.batched_decode_works(tmp_path / "m.gguf", build, CRASH) is False


@pytest.mark.slow
def test_the_real_build_keeps_this_process_alive(tmp_path, monkeypatch):
    """Whatever the probe says of the installed build, decoding with the options it implies
    does not kill this process (a wrong verdict would end the test run with SIGSEGV)."""
    llama_cpp = pytest.importorskip("llama_cpp")
    from pathlib import Path

    from rlm_recursive.providers.embedded import _decode_options, default_model_path

    monkeypatch.setenv("RLM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(llama_probe, "_VERDICTS", {})
    path = default_model_path()
    options = _decode_options(llama_cpp, path)
    assert options in ({}, {"n_batch": 1, "n_ubatch": 1})
    llm = llama_cpp.Llama(model_path=str(path), n_ctx=128, n_threads=1, verbose=False, **options)
    tokens = llm.tokenize(b"Pumps one and two run on generator power.")
    llm.eval(tokens)
    assert llm.n_tokens == len(tokens)
    assert Path(llama_cpp.__file__).parent.is_dir()

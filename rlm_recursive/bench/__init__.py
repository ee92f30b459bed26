"""Benchmarks that ship with the package (so `rlm-recursive bench …` can run them)."""

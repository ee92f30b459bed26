"""Answers and their grounding: the asked kind, the answering line, the re-ask, the checks."""

"""Operator tools over the core: diagnostics (`doctor`) and citation checks (`verify`).

Surfaces (CLI, HTTP API, MCP) render what these return; none of them holds the logic.
"""

from .doctor import Check, DoctorReport, run_doctor
from .verify import CitationCheck, load_citations, verify_citations

__all__ = ["Check", "CitationCheck", "DoctorReport", "load_citations", "run_doctor",
           "verify_citations"]

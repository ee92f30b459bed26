"""Session export to a git branch (seed 000 §3.6, §4.8), with secret scanning and redaction."""

from .layout import ExportNames, render_session, stamp_now
from .secrets import Finding, find_secrets, redact_file, scan_file
from .service import ExportPlan, ScanResult, locate_repo, scan_and_redact, write_export

__all__ = [
    "ExportNames",
    "ExportPlan",
    "Finding",
    "ScanResult",
    "find_secrets",
    "locate_repo",
    "redact_file",
    "render_session",
    "scan_and_redact",
    "scan_file",
    "stamp_now",
    "write_export",
]

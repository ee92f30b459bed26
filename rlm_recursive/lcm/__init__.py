"""Lossless context management (seed 002): conversations that are compacted, never forgotten.

Canonical messages are kept forever; older context becomes summaries with explicit lineage;
describe / grep / expand look back. Transport-agnostic: CLI, MCP and the agent loop adapt it.
"""

from .assembler import AssembledContext, ContextAssembler
from .compaction import CompactionEngine, CompactionResult, Summariser, extractive_summary
from .config import LcmConfig
from .files import LargeFileService
from .integrity import IntegrityChecker, IntegrityReport
from .records import PART_TYPES, ContextItem, MessageRecord, SummaryRecord
from .retrieval import RetrievalEngine
from .service import Lcm, lcm_for, open_conversation_store, release_lcm
from .sqlite_store import SqliteConversationStore
from .store import ConversationStore, SqlConversationStore
from .tokens import TokenEstimator

__all__ = [
    "PART_TYPES",
    "AssembledContext",
    "CompactionEngine",
    "CompactionResult",
    "ContextAssembler",
    "ContextItem",
    "ConversationStore",
    "IntegrityChecker",
    "IntegrityReport",
    "LargeFileService",
    "Lcm",
    "LcmConfig",
    "MessageRecord",
    "RetrievalEngine",
    "SqlConversationStore",
    "SqliteConversationStore",
    "Summariser",
    "SummaryRecord",
    "TokenEstimator",
    "extractive_summary",
    "lcm_for",
    "open_conversation_store",
    "release_lcm",
]

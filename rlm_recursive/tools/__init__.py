"""The tool registry and the built-in RLM tools."""

from .artifacts import ARTIFACT_TOOLS
from .chunks import CHUNK_TOOLS
from .docs import DOCS_TOOLS
from .export import EXPORT_TOOLS
from .search import SEARCH_TOOLS
from .session import SESSION_TOOLS
from .spec import Registry, ToolContext, ToolSpec, tool_def

__all__ = ["CORE_TOOLS", "Registry", "ToolContext", "ToolSpec", "core_registry", "tool_def"]

CORE_TOOLS: list[ToolSpec] = [
    *SESSION_TOOLS, *DOCS_TOOLS, *CHUNK_TOOLS, *SEARCH_TOOLS, *ARTIFACT_TOOLS, *EXPORT_TOOLS,
]


def core_registry() -> Registry:
    """A registry holding the store tools (the agent layer adds sub-query and citation tools)."""
    return Registry(CORE_TOOLS)

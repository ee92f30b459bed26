"""Model backends behind one `Provider` protocol."""

from .base import ChatOptions, ChatRequest, ChatResult, Message, Provider, ToolCall, Usage

__all__ = ["ChatOptions", "ChatRequest", "ChatResult", "Message", "Provider", "ToolCall", "Usage"]

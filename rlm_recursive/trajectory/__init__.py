"""The trajectory of a run: what every model call, tool call, REPL step and sub-call did.

`recording()` wraps a run; the hooks (`model_call`, `tool_call`, `repl_step`, `sub_call`)
are one `with` each in the core; `listening()` adds a consumer such as a live view.
"""

from .recorder import (
    Listener,
    Mode,
    Node,
    Recorder,
    active,
    listening,
    model_call,
    progress,
    repl_step,
    sub_call,
    tool_call,
    trajectory_mode,
)
from .run import describe, recording

__all__ = ["Listener", "Mode", "Node", "Recorder", "active", "describe", "listening",
           "model_call", "progress", "recording", "repl_step", "sub_call", "tool_call",
           "trajectory_mode"]

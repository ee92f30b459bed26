"""The REPL strategy's machinery: the pydantic-monty sandbox, the host functions it calls,
executions persisted step by step, and the runtime-mode service."""

from .execution import ReplExecution, StepView
from .service import ExecutionService, execution_tools

__all__ = ["ExecutionService", "ReplExecution", "StepView", "execution_tools"]

"""Shared CLI plumbing: the runtime per invocation, JSON output and error rendering."""

from __future__ import annotations

import asyncio
import json
import math
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import typer
from rich.console import Console

from ..agent.runtime import Runtime
from ..catalog import load_catalog
from ..errors import InternalError, RlmError

__all__ = [
    "CliState",
    "ProviderChoice",
    "ResultError",
    "console",
    "err_console",
    "fail",
    "known_preset",
    "nonnegative_seconds",
    "positive_seconds",
    "print_json",
    "run",
    "serve_until_stopped",
    "tool_output",
]

console = Console()
err_console = Console(stderr=True)


def full_width_console() -> Console:
    """For tables that hold ids: the terminal's width on a terminal; piped or redirected
    (where Rich would assume 80 columns), wide enough that nothing is ever cut."""
    return console if console.is_terminal else Console(width=100_000)
T = TypeVar("T")
ProviderChoice = Literal["auto", "ollama", "openai", "claude", "embedded"]
"""The providers a person can name on the command line."""


@dataclass
class CliState:
    data_dir: str | None = None
    profile: str | None = None

    def runtime(self) -> Runtime:
        return Runtime(self.data_dir, self.profile)


def known_preset(value: str | None) -> str | None:
    """An option callback: the preset must exist in the catalog (a usage error otherwise)."""
    if value is not None:
        try:
            load_catalog().preset(value)
        except RlmError as exc:
            raise typer.BadParameter(exc.message) from None
    return value


def typed_model_choice(provider: str | None, model: str | None, preset: str | None,
                       tiers: Any = None) -> bool:
    """The operator named the model, provider, preset or tiers: their opt-in to a cloud model
    under the default `local` profile (QueryOptions.operator_opt_in)."""
    return bool(model or preset or tiers or provider not in (None, "auto"))


def _seconds(value: str, *, zero_ok: bool) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not a number of seconds") from None
    if not math.isfinite(seconds) or seconds < 0 or (seconds == 0 and not zero_ok):
        least = "zero or more" if zero_ok else "positive"
        raise typer.BadParameter(f"{value!r} is not a {least}, finite number of seconds")
    return seconds


def positive_seconds(value: str) -> float:
    """An option parser: a finite number of seconds above zero (not nan, inf or 0)."""
    return _seconds(value, zero_ok=False)


def nonnegative_seconds(value: str) -> float:
    """An option parser: a finite number of seconds, zero allowed (not nan, inf or < 0)."""
    return _seconds(value, zero_ok=True)


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2, default=str) + "\n")


def fail(error: RlmError, json_out: bool) -> typer.Exit:
    """Render an error the same way everywhere; exit status 1 (2 is Typer's usage error)."""
    if json_out:
        print_json(error.to_dict())
    err_console.print(f"error[{error.code}]: {error.message}", markup=False, highlight=False,
                      soft_wrap=True)
    return typer.Exit(1)


def run(state: CliState, json_out: bool, body: Callable[[Runtime], Awaitable[T]]) -> T:
    """Open the runtime, run the async body, map every failure to a coded exit."""

    async def main() -> T:
        runtime = state.runtime()
        try:
            return await body(runtime)
        finally:
            runtime.close()

    try:
        return asyncio.run(main())
    except RlmError as exc:
        raise fail(exc, json_out) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    except Exception as exc:  # a bug: still a coded error, never a bare traceback
        raise fail(InternalError(f"{type(exc).__name__}: {exc}"), json_out) from exc


def serve_until_stopped(runtime: Runtime, serve: Callable[[], None]) -> None:
    """Run a long-lived server until Ctrl-C (a normal stop); any failure exits with a code."""
    try:
        serve()
    except KeyboardInterrupt:
        pass
    except RlmError as exc:
        raise fail(exc, False) from None
    except Exception as exc:  # a bug: still a coded error, never a bare traceback
        raise fail(InternalError(f"{type(exc).__name__}: {exc}"), False) from exc
    finally:
        runtime.close()


async def tool_output(runtime: Runtime, name: str, args: dict[str, Any], **extras: Any) -> dict:
    """Call a tool; an error result raises so `run` renders it."""
    result = await runtime.call(name, args, runtime.context(**extras))
    if result.is_error:
        meta = result.output["meta"]
        raise ResultError(result.output["error"], meta["error_code"], meta["retryable"])
    return result.output


class ResultError(RlmError):
    """An error a tool returned as its result, raised again with the same code."""

    def __init__(self, message: str, code: str, retryable: bool, **details: Any) -> None:
        super().__init__(message, retryable=retryable, **details)
        self.code = code  # type: ignore[misc]

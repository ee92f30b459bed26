"""The `rlm-recursive` command line."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from typer.core import TyperGroup
from typer.exceptions import TyperException

from .. import __version__
from ..errors import InternalError, InvalidArgs
from . import api, chat, corpus, doctor, documents, export, query, serve, trace, verify
from . import gc as gc_command
from . import worker as worker_command
from .bench import bench_app
from .common import CliState, err_console, fail
from .keys import keys_app
from .lcm import lcm_app
from .skill import skill_app
from .store import store_app

__all__ = ["app", "main"]


class _CodedErrors(TyperGroup):
    """Every way out is a coded `error[CODE]: message` line on stderr, never a traceback.

    Usage errors (a bad option value, an unknown command) keep Click's exit status 2 and are
    `invalid_args`; the commands themselves render their errors with `fail` (status 1).
    """

    def main(
        self, args: Sequence[str] | None = None, prog_name: str | None = None,
        complete_var: str | None = None, standalone_mode: bool = True, **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            status = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except TyperException as exc:  # Click's usage errors and file errors
            ctx = getattr(exc, "ctx", None)
            if type(exc).__name__ == "NoArgsIsHelpError":  # as Typer tells it (not exported)
                sys.exit(exc.exit_code)  # the help text was already printed
            if ctx is not None:
                err_console.print(ctx.get_usage(), markup=False, highlight=False)
                err_console.print(f"Try '{ctx.command_path} --help' for help.", markup=False,
                                  highlight=False)
            err_console.print(f"error[invalid_args]: {exc.format_message()}", markup=False,
                              highlight=False, soft_wrap=True)
            sys.exit(exc.exit_code)
        except ValidationError as exc:  # options checked by a model after parsing
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                                 for e in exc.errors(include_url=False))
            fail(InvalidArgs(f"invalid options: {problems}"), False)
            sys.exit(2)
        except typer.Abort:
            err_console.print("Aborted!", markup=False)
            sys.exit(1)
        except Exception as exc:  # a bug outside any command's own handling
            fail(InternalError(f"{type(exc).__name__}: {exc}"), False)
            sys.exit(1)
        sys.exit(status if isinstance(status, int) else 0)


app = typer.Typer(
    name="rlm-recursive", no_args_is_help=True, add_completion=False, cls=_CodedErrors,
    help="Answer questions over corpora larger than any model window.",
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _global(
    ctx: typer.Context,
    data_dir: Annotated[str | None, typer.Option(
        "--data-dir", envvar="RLM_DATA_DIR", help="Where sessions and blobs live.")] = None,
    profile: Annotated[str | None, typer.Option(
        "--profile", envvar="RLM_PROFILE",
        help="Policy profile: local (the default: local models only), unrestricted (cloud "
        "models allowed) or restricted.")
    ] = None,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True)] = False,
) -> None:
    ctx.obj = CliState(data_dir=data_dir, profile=profile)


corpus.register(app)
documents.register(app)
query.register(app)
serve.register(app)
doctor.register(app)
verify.register(app)
trace.register(app)
app.add_typer(bench_app, name="bench")
export.register(app)
app.add_typer(skill_app, name="skill")
chat.register(app)
app.add_typer(lcm_app, name="lcm")
api.register(app)
app.add_typer(keys_app, name="keys")
app.add_typer(store_app, name="store")
gc_command.register(app)
worker_command.register(app)


def main() -> None:
    app()

"""The `rlm-recursive` command line."""

from __future__ import annotations

from typing import Annotated

import typer

from .. import __version__
from . import api, corpus, export, query, serve
from .bench import bench_app
from .common import CliState
from .keys import keys_app
from .skill import skill_app

__all__ = ["app", "main"]

app = typer.Typer(
    name="rlm-recursive", no_args_is_help=True, add_completion=False,
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
        "--profile", envvar="RLM_PROFILE", help="Policy profile: unrestricted or restricted.")
    ] = None,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True)] = False,
) -> None:
    ctx.obj = CliState(data_dir=data_dir, profile=profile)


corpus.register(app)
query.register(app)
serve.register(app)
app.add_typer(bench_app, name="bench")
export.register(app)
app.add_typer(skill_app, name="skill")
api.register(app)
app.add_typer(keys_app, name="keys")


def main() -> None:
    app()

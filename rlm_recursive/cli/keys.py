"""`keys`: API keys for the HTTP API (create prints the key once; only a hash is kept)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from ..config import resolve_data_dir
from ..errors import RlmError
from ..store import Store
from ..store.tenancy import KeyStore
from .common import CliState, fail, print_json

__all__ = ["keys_app"]

keys_app = typer.Typer(no_args_is_help=True, help="API keys of the HTTP API (`api`).")


class Scope(StrEnum):
    read = "read"
    run = "run"
    admin = "admin"


def _open(ctx: typer.Context) -> tuple[Store, KeyStore]:
    state: CliState = ctx.obj
    store = Store(resolve_data_dir(state.data_dir))
    return store, KeyStore(store.db, store.data_dir)


@keys_app.command("create")
def create(
    ctx: typer.Context,
    tenant: Annotated[str, typer.Option("--tenant", help="The tenant the key acts for.")],
    name: Annotated[str | None, typer.Option("--name", help="A label for the key.")] = None,
    scope: Annotated[list[Scope] | None, typer.Option(
        "--scope", help="read, run, admin (repeatable; default read and run).")] = None,
    json_out: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Create a key; it is printed once and cannot be shown again."""
    store, keys = _open(ctx)
    try:
        scopes = tuple(s.value for s in scope) if scope else ("read", "run")
        key, record = keys.create(tenant, name, scopes)
    except RlmError as exc:
        raise fail(exc, json_out) from None
    finally:
        store.close()
    if json_out:
        print_json({**record.to_dict(), "key": key})
        return
    typer.echo(key)
    typer.echo(f"id {record.id}, tenant {record.tenant_id}, scopes {','.join(record.scopes)}"
               " (the key is shown only now)", err=True)


@keys_app.command("list")
def list_keys(
    ctx: typer.Context,
    tenant: Annotated[str | None, typer.Option("--tenant")] = None,
    json_out: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Every key's id, tenant, scopes and use; never the key."""
    store, keys = _open(ctx)
    try:
        rows = [k.to_dict() for k in keys.list(tenant)]
    finally:
        store.close()
    if json_out:
        print_json(rows)
        return
    for row in rows:
        state = "revoked" if row["revoked_at"] else "active"
        typer.echo(f"{row['id']}  {row['tenant_id']}  {','.join(row['scopes'])}  {state}  "
                   f"{row['name'] or ''}  last used {row['last_used_at'] or 'never'}")


@keys_app.command("revoke")
def revoke(
    ctx: typer.Context,
    key_id: Annotated[str, typer.Argument(help="The key's id (from `keys list`).")],
    json_out: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Revoke a key: the next request with it answers 401."""
    store, keys = _open(ctx)
    try:
        record = keys.revoke(key_id)
    except RlmError as exc:
        raise fail(exc, json_out) from None
    finally:
        store.close()
    if json_out:
        print_json(record.to_dict())
        return
    typer.echo(f"revoked {record.id} at {record.revoked_at}")

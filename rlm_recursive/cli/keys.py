"""`keys`: API keys for the HTTP API (create prints the key once; only a hash is kept)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from ..agent.runtime import Runtime
from ..store.tenancy import KeyStore
from .common import print_json, run

__all__ = ["keys_app"]

keys_app = typer.Typer(no_args_is_help=True, help="API keys of the HTTP API (`api`).")


class Scope(StrEnum):
    read = "read"
    run = "run"
    admin = "admin"


async def _keys(rt: Runtime) -> KeyStore:
    return KeyStore(rt.store.sql, rt.store.data_dir)


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
    scopes = tuple(s.value for s in scope) if scope else ("read", "run")

    async def body(rt: Runtime):
        return (await _keys(rt)).create(tenant, name, scopes)

    key, record = run(ctx.obj, json_out, body)
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
    async def body(rt: Runtime) -> list[dict]:
        return [k.to_dict() for k in (await _keys(rt)).list(tenant)]

    rows = run(ctx.obj, json_out, body)
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
    async def body(rt: Runtime):
        return (await _keys(rt)).revoke(key_id)

    record = run(ctx.obj, json_out, body)
    if json_out:
        print_json(record.to_dict())
        return
    typer.echo(f"revoked {record.id} at {record.revoked_at}")

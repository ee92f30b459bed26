"""The autouse fixtures themselves: a private data dir, and no network beyond loopback."""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path

import pytest


def test_data_dir_and_cwd_are_private(tmp_path: Path, data_dir: Path) -> None:
    assert Path(os.environ["RLM_DATA_DIR"]) == data_dir
    assert data_dir.is_relative_to(tmp_path)
    assert Path.cwd() == tmp_path
    assert "RLM_PROFILE" not in os.environ


@pytest.mark.parametrize("address", [("10.255.255.1", 9), ("8.8.8.8", 53)])
def test_remote_connect_is_refused(address: tuple[str, int]) -> None:
    with (
        socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock,
        pytest.raises(ConnectionRefusedError, match="may not open network"),
    ):
        sock.connect(address)


def test_remote_names_do_not_resolve() -> None:
    with pytest.raises(socket.gaierror, match="may not resolve"):
        socket.getaddrinfo("example.com", 80)
    assert socket.getaddrinfo("127.0.0.1", 80)


async def test_loopback_and_unix_sockets_still_work(tmp_path: Path) -> None:
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(await reader.readline())
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        reader, writer = await asyncio.open_connection("localhost", port)
        writer.write(b"ping\n")
        assert await reader.readline() == b"ping\n"
        writer.close()
    unix = await asyncio.start_unix_server(echo, str(tmp_path / "s.sock"))
    async with unix:
        reader, writer = await asyncio.open_unix_connection(str(tmp_path / "s.sock"))
        writer.write(b"unix\n")
        assert await reader.readline() == b"unix\n"
        writer.close()

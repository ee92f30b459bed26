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


class _Recorder:
    """A TCP server on 127.0.0.1 that counts the connections it accepts."""

    def __init__(self) -> None:
        self.accepted = 0

    async def __call__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        writer.close()


@pytest.mark.parametrize("host", ["gpu-box.invalid", "ollama.example.invalid"])
async def test_remote_connect_is_refused_before_any_traffic(host: str) -> None:
    """A connect to a non-loopback host fails in the guard; a loopback recorder sees nothing."""
    recorder = _Recorder()
    server = await asyncio.start_server(recorder, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        for family in (socket.AF_INET, socket.AF_INET6):
            with (
                socket.socket(family, socket.SOCK_STREAM) as sock,
                pytest.raises(ConnectionRefusedError, match="may not open network"),
            ):
                sock.connect((host, port))
            with (
                socket.socket(family, socket.SOCK_STREAM) as sock,
                pytest.raises(ConnectionRefusedError, match="may not open network"),
            ):
                sock.connect_ex((host, port))
        with pytest.raises(OSError, match="may not"):
            await asyncio.open_connection(host, port)
        # Control: the same recorder does count a loopback connection.
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.close()
        for _ in range(100):
            if recorder.accepted:
                break
            await asyncio.sleep(0.01)
    assert recorder.accepted == 1


def test_remote_names_do_not_resolve() -> None:
    for name in ("example.com", "gpu-box.invalid", b"gpu-box.invalid"):
        with pytest.raises(socket.gaierror, match="may not resolve"):
            socket.getaddrinfo(name, 80)
    assert socket.getaddrinfo("127.0.0.1", 80)
    assert socket.getaddrinfo("localhost", 80)


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

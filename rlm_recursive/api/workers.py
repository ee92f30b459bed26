"""`rlm-recursive api --workers N`: N API processes answering on one port.

One Python process answers about a thousand small requests a second (its event loop and the
GIL are one core). With the shared store (`RLM_DATABASE_URL`), every limit, slot, key and
execution already lives in PostgreSQL, so more processes behind one port are the same
topology as several machines behind a load balancer, on one machine.

The supervisor binds the port, accepts each connection itself and hands it to the workers in
turn (the file descriptor goes over a Unix socket, `SCM_RIGHTS`); each worker runs the same
command as a one-process `api` and serves the connections it is handed. Why not let every
worker accept on the shared socket: whichever process wakes first takes a burst of
connections, so 50 keep-alive clients split 16/34 or 19/31, and the busier process answers
its clients at twice the other's latency (the API's p99 was that process's). Handing out in
turn splits them 25/25. The supervisor stops the workers on SIGINT/SIGTERM and starts again
any that dies (its connections end with it; the others go on).
"""

from __future__ import annotations

import asyncio
import os
import selectors
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import uvicorn

__all__ = ["HANDOFF_FD_ENV", "bind_listener", "run_server", "supervise"]

HANDOFF_FD_ENV = "RLM_API_HANDOFF_FD"
"""Set for a worker: its end of the Unix socket the supervisor hands connections over."""

RESTART_DELAY_S = 1.0
_TICK_S = 0.2


def bind_listener(host: str, port: int) -> socket.socket:
    """The listening socket the supervisor accepts on (IPv6 when `host` is)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    return sock


def run_server(config: uvicorn.Config) -> None:
    """Run uvicorn on `config`'s host and port, or, in one of `api --workers N`'s processes,
    on the connections its supervisor hands it."""
    fd = os.environ.get(HANDOFF_FD_ENV)
    if fd is None:
        uvicorn.Server(config).run()
    else:
        _HandedServer(config, socket.socket(fileno=int(fd))).run()


class _HandedServer(uvicorn.Server):
    """uvicorn with no listening socket of its own: it serves the connections that arrive on
    `channel` (one file descriptor a message) with uvicorn's own HTTP protocol."""

    def __init__(self, config: uvicorn.Config, channel: socket.socket) -> None:
        super().__init__(config)
        self.channel = channel
        self._opening: set[asyncio.Task[object]] = set()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=[])  # the app's lifespan; no listener
        if not self.started:
            return
        self.channel.setblocking(False)
        loop = asyncio.get_running_loop()
        loop.add_reader(self.channel.fileno(), self._take, loop)

    def _protocol(self) -> asyncio.Protocol:
        return self.config.http_protocol_class(  # type: ignore[call-arg]
            config=self.config, server_state=self.server_state,
            app_state=self.lifespan.state)

    def _take(self, loop: asyncio.AbstractEventLoop) -> None:
        while True:
            try:
                data, fds, _, _ = socket.recv_fds(self.channel, 16, 64)
            except (BlockingIOError, InterruptedError):
                return
            if not data and not fds:  # the supervisor is gone: stop as on SIGTERM
                loop.remove_reader(self.channel.fileno())
                self.should_exit = True
                return
            for fd in fds:
                conn = socket.socket(fileno=fd)
                conn.setblocking(False)
                task = loop.create_task(loop.connect_accepted_socket(self._protocol, conn))
                self._opening.add(task)
                task.add_done_callback(self._opening.discard)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        asyncio.get_running_loop().remove_reader(self.channel.fileno())
        await super().shutdown(sockets)


@dataclass
class _Worker:
    process: subprocess.Popen[bytes]
    channel: socket.socket
    """The supervisor's end: a connection is handed over as one message with its fd."""


def _start(command: Sequence[str]) -> _Worker:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    env = {**os.environ, HANDOFF_FD_ENV: str(theirs.fileno())}
    try:
        process = subprocess.Popen(command, env=env, pass_fds=(theirs.fileno(),))
    finally:
        theirs.close()
    ours.setblocking(False)
    return _Worker(process, ours)


class _Dealer:
    """Hands accepted connections to the live workers in turn, skipping any that is gone
    or whose queue is full (it is stuck: the next one takes the connection)."""

    def __init__(self, workers: list[_Worker]) -> None:
        self.workers = workers
        self._next = 0

    def hand(self, conn: socket.socket) -> None:
        try:
            if conn.family in (socket.AF_INET, socket.AF_INET6):
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            count = len(self.workers)
            for step in range(count):
                worker = self.workers[(self._next + step) % count]
                if worker.process.poll() is not None:
                    continue
                try:
                    socket.send_fds(worker.channel, [b"c"], [conn.fileno()])
                except OSError:
                    continue
                self._next = (self._next + step + 1) % count
                return
        finally:
            conn.close()  # the worker holds its own copy; none took it: the client sees it end


def supervise(command: Sequence[str], workers: int, host: str, port: int) -> int:
    """Run `workers` copies of `command` (a one-process server that runs `run_server`) on
    one port until SIGINT or SIGTERM; returns the exit code."""
    listener = bind_listener(host, port)
    listener.setblocking(False)
    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    dealer = _Dealer([_start(command) for _ in range(workers)])
    shown = f"[{host}]" if ":" in host else host
    print(f"rlm-recursive: {workers} API workers on http://{shown}:"
          f"{listener.getsockname()[1]}/v1 (pids "
          f"{', '.join(str(w.process.pid) for w in dealer.workers)})", file=sys.stderr)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    restart_at: dict[int, float] = {}
    try:
        while not stopping:
            if selector.select(timeout=_TICK_S):
                _accept_all(listener, dealer.hand)
            _replace_dead(dealer.workers, command, restart_at, lambda: stopping)
    finally:
        selector.close()
        listener.close()
        _stop_all(dealer.workers)
        for s, handler in previous.items():
            signal.signal(s, handler)
    return 0


def _accept_all(listener: socket.socket, hand: Callable[[socket.socket], None]) -> None:
    while True:
        try:
            conn, _ = listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:  # out of file descriptors and the like: try again next tick
            print(f"rlm-recursive: accepting a connection: {exc}", file=sys.stderr)
            return
        hand(conn)


def _replace_dead(workers: list[_Worker], command: Sequence[str],
                  restart_at: dict[int, float], stopping: Callable[[], bool]) -> None:
    """A dead worker is replaced after a short delay (never in a tight loop), without
    holding up the accept loop meanwhile."""
    now = time.monotonic()
    for i, worker in enumerate(workers):
        if worker.process.poll() is None or stopping():
            continue
        if i not in restart_at:
            print(f"rlm-recursive: API worker {worker.process.pid} exited "
                  f"({worker.process.returncode}); starting another", file=sys.stderr)
            restart_at[i] = now + RESTART_DELAY_S
        elif now >= restart_at[i]:
            del restart_at[i]
            worker.channel.close()
            workers[i] = _start(command)


def _stop_all(workers: list[_Worker]) -> None:
    for worker in workers:
        if worker.process.poll() is None:
            worker.process.send_signal(signal.SIGTERM)
    for worker in workers:
        try:
            worker.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.process.kill()
            worker.process.wait()
        worker.channel.close()

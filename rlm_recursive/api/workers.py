"""`rlm-recursive api --workers N`: N API processes answering on one listening socket.

One Python process answers about a thousand small requests a second (its event loop and the
GIL are one core). With the shared store (`RLM_DATABASE_URL`), every limit, slot, key and
execution already lives in PostgreSQL, so more processes behind one port are the same
topology as several machines behind a load balancer, on one machine. The supervisor binds
the socket once, starts the workers with it (each runs the same command as a one-process
`api`), stops them on SIGINT/SIGTERM, and starts again any that dies.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence

__all__ = ["WORKER_FD_ENV", "bind_listener", "inherited_listener", "supervise"]

WORKER_FD_ENV = "RLM_API_LISTEN_FD"
"""Set for a worker: the listening socket's file descriptor, inherited from the supervisor."""

RESTART_DELAY_S = 1.0


def bind_listener(host: str, port: int) -> socket.socket:
    """The listening socket every worker accepts on (IPv6 when `host` is)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def inherited_listener() -> socket.socket | None:
    """In a worker: the supervisor's socket; else None."""
    fd = os.environ.get(WORKER_FD_ENV)
    return None if fd is None else socket.socket(fileno=int(fd))


def supervise(command: Sequence[str], workers: int, host: str, port: int) -> int:
    """Run `workers` copies of `command` (a one-process server that takes its socket from
    `inherited_listener`) on one socket until SIGINT or SIGTERM; returns the exit code."""
    listener = bind_listener(host, port)
    env = {**os.environ, WORKER_FD_ENV: str(listener.fileno())}
    stopping = False

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(command, env=env, pass_fds=(listener.fileno(),))

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    children = [start() for _ in range(workers)]
    shown = f"[{host}]" if ":" in host else host
    print(f"rlm-recursive: {workers} API workers on http://{shown}:"
          f"{listener.getsockname()[1]}/v1 (pids {', '.join(str(c.pid) for c in children)})",
          file=sys.stderr)
    try:
        while not stopping:
            time.sleep(0.2)
            for i, child in enumerate(children):
                if child.poll() is not None and not stopping:
                    print(f"rlm-recursive: API worker {child.pid} exited ({child.returncode}); "
                          "starting another", file=sys.stderr)
                    time.sleep(RESTART_DELAY_S)
                    children[i] = start()
    finally:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        for child in children:
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        listener.close()
        for s, handler in previous.items():
            signal.signal(s, handler)
    return 0

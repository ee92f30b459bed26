"""A throw-away PostgreSQL cluster on loopback, from Debian's binaries (tests and CI).

`initdb` and `pg_ctl` refuse to run as root, so as root they run as the `postgres` user.
The cluster lives in a temp dir, listens on 127.0.0.1 only (its Unix socket in the same
dir), trusts loopback connections and skips fsync: it holds nothing worth keeping.

As a script, for `.ci/run`:
    python tests/pg_server.py start DIR   # prints the URL; the cluster lives in DIR
    python tests/pg_server.py stop DIR
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["PgServer", "find_bindir", "server_url"]

SUPERUSER = "rlm"
_RUN_AS = "postgres"


def find_bindir() -> Path | None:
    """Where initdb and pg_ctl are: $RLM_PG_BINDIR, Debian's newest version, or PATH."""
    explicit = os.environ.get("RLM_PG_BINDIR")
    candidates = [explicit] if explicit else []
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                         key=lambda p: int(Path(p).parent.name), reverse=True)
    if found := shutil.which("initdb"):
        candidates.append(str(Path(found).parent))
    for candidate in candidates:
        if (Path(candidate) / "initdb").exists() and (Path(candidate) / "pg_ctl").exists():
            return Path(candidate)
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PgServer:
    """One cluster in `root` (created if None); `start()` returns its superuser URL."""

    def __init__(self, root: Path | None = None, bindir: Path | None = None) -> None:
        self.bindir = bindir or find_bindir()
        if self.bindir is None:
            raise FileNotFoundError("no PostgreSQL server binaries (initdb, pg_ctl) found")
        self.root = root or Path(tempfile.mkdtemp(prefix="rlm-pg-"))
        self.data = self.root / "data"
        self.port_file = self.root / "port"

    @property
    def url(self) -> str:
        port = int(self.port_file.read_text())
        return f"postgresql://{SUPERUSER}@127.0.0.1:{port}/postgres"

    def _run(self, *args: str) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", _RUN_AS, "--", *command]
        # cwd: the postgres user may not be able to enter the caller's (CI's clone, 0700).
        done = subprocess.run(command, capture_output=True, text=True, check=False,
                              stdin=subprocess.DEVNULL, cwd=self.root)
        if done.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stderr.strip()}"
                               f"\n{tail}")

    def start(self) -> str:
        self.root.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.root, _RUN_AS, _RUN_AS)
        port = _free_port()
        self.port_file.write_text(str(port))
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust",
                  "--encoding=UTF8", "--locale=C", "--no-sync")
        options = (f"-h 127.0.0.1 -p {port} -k {self.root} -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"),
                  "-o", options, "-w", "-t", "60", "start")
        return self.url

    def stop(self) -> None:
        """Stop the server (fast) and delete the cluster; safe to call twice."""
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


@contextmanager
def server_url(given: str | None = None) -> Iterator[str]:
    """`given` (a benchmark's --database-url) as it is, else a throw-away server's URL."""
    if given is not None:
        yield given
        return
    server = PgServer()
    try:
        yield server.start()
    finally:
        server.stop()


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] not in ("start", "stop"):
        print(__doc__, file=sys.stderr)
        return 2
    server = PgServer(Path(argv[2]))
    if argv[1] == "start":
        print(server.start())
    else:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

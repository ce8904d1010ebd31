"""A real PostgreSQL server for the store tests: initdb + pg_ctl in a temp dir, on a free loopback
port, started once per test session; every test gets a fresh database in it.

The server comes from the Debian package (`apt-get install postgresql`, as `.ci/run` does); initdb
refuses to run as root, so as root the server runs as the `postgres` user the package creates.
GPU_ADVISOR_TEST_PG_URL=postgresql://... uses an existing server instead. A missing PostgreSQL
fails the tests that need it, with the command that installs it; they are never skipped.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

INSTALL_HINT = "install it with `apt-get install -y postgresql` (what .ci/run does)"


def _bindir() -> Path:
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(candidate) / "initdb").exists():
            return Path(candidate)
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    raise PostgresMissing("PostgreSQL is not installed (no initdb under /usr/lib/postgresql/*/bin or on PATH): "
                          f"{INSTALL_HINT}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgServer:
    base_url: str  # .../postgres
    _names = itertools.count(1)

    def fresh_database(self) -> str:
        """A URL whose tables live in a new, empty schema (`search_path` in the URL's libpq options):
        as isolated as a new database for the store, at a fraction of the disk (a CREATE DATABASE
        copies the 7.5 MB template, and deleting hundreds of them made the session's end slow)."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.base_url, autocommit=True) as conn:
            conn.execute(f"drop schema if exists {name} cascade")
            conn.execute(f"create schema {name}")
        separator = "&" if "?" in self.base_url else "?"
        return f"{self.base_url}{separator}options=-csearch_path%3D{name}"


def _as_server_user(args: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return args
    return ["runuser", "-u", "postgres", "--", *args]


class PostgresMissing(RuntimeError):
    """No PostgreSQL server binaries, or the server did not start (the message says which)."""


@contextlib.contextmanager
def running_postgres(*, durable: bool = False) -> Iterator[PgServer]:
    """A throwaway PostgreSQL server on a free loopback port (also used by the benchmarks, with
    `durable`: fsync on, as a real server, so timings are not flattered)."""
    external = os.environ.get("GPU_ADVISOR_TEST_PG_URL")
    if external:
        yield PgServer(external)
        return
    bindir = _bindir()
    root = Path(tempfile.mkdtemp(prefix="gpu-advisor-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    data, port = root / "data", _free_port()
    try:
        subprocess.run(_as_server_user([str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
                                        "--no-sync", "-E", "UTF8"]), check=True, capture_output=True, timeout=120)
        # fsync off for tests: their data is thrown away; durability is not what they check
        options = f"-h 127.0.0.1 -p {port} -k {root} {'' if durable else '-F '}-c max_connections=200"
        subprocess.run(_as_server_user([str(bindir / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-o",
                                        options, "-w", "-t", "60", "start"]),
                       check=True, capture_output=True, timeout=90)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        log = (root / "log").read_text() if (root / "log").exists() else ""
        stderr = getattr(exc, "stderr", b"") or b""
        shutil.rmtree(root, ignore_errors=True)
        raise PostgresMissing(f"PostgreSQL did not start ({exc}): {stderr.decode(errors='replace')[-800:]} "
                              f"{log[-800:]}") from None
    try:
        yield PgServer(f"postgresql://postgres@127.0.0.1:{port}/postgres")
    finally:
        subprocess.run(_as_server_user([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-t", "20",
                                        "stop"]), capture_output=True, timeout=60)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    try:
        with running_postgres() as server:
            yield server
    except PostgresMissing as exc:
        pytest.fail(str(exc))


@pytest.fixture(params=["sqlite", "postgresql"])
def store_target(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """Where a test's store lives: a SQLite file, or a fresh database on the test PostgreSQL server.
    Tests that take this run once against each backend."""
    if request.param == "sqlite":
        return tmp_path / "t.db"
    server: PgServer = request.getfixturevalue("pg_server")
    return server.fresh_database()

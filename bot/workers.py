"""`gpu-advisor serve --workers N`: N serving processes sharing one listening socket (HTTP mode) or
each holding its own Socket Mode connection (Slack spreads events over an app's connections), and
one store (`bot.store`), so a retry, a thread follow-up or a button lands correctly whichever
process gets it: claims, thread versions and outbox leases are in the database, not in memory.

Why processes: a turn is CPU-bound Python (parsing, planning, rendering), so one process uses one
core whatever its thread count. Why a pre-forked shared socket rather than SO_REUSEPORT: port 0
works (the supervisor binds once and knows the port), and a worker that dies does not take its
queued connections with it (they stay in the one accept queue for the others).

The supervisor binds, spawns the workers (`python -m bot serve --worker-fd FD`), waits until each
says it is ready, prints the one "listening on" line, then restarts any worker that exits on its
own. SIGTERM/SIGINT stop every worker (each retires from the journal, so nothing is left claimed).
Workers ask the kernel for SIGKILL when the supervisor dies, so a kill -9 of the supervisor does
not leave orphans serving.
"""

from __future__ import annotations

import ctypes
import logging
import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence

log = logging.getLogger(__name__)
READY_TIMEOUT_S = 120.0
PR_SET_PDEATHSIG = 1
SUPERVISOR_PID_ENV = "GPU_ADVISOR_SUPERVISOR_PID"  # set for each worker: its supervisor's pid


def supervisor_pid() -> int | None:
    value = os.environ.get(SUPERVISOR_PID_ENV, "")
    return int(value) if value.isdigit() else None


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def die_with_parent(parent: int | None = None) -> None:
    """Linux: SIGKILL this process when its parent dies (elsewhere: a no-op). `parent`: the pid the
    parent had when it started us; if we are already someone else's child, it died: exit now."""
    parent = parent if parent is not None else os.getppid()
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def signal_ready(fd: int | None) -> None:
    """Tell the supervisor this worker serves (a restarted worker's pipe is already closed: fine)."""
    if fd is None:
        return
    try:
        os.write(fd, b"1")
    except OSError:
        pass
    finally:
        os.close(fd)


class Supervisor:
    def __init__(self, workers: int, *, http: bool, host: str = "127.0.0.1", port: int = 3000,
                 argv: Sequence[str] = ()) -> None:
        self.workers = workers
        self.http = http
        self.argv = list(argv)  # extra arguments for each worker
        self.sock: socket.socket | None = None
        if http:
            self.sock = socket.create_server((host, port), backlog=1024)
            self.sock.set_inheritable(True)
        self.children: list[subprocess.Popen[bytes] | None] = [None] * workers
        self._stopping = False

    @property
    def url(self) -> str:
        assert self.sock is not None
        host, port = self.sock.getsockname()[:2]
        return f"http://{host}:{port}"

    def _spawn(self, index: int) -> tuple[subprocess.Popen[bytes], int]:
        read_fd, write_fd = os.pipe()
        os.set_inheritable(write_fd, True)
        args = [sys.executable, "-m", "bot", "serve", "--worker-index", str(index), "--ready-fd", str(write_fd),
                *self.argv]
        pass_fds = [write_fd]
        if self.sock is not None:
            args += ["--worker-fd", str(self.sock.fileno())]
            pass_fds.append(self.sock.fileno())
        env = dict(os.environ, **{SUPERVISOR_PID_ENV: str(os.getpid())})
        child = subprocess.Popen(args, pass_fds=pass_fds, stdin=subprocess.DEVNULL, env=env)
        os.close(write_fd)
        self.children[index] = child
        return child, read_fd

    def start(self) -> None:
        """Spawn every worker and wait until each is serving (raises RuntimeError if one fails)."""
        pending = dict(self._spawn(i)[::-1] for i in range(self.workers))  # read fd -> child
        deadline = time.monotonic() + READY_TIMEOUT_S
        while pending:
            ready, _, _ = select.select(list(pending), [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                self.stop()
                raise RuntimeError("workers did not start in time")
            for fd in ready:
                ok = os.read(fd, 1) == b"1"
                os.close(fd)
                child = pending.pop(fd)
                if not ok:
                    code = child.wait()
                    self.stop()
                    raise RuntimeError(f"a worker exited while starting (exit code {code})")

    def run_forever(self) -> None:
        """Restart workers that exit on their own until `stop()` (a signal handler calls it)."""
        while not self._stopping:
            for index, child in enumerate(self.children):
                if child is not None and child.poll() is not None and not self._stopping:
                    log.warning("worker %d (pid %d) exited with %s; starting another", index, child.pid,
                                child.returncode)
                    _, read_fd = self._spawn(index)
                    os.close(read_fd)
            time.sleep(0.2)

    def stop(self) -> None:
        self._stopping = True
        for child in self.children:
            if child is not None and child.poll() is None:
                child.terminate()
        for child in self.children:
            if child is None:
                continue
            try:
                child.wait(timeout=15)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        if self.sock is not None:
            self.sock.close()

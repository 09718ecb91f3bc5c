"""Which process owns a live world: recorded beside the world file, so that worlds left behind by a
killed process (SIGKILL, a crash, a power cut: nothing ran its clean-up) can be told from worlds in
use without guessing from their age.

A record names the process by pid *and* start time (pids are reused) and the machine (a store may be
on a shared disk); a world is an orphan when its owner on this machine is no longer running.
"""

from __future__ import annotations

import json
import os
import socket
from dataclasses import asdict, dataclass
from pathlib import Path

import psutil

SUFFIX = ".owner"
_START_TOLERANCE_S = 1.0  # create_time is derived from boot time and clock ticks: allow rounding


@dataclass(frozen=True)
class Owner:
    pid: int
    started: float  # the process's start time (seconds since the epoch)
    machine: str

    def alive(self) -> bool:
        """Whether the owning process still runs (True when that cannot be checked: never guess dead)."""
        if self.machine != socket.gethostname():
            return True
        try:
            proc = psutil.Process(self.pid)
            if proc.status() == psutil.STATUS_ZOMBIE:  # killed, not yet reaped by its parent
                return False
            return abs(proc.create_time() - self.started) < _START_TOLERANCE_S
        except psutil.NoSuchProcess:
            return False
        except psutil.Error:
            return True

    def describe(self) -> str:
        return f"pid {self.pid}" + ("" if self.machine == socket.gethostname() else f" on {self.machine}")


_current: Owner | None = None


def current() -> Owner:
    """This process (computed once per process; a forked child computes its own)."""
    global _current
    if _current is None or _current.pid != os.getpid():
        pid = os.getpid()
        _current = Owner(pid=pid, started=psutil.Process(pid).create_time(), machine=socket.gethostname())
    return _current


def write(path: Path, owner: Owner) -> None:
    path.write_text(json.dumps(asdict(owner)))


def read(path: Path) -> Owner | None:
    """The record at ``path``; None if there is none or it cannot be read (then nothing is judged)."""
    try:
        data = json.loads(path.read_text())
        return Owner(pid=int(data["pid"]), started=float(data["started"]), machine=str(data["machine"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


__all__ = ["SUFFIX", "Owner", "current", "read", "write"]

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
_TICK_S = 0.05  # the start since boot is read in clock ticks (1/100 s): the same process reads the same


@dataclass(frozen=True)
class Owner:
    pid: int
    started: float  # the process's start time (seconds since the epoch)
    machine: str
    # Its start in seconds since boot: what tells it from a later process with the same pid. The
    # wall-clock start (``started``) moves when the machine's clock is set (a VM's clock is stepped),
    # and a live owner then looked dead, its world an orphan to be removed.
    since_boot: float | None = None

    def alive(self) -> bool:
        """Whether the owning process still runs (True when that cannot be checked: never guess dead)."""
        if self.machine != socket.gethostname():
            return True
        try:
            proc = psutil.Process(self.pid)
            if proc.status() == psutil.STATUS_ZOMBIE:  # killed, not yet reaped by its parent
                return False
            if self.since_boot is not None:
                now = _since_boot(self.pid)
                return now is None or abs(now - self.since_boot) < _TICK_S
            return abs(proc.create_time() - self.started) < _START_TOLERANCE_S  # a record from before since_boot
        except psutil.NoSuchProcess:
            return False
        except psutil.Error:
            return True

    def describe(self) -> str:
        return f"pid {self.pid}" + ("" if self.machine == socket.gethostname() else f" on {self.machine}")


def _since_boot(pid: int) -> float | None:
    """When the process started, in seconds since boot (Linux: /proc/<pid>/stat's starttime, which no
    clock setting moves); None where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()  # after the command name, which may hold spaces
        return int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


_current: Owner | None = None


def current() -> Owner:
    """This process (computed once per process; a forked child computes its own)."""
    global _current
    if _current is None or _current.pid != os.getpid():
        pid = os.getpid()
        _current = Owner(pid=pid, started=psutil.Process(pid).create_time(), machine=socket.gethostname(), since_boot=_since_boot(pid))
    return _current


def write(path: Path, owner: Owner) -> None:
    path.write_text(json.dumps(asdict(owner)))


def read(path: Path) -> Owner | None:
    """The record at ``path``; None if there is none or it cannot be read (then nothing is judged)."""
    try:
        data = json.loads(path.read_text())
        since_boot = data.get("since_boot")
        return Owner(pid=int(data["pid"]), started=float(data["started"]), machine=str(data["machine"]),
                     since_boot=float(since_boot) if since_boot is not None else None)
    except (OSError, ValueError, KeyError, TypeError):
        return None


__all__ = ["SUFFIX", "Owner", "current", "read", "write"]

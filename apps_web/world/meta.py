"""World metadata stored in the world's own database (seed, scale, clock, company)."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

META_TABLE = "sandbox_meta"


@dataclass(frozen=True)
class WorldMeta:
    seed: int
    scale: int
    clock: datetime
    version: str
    company: str = ""
    domain: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    def as_rows(self) -> list[tuple[str, str]]:
        rows = {
            "seed": str(self.seed),
            "scale": str(self.scale),
            "clock": self.clock.isoformat(),
            "version": self.version,
            "company": self.company,
            "domain": self.domain,
            **self.extra,
        }
        return sorted(rows.items())


def write_meta(conn: sqlite3.Connection, meta: WorldMeta) -> None:
    conn.execute(f"CREATE TABLE IF NOT EXISTS {META_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.executemany(f"INSERT OR REPLACE INTO {META_TABLE} (key, value) VALUES (?, ?)", meta.as_rows())


def read_meta(source: Path | sqlite3.Connection) -> WorldMeta:
    conn = source if isinstance(source, sqlite3.Connection) else sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        rows = dict(conn.execute(f"SELECT key, value FROM {META_TABLE}").fetchall())
    finally:
        if conn is not source:
            conn.close()
    known = {"seed", "scale", "clock", "version", "company", "domain"}
    return WorldMeta(
        seed=int(rows["seed"]),
        scale=int(rows["scale"]),
        clock=datetime.fromisoformat(rows["clock"]),
        version=rows["version"],
        company=rows.get("company", ""),
        domain=rows.get("domain", ""),
        extra={k: v for k, v in rows.items() if k not in known},
    )


def read_clock(conn: sqlite3.Connection) -> datetime:
    """The world's clock as stored now (the environment advances it between steps)."""
    row = conn.execute(f"SELECT value FROM {META_TABLE} WHERE key = 'clock'").fetchone()
    return datetime.fromisoformat(row[0])


def write_clock(conn: sqlite3.Connection, now: datetime) -> None:
    """Move the world clock (the caller commits); every later request of the world sees it."""
    conn.execute(f"UPDATE {META_TABLE} SET value = ? WHERE key = 'clock'", (now.replace(microsecond=0).isoformat(),))


# Bytes 24-27 of a SQLite file: the "file change counter", bumped by every committed write in
# rollback-journal mode (worlds never use WAL). Reading it tells whether the clock may have moved
# for the price of one small read, instead of a query per request.
_COUNTER = slice(24, 28)


def change_counter(path: Path | str) -> bytes:
    fd = os.open(path, os.O_RDONLY)  # unbuffered: a Python file object costs several times more
    try:
        return os.pread(fd, 4, _COUNTER.start)
    finally:
        os.close(fd)

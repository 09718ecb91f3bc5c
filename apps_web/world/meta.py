"""World metadata stored in the world's own database (seed, scale, clock, company)."""

from __future__ import annotations

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

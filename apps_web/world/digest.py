"""A world's digest: a hash of what the world holds (its schema and every row), not of the code that
built it.

The generator's version (``build.generator_version``) hashes the source of every file that may
define world data, so a comment or a faster function in one of them builds new templates. Whether
those templates hold anything new is what the digest says: two worlds with the same digest have the
same tables, indexes, triggers and rows, in the same row order. A decision made in one world (a
corpus record's proof) stands for the other.

The world's own version stamp is left out (it names the code, which is the point), and so is the
digest's own row (``template_digest``: a template stores its digest, and every world forked from
it carries the digest of the world it started as).
"""

from __future__ import annotations

import hashlib
import sqlite3
from contextlib import closing
from pathlib import Path

from .meta import META_TABLE

UNSTAMPED = ("version", "template_digest")  # the meta rows a digest leaves out
DIGEST_KEY = "template_digest"  # the meta row of a template (and the worlds forked from it): its digest as built


def world_digest(source: Path | str | sqlite3.Connection) -> str:
    """16 hex digits over the world's schema and rows (tables by name, rows by rowid)."""
    if isinstance(source, sqlite3.Connection):
        return _digest(source)
    with closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True)) as conn:
        return _digest(conn)


def _digest(conn: sqlite3.Connection) -> str:
    h = hashlib.sha256()
    schema = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name").fetchall()
    for row in schema:
        h.update(repr(row).encode())
    for kind, name, _table, sql in schema:
        if kind != "table":
            continue  # sqlite_sequence is read too: the next ids a world hands out are part of it
        order = "ROWID" if "WITHOUT ROWID" not in sql.upper() else ", ".join(
            str(i + 1) for i in range(len(conn.execute(f'PRAGMA table_info("{name}")').fetchall())))
        h.update(b"\x00table\x00" + name.encode())
        rows = conn.execute(f'SELECT * FROM "{name}" ORDER BY {order}')
        if name == META_TABLE:
            rows = (r for r in rows if r[0] not in UNSTAMPED)
        for row in rows:
            h.update(repr(row).encode())
    return h.hexdigest()[:16]


__all__ = ["DIGEST_KEY", "world_digest"]

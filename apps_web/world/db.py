"""Connections and engines for world databases, tuned for ephemeral worlds."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import Engine, event
from sqlalchemy.pool import NullPool, QueuePool
from sqlmodel import Session, create_engine

# Worlds are disposable copies of a template, so durability is traded for speed: no fsync.
PRAGMAS = (
    "PRAGMA foreign_keys=ON",
    "PRAGMA synchronous=OFF",
    "PRAGMA busy_timeout=5000",
    "PRAGMA temp_store=MEMORY",
    "PRAGMA cache_size=-8000",
)


def _apply_pragmas(conn: sqlite3.Connection) -> None:
    for pragma in PRAGMAS:
        conn.execute(pragma)


def connect(path: Path | str, *, readonly: bool = False) -> sqlite3.Connection:
    """A plain sqlite3 connection to a world file (verifiers and the store use these)."""
    if readonly:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout=5000")
    else:
        conn = sqlite3.connect(str(path), check_same_thread=False)
        _apply_pragmas(conn)
    return conn


# Connections an app host keeps open per world: a new connection reads the whole schema (450-odd
# tables with every app) on its first statement, several milliseconds of every page.
POOL_SIZE = 4


def engine_for(path: Path | str, *, pooled: bool = False) -> Engine:
    """A SQLAlchemy engine on one world file.

    By default (NullPool) a connection opens per session, so a dropped or replaced world file is never
    held open. ``pooled`` keeps up to POOL_SIZE idle connections for the app host, whose world cache
    disposes the engine when the world is replaced, dropped or evicted (``apps_web.worlds``).
    """
    if pooled:
        engine = create_engine(f"sqlite:///{path}", connect_args={"check_same_thread": False}, poolclass=QueuePool,
                               pool_size=POOL_SIZE, max_overflow=16, pool_timeout=30)
    else:
        engine = create_engine(f"sqlite:///{path}", connect_args={"check_same_thread": False}, poolclass=NullPool)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record):  # noqa: ANN001
        _apply_pragmas(dbapi_conn)

    return engine


def session_for(path: Path | str) -> Session:
    return Session(engine_for(path))

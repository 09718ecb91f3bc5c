"""Row-level change log kept by SQLite triggers, so 'what changed since step N' costs one query.

Every write to an app table appends (table, key, op, old row, new row) to ``sandbox_changelog``.
Folding the entries after a sequence number gives the same WorldDiff as comparing two files.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from .diff import IGNORED_TABLES, RowUpdate, TableDiff, WorldDiff, _q, finish, table_columns

CHANGELOG = "sandbox_changelog"


def _row_json(alias: str, columns: list[str], types: dict[str, str]) -> str:
    parts = []
    for c in columns:
        ref = f"{alias}.{_q(c)}"
        # JSON cannot hold BLOBs; they are logged as hex text.
        value = f"hex({ref})" if types.get(c, "").upper() == "BLOB" else ref
        parts.append(f"'{c}', {value}")
    return f"json_object({', '.join(parts)})"


def _key_expr(alias: str, key: list[str]) -> str:
    if len(key) == 1:
        return f"{alias}.{_q(key[0])}"
    return "json_array(" + ", ".join(f"{alias}.{_q(c)}" for c in key) + ")"


def install(conn: sqlite3.Connection) -> None:
    """Create the change log and a trigger per table for insert, update and delete."""
    conn.execute(
        f"CREATE TABLE IF NOT EXISTS {CHANGELOG} (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
        "tbl TEXT NOT NULL, key, op TEXT NOT NULL, old TEXT, new TEXT)"
    )
    tables = [
        r[0]
        for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
        if r[0] not in IGNORED_TABLES and not r[0].startswith("sqlite_") and r[0] != "sandbox_meta"
    ]
    for table in tables:
        cols, pk = table_columns(conn, table)
        info = conn.execute(f"PRAGMA table_info({_q(table)})").fetchall()
        types = {r[1]: r[2] for r in info}
        key = pk or ["rowid"]
        t, lit = _q(table), table.replace("'", "''")
        new_row, old_row = _row_json("NEW", cols, types), _row_json("OLD", cols, types)
        new_key, old_key = _key_expr("NEW", key), _key_expr("OLD", key)
        same_key = " AND ".join(f"OLD.{_q(c)} IS NEW.{_q(c)}" for c in key)
        conn.executescript(
            f"""
            DROP TRIGGER IF EXISTS "sbx_i_{lit}";
            DROP TRIGGER IF EXISTS "sbx_u_{lit}";
            DROP TRIGGER IF EXISTS "sbx_d_{lit}";
            CREATE TRIGGER "sbx_i_{lit}" AFTER INSERT ON {t} BEGIN
              INSERT INTO {CHANGELOG} (tbl, key, op, old, new) VALUES ('{lit}', {new_key}, 'I', NULL, {new_row});
            END;
            CREATE TRIGGER "sbx_d_{lit}" AFTER DELETE ON {t} BEGIN
              INSERT INTO {CHANGELOG} (tbl, key, op, old, new) VALUES ('{lit}', {old_key}, 'D', {old_row}, NULL);
            END;
            CREATE TRIGGER "sbx_u_{lit}" AFTER UPDATE ON {t} BEGIN
              INSERT INTO {CHANGELOG} (tbl, key, op, old, new)
                SELECT '{lit}', {new_key}, 'U', {old_row}, {new_row} WHERE {same_key};
              INSERT INTO {CHANGELOG} (tbl, key, op, old, new)
                SELECT '{lit}', {old_key}, 'D', {old_row}, NULL WHERE NOT ({same_key});
              INSERT INTO {CHANGELOG} (tbl, key, op, old, new)
                SELECT '{lit}', {new_key}, 'I', NULL, {new_row} WHERE NOT ({same_key});
            END;
            """
        )


def last_seq(conn: sqlite3.Connection) -> int:
    row = conn.execute(f"SELECT COALESCE(MAX(seq), 0) FROM {CHANGELOG}").fetchone()
    return int(row[0])


def changes_since(conn: sqlite3.Connection, seq: int = 0) -> tuple[WorldDiff, int]:
    """Fold the log entries after ``seq`` into a WorldDiff; also return the newest sequence number."""
    first: dict[tuple[str, Any], dict | None] = {}
    last: dict[tuple[str, Any], dict | None] = {}
    newest = seq
    rows = conn.execute(f"SELECT seq, tbl, key, op, old, new FROM {CHANGELOG} WHERE seq > ? ORDER BY seq", (seq,))
    for s, tbl, key, _op, old, new in rows:
        newest = s
        k = (tbl, json.dumps(key) if not isinstance(key, str) or not key.startswith("[") else key)
        if k not in first:
            first[k] = json.loads(old) if old else None
        last[k] = json.loads(new) if new else None
    key_columns: dict[str, list[str]] = {}
    tables: dict[str, TableDiff] = {}
    for (tbl, _k), before in first.items():
        after = last[(tbl, _k)]
        if tbl not in key_columns:
            cols, pk = table_columns(conn, tbl)
            key_columns[tbl] = pk or cols
        t = tables.setdefault(tbl, TableDiff(key_columns=key_columns[tbl]))
        if before is None and after is not None:
            t.added.append(after)
        elif after is None and before is not None:
            t.removed.append(before)
        elif before is not None and after is not None:
            fields = [c for c in after if before.get(c) != after.get(c)]
            if fields:
                t.updated.append(RowUpdate(key=t.key_of(after), before=before, after=after, fields=fields))
    return finish(tables), newest

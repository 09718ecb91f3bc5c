"""Parameters of a drafted task that find, in every seed's world, a record equivalent to the one the
demonstration touched, and the persona who may act on it.

"Equivalent" is read from the recording's world (the template world of its seed, opened read-only):

- the changed fields had the same values before: a field with few distinct values in the table (a
  picklist, a flag) keeps its value (``stage = 'Prospecting'``), an open one only has to differ from
  the value the demonstration wrote (``amount != 51234``), an empty one stays empty;
- the related lists that were empty stay empty (no line items, no quote...), since some edits are only
  possible then (an amount that rolls up from products cannot be typed); relaxed, most selective first,
  when the recording's world would have fewer than ``MIN_ROWS`` such records;
- its name is unique in the table, so an instruction naming it names one record;
- when the demonstration's user owned the record, the persona becomes the record's owner (a user of the
  same role), so every seed signs in someone who may edit it; otherwise a user of the same role.

The query is kept only if it finds the demonstration's own record in its world; otherwise the draft
falls back to the record's id, and the header tells the author to generalize it.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CATEGORICAL_MAX = 25  # distinct values at most for a field to count as a picklist or flag
MIN_ROWS = 5  # equivalent records wanted in the recording's world (one is picked per seed)


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def literal(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


@dataclass
class World:
    """The recording's world, read-only: the columns, references and users a generalization needs."""

    conn: sqlite3.Connection
    _columns: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def open(cls, path: Path | str) -> World:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        conn.row_factory = sqlite3.Row
        return cls(conn)

    def close(self) -> None:
        self.conn.close()

    def columns(self, table: str) -> list[str]:
        if table not in self._columns:
            self._columns[table] = [r["name"] for r in self.conn.execute(f"pragma table_info({_q(table)})")]
        return self._columns[table]

    def references(self, table: str) -> dict[str, str]:
        """column -> the table it references."""
        return {r["from"]: r["table"] for r in self.conn.execute(f"pragma foreign_key_list({_q(table)})")}

    def children(self, table: str) -> list[tuple[str, str]]:
        """(child table, its column) for every foreign key that references ``table``."""
        rows = self.conn.execute(
            "select m.name as child, p.\"from\" as col from sqlite_master m join pragma_foreign_key_list(m.name) p "
            "where m.type = 'table' and p.\"table\" = ? order by m.name, p.\"from\"", (table,))
        return [(r["child"], r["col"]) for r in rows if r["child"] != table]

    def distinct(self, table: str, column: str) -> int:
        return self.conn.execute(f"select count(distinct {_q(column)}) from {_q(table)}").fetchone()[0]

    def user(self, username: str | None) -> dict[str, Any] | None:
        if not username:
            return None
        row = self.conn.execute("select * from identity_user where username = ?", (username,)).fetchone()
        return dict(row) if row else None

    def count(self, sql: str) -> int:
        return self.conn.execute(f"select count(*) from ({sql})").fetchone()[0]

    def ids(self, sql: str) -> set[int]:
        return {r[0] for r in self.conn.execute(sql)}


@dataclass
class Equivalent:
    sql: str  # the parameter's query (columns: id, the label, owner)
    conditions: list[str]  # what makes a record equivalent (for the wrong-record parameter too)
    owner: bool  # the query selects the record's owner's username as ``owner`` (the persona)


def equivalent(world: World, table: str, key: int, before: dict[str, Any], changed: dict[str, Any], label: str | None,
               persona: dict[str, Any] | None) -> Equivalent | None:
    """A query that picks, in any seed's world, a record like ``before`` of ``table`` (None: none found
    that contains the recorded record itself)."""
    cols = world.columns(table)
    conds: list[str] = []
    for column, value in changed.items():
        was = before.get(column)
        if was is None:
            conds.append(f"t.{_q(column)} is null")
        elif isinstance(was, str) and world.distinct(table, column) <= CATEGORICAL_MAX:
            conds.append(f"t.{_q(column)} = {literal(was)}")
        else:
            conds.append(f"t.{_q(column)} is not null" + (f" and t.{_q(column)} != {literal(value)}" if value is not None else ""))
    if label:
        conds.append(f"t.{_q(label)} in (select {_q(label)} from {_q(table)} group by {_q(label)} having count(*) = 1)")
    select = ["t.id"] + ([f"t.{_q(label)}"] if label else [])
    join = ""
    owner = bool(persona and "owner_id" in cols and before.get("owner_id") == persona.get("id"))
    if owner:
        select.append("u.username as owner")
        join = " join identity_user u on u.id = t.owner_id"
        conds.append(f"u.active = 1 and u.role = {literal(persona['role'])}")
    empty = [f"not exists (select 1 from {_q(child)} c where c.{_q(col)} = t.id)"
             for child, col in world.children(table)
             if world.conn.execute(f"select 1 from {_q(child)} where {_q(col)} = ? limit 1", (key,)).fetchone() is None]

    def query(extra: list[str]) -> str:
        where = " and ".join(conds + extra) or "1"
        return f"select {', '.join(select)} from {_q(table)} t{join} where {where} order by t.id"

    # Keep the empty related lists while enough records remain; drop the most selective first.
    empty.sort(key=lambda c: world.count(query([c])))
    while empty and world.count(query(empty)) < MIN_ROWS:
        empty.pop(0)
    sql = query(empty)
    if key not in world.ids(sql):
        return None
    return Equivalent(sql=sql, conditions=conds + empty, owner=owner)


def other_query(table: str, eq: Equivalent, param: str) -> str:
    """Another record equivalent to the parameter's (the wrong-record near-miss's)."""
    conds = [c for c in eq.conditions if not c.startswith("u.")]  # any owner: a direct change needs no sign-in
    where = " and ".join([f"t.id != {{{{ {param}.id }}}}", *conds])
    return f"select t.id from {_q(table)} t where {where} order by t.id"


__all__ = ["Equivalent", "World", "equivalent", "literal", "other_query"]

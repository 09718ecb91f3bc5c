"""The world's schema as a task author needs it: every table of every app, its columns and types,
picklist values, labels, relations, and row counts in a world. Generated from the models (and each
app's ``AppSpec.fields``), so it never drifts from the code."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from . import registry

CORE_PREFIXES = {"identity": "identity", "sandbox": "world bookkeeping"}


def _owner(table: str, apps: list[str]) -> str:
    prefix = table.split("_", 1)[0]
    return prefix if prefix in apps or prefix in CORE_PREFIXES else "other"


def describe(app: str | None = None, world: Path | str | None = None) -> list[dict[str, Any]]:
    """One dict per table: ``{table, app, columns: [{name, type, nullable, primary_key, references,
    label, picklist, required, lookup}], rows}``. ``app`` limits it to one app's tables (plus the
    identity's users, which every app refers to); ``world`` adds row counts from that world file."""
    from sqlmodel import SQLModel

    specs = registry.discover()
    names = [s.name for s in specs]
    if app is not None and app not in names and app not in CORE_PREFIXES:
        raise KeyError(f"no app {app!r} (apps: {', '.join(names)})")
    extra: dict[str, dict[str, dict[str, Any]]] = {}
    for spec in specs:
        if spec.fields is not None:
            extra.update(spec.fields())
    counts = _counts(world) if world is not None else {}
    out = []
    for table in sorted(SQLModel.metadata.tables.values(), key=lambda t: t.name):
        owner = _owner(table.name, names)
        if app is not None and owner != app and owner != "identity":
            continue
        meta = extra.get(table.name, {})
        columns = []
        for col in table.columns:
            info: dict[str, Any] = {
                "name": col.name,
                "type": str(col.type),
                "nullable": bool(col.nullable),
                "primary_key": bool(col.primary_key),
            }
            refs = [f"{fk.column.table.name}.{fk.column.name}" for fk in col.foreign_keys]
            if refs:
                info["references"] = refs[0]
            info.update(meta.get(col.name, {}))
            if "lookup" in info and "references" not in info:
                info["references"] = f"{info['lookup']} (lookup)"
            columns.append(info)
        entry: dict[str, Any] = {"table": table.name, "app": owner, "columns": columns}
        if table.name in counts:
            entry["rows"] = counts[table.name]
        out.append(entry)
    return out


def _counts(world: Path | str) -> dict[str, int]:
    with closing(sqlite3.connect(f"file:{world}?mode=ro", uri=True)) as conn:
        names = [r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")]
        return {n: conn.execute(f'select count(*) from "{n}"').fetchone()[0] for n in names}


def as_text(tables: list[dict[str, Any]]) -> str:
    """A plain-text listing: one block per table, one line per column."""
    lines: list[str] = []
    for t in tables:
        rows = f", {t['rows']} rows" if "rows" in t else ""
        lines.append(f"{t['table']}  ({t['app']}{rows})")
        width = max(len(c["name"]) for c in t["columns"])
        for c in t["columns"]:
            notes = []
            if c.get("primary_key"):
                notes.append("primary key")
            if c.get("required"):
                notes.append("required")
            if c.get("label"):
                notes.append(f'label "{c["label"]}"')
            if c.get("references"):
                notes.append(f"-> {c['references']}")
            if c.get("picklist"):
                notes.append("picklist: " + " | ".join(c["picklist"]))
            lines.append(f"  {c['name']:<{width}}  {c['type']:<14}{'  ' + '; '.join(notes) if notes else ''}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"

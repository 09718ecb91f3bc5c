"""Recalculate stored workbooks after a direct change of their cells' inputs (a task's set-up writes
inputs with SQL; this brings every computed value back in line, as opening the file in Excel would)."""

from __future__ import annotations

import sqlite3
from typing import Any

from .formulas import parse_ref
from .sheets import cell_rows


def recalculate_workbooks(conn: sqlite3.Connection, params: dict[str, Any] | None = None) -> int:
    """Recompute every workbook's cells; returns how many cells changed."""
    changed = 0
    sheets: dict[int, dict[int, str]] = {}
    for sid, item, name in conn.execute("SELECT id, item_id, name FROM drive_sheet"):
        sheets.setdefault(item, {})[sid] = name
    for item, names in sheets.items():
        inputs: dict[str, dict[tuple[int, int], str]] = {n: {} for n in names.values()}
        stored = {}
        for cid, sid, ref, text, value, number, error in conn.execute(
                "SELECT id, sheet_id, ref, input, value, number, error FROM drive_cell WHERE item_id = ?", (item,)):
            inputs[names[sid]][parse_ref(ref)] = text
            stored[(sid, ref)] = (cid, value, number, error)
        for row in cell_rows(item, {n: s for s, n in names.items()}, inputs):
            cid, value, number, error = stored[(row["sheet_id"], row["ref"])]
            if (value, number, error) != (row["value"], row["number"], row["error"]):
                conn.execute("UPDATE drive_cell SET value = ?, number = ?, error = ? WHERE id = ?", (row["value"], row["number"], row["error"], cid))
                changed += 1
    return changed

"""A spreadsheet's content: sheets and cells (input as typed, value computed by the formula engine),
recalculated as a whole workbook on every edit, and .xlsx import/export (openpyxl)."""

from __future__ import annotations

import io
import re
from typing import Any

from sqlmodel import Session, delete, select

from .formulas import CIRCULAR, XlError, col_name, display, parse_ref, recalculate, ref_name
from .models import Cell, Sheet

MAX_INPUT = 5_000
MAX_CELLS = 50_000
SHEET_NAME = re.compile(r"^[^\\/?*\[\]:']{1,31}$")


class SheetError(ValueError):
    pass


def check_sheet_name(name: str, taken: list[str]) -> str:
    name = name.strip()
    if not SHEET_NAME.match(name):
        raise SheetError("A sheet name must be 1 to 31 characters and can't contain \\ / ? * [ ] : or '.")
    if name.lower() in (t.lower() for t in taken):
        raise SheetError(f"There is already a sheet named “{name}”. Choose another name.")
    return name


def workbook_inputs(session: Session, item_id: int) -> tuple[list[Sheet], dict[str, dict[tuple[int, int], str]]]:
    sheets = list(session.exec(select(Sheet).where(Sheet.item_id == item_id).order_by(Sheet.position)).all())
    by_id = {s.id: s.name for s in sheets}
    inputs: dict[str, dict[tuple[int, int], str]] = {s.name: {} for s in sheets}
    for c in session.exec(select(Cell).where(Cell.item_id == item_id)).all():
        inputs[by_id[c.sheet_id]][(c.row, c.col)] = c.input
    return sheets, inputs


def computed(value: Any, circular: bool) -> tuple[str, float | None, str | None]:
    """(shown value, number, error) of a computed value."""
    if circular:
        return "0", 0.0, CIRCULAR
    if isinstance(value, XlError):
        return value.code, None, value.code
    if isinstance(value, float) and not isinstance(value, bool):
        return display(value), value, None
    return display(value), None, None


def cell_rows(item_id: int, sheet_ids: dict[str, int], inputs: dict[str, dict[tuple[int, int], str]]) -> list[dict[str, Any]]:
    values, circ = recalculate(inputs)
    out = []
    for sheet, cells in inputs.items():
        for (r, c), text in sorted(cells.items()):
            shown, num, err = computed(values.get((sheet, r, c)), (sheet, r, c) in circ)
            out.append({"sheet_id": sheet_ids[sheet], "item_id": item_id, "row": r, "col": c, "ref": ref_name(r, c), "input": text,
                        "value": shown, "number": num, "error": err})
    return out


def apply_edits(session: Session, item_id: int, edits: list[tuple[str, str, str]]) -> tuple[list[Cell], str]:
    """Set cells ``(sheet name, ref, input)`` and recalculate; returns the cells whose value or input
    changed (for the grid to repaint) and the workbook's plain text (for search)."""
    sheets, inputs = workbook_inputs(session, item_id)
    names = {s.name.lower(): s.name for s in sheets}
    for sheet, ref, text in edits:
        real = names.get(sheet.lower())
        if real is None:
            raise SheetError(f"There is no sheet named “{sheet}” in this workbook.")
        try:
            r, c = parse_ref(ref)
        except ValueError as exc:
            raise SheetError(str(exc)) from None
        if len(text) > MAX_INPUT:
            raise SheetError(f"A cell holds at most {MAX_INPUT:,} characters; {ref} got {len(text):,}.")
        if text == "":
            inputs[real].pop((r, c), None)
        else:
            inputs[real][(r, c)] = text
    if sum(len(c) for c in inputs.values()) > MAX_CELLS:
        raise SheetError(f"A workbook holds at most {MAX_CELLS:,} filled cells.")
    return sync(session, item_id, sheets, inputs)


def sync(session: Session, item_id: int, sheets: list[Sheet], inputs: dict[str, dict[tuple[int, int], str]]) -> tuple[list[Cell], str]:
    ids = {s.name: s.id for s in sheets}
    new = {(row["sheet_id"], row["row"], row["col"]): row for row in cell_rows(item_id, ids, inputs)}
    changed: list[Cell] = []
    for cell in session.exec(select(Cell).where(Cell.item_id == item_id)).all():
        row = new.pop((cell.sheet_id, cell.row, cell.col), None)
        if row is None:
            session.delete(cell)
            changed.append(Cell(sheet_id=cell.sheet_id, item_id=item_id, row=cell.row, col=cell.col, ref=cell.ref, input="", value=""))
            continue
        if (cell.input, cell.value, cell.number, cell.error) != (row["input"], row["value"], row["number"], row["error"]):
            cell.input, cell.value, cell.number, cell.error = row["input"], row["value"], row["number"], row["error"]
            session.add(cell)
            changed.append(cell)
    for row in new.values():
        cell = Cell(**row)
        session.add(cell)
        changed.append(cell)
    return changed, plain_text(inputs)


def plain_text(inputs: dict[str, dict[tuple[int, int], str]]) -> str:
    return "\n".join(t for cells in inputs.values() for _k, t in sorted(cells.items()) if not t.startswith("="))


def snapshot(session: Session, item_id: int) -> dict[str, Any]:
    sheets, inputs = workbook_inputs(session, item_id)
    return {"sheets": [{"name": s.name, "cells": {ref_name(r, c): t for (r, c), t in sorted(inputs[s.name].items())}} for s in sheets]}


def restore(session: Session, item_id: int, snap: dict[str, Any]) -> str:
    sheets = list(session.exec(select(Sheet).where(Sheet.item_id == item_id).order_by(Sheet.position)).all())
    session.exec(delete(Cell).where(Cell.item_id == item_id))
    keep = {s.name: s for s in sheets}
    result: list[Sheet] = []
    for pos, sh in enumerate(snap["sheets"]):
        s = keep.pop(sh["name"], None) or Sheet(item_id=item_id, name=sh["name"], position=pos)
        s.position = pos
        session.add(s)
        result.append(s)
    for s in keep.values():
        session.delete(s)
    session.flush()
    inputs = {sh["name"]: {parse_ref(ref): t for ref, t in sh["cells"].items()} for sh in snap["sheets"]}
    for row in cell_rows(item_id, {s.name: s.id for s in result}, inputs):
        session.add(Cell(**row))
    return plain_text(inputs)


def grid(session: Session, sheet: Sheet) -> dict[str, Any]:
    cells = session.exec(select(Cell).where(Cell.sheet_id == sheet.id)).all()
    rows = max([c.row for c in cells] + [30]) + 5
    cols = max([c.col for c in cells] + [10]) + 2
    return {"rows": rows, "cols": cols, "cells": {c.ref: c for c in cells}, "col_names": [col_name(i) for i in range(1, cols + 1)]}


# -- .xlsx ------------------------------------------------------------------------------------
def to_xlsx(snap: dict[str, Any], values: dict[tuple[str, str], Any] | None = None) -> bytes:
    from openpyxl import Workbook

    wb = Workbook()
    wb.remove(wb.active)
    for sh in snap["sheets"]:
        ws = wb.create_sheet(sh["name"])
        for ref, text in sh["cells"].items():
            from .formulas import literal

            v = text if text.startswith("=") else literal(text)
            ws[ref] = v.code if isinstance(v, XlError) else v
    if not snap["sheets"]:
        wb.create_sheet("Sheet1")
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def from_xlsx(data: bytes) -> dict[str, Any]:
    from openpyxl import load_workbook

    try:
        wb = load_workbook(io.BytesIO(data))
    except Exception as exc:  # noqa: BLE001 - any failure of a corrupt zip/XML is the same message
        raise SheetError("This file isn't an Excel workbook we can open (.xlsx). It may be damaged; save it again from Excel and upload it.") from exc
    sheets = []
    for ws in wb.worksheets:
        cells = {}
        for row in ws.iter_rows():
            for c in row:
                if c.value is None:
                    continue
                v = c.value
                if isinstance(v, bool):
                    text = "TRUE" if v else "FALSE"
                elif isinstance(v, float):
                    text = display(v)
                elif hasattr(v, "isoformat"):
                    text = v.date().isoformat() if hasattr(v, "date") else v.isoformat()
                else:
                    text = str(v)
                cells[c.coordinate] = text
        sheets.append({"name": ws.title[:31], "cells": cells})
    return {"sheets": sheets}

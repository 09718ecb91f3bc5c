"""A spreadsheet's content: sheets and cells (input as typed, value computed by the formula engine),
recalculated on every edit (the edited cells and their dependents; the whole workbook after
structural changes: sort, sheet renames and deletions, a version restored, a circular reference),
and .xlsx import/export (openpyxl)."""

from __future__ import annotations

import io
import re
from typing import Any, NamedTuple

from markupsafe import Markup, escape

from sqlmodel import Session, delete, select

from .formulas import CIRCULAR, XlError, col_name, display, parse_ref, recalculate, recalculate_some, ref_name
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
    sheets, inputs, _stored = _load(session, item_id, stored=False)
    return sheets, inputs


_CELL_COLUMNS = "id, sheet_id, row, col, ref, input, value, number, error"


def _load(session: Session, item_id: int, stored: bool = True) -> tuple[list[Sheet], dict[str, dict[tuple[int, int], str]], list[tuple[Any, ...]]]:
    """The workbook's sheets, its inputs by sheet name, and (``stored``) its stored cells as plain
    rows (id, sheet_id, row, col, ref, input, value, number, error): read once per edit, with the
    driver's cursor (a 2,000-cell workbook as ORM rows costs more than its recalculation)."""
    sheets = list(session.exec(select(Sheet).where(Sheet.item_id == item_id).order_by(Sheet.position)).all())
    by_id = {s.id: s.name for s in sheets}
    inputs: dict[str, dict[tuple[int, int], str]] = {s.name: {} for s in sheets}
    session.flush()
    db = _raw(session)
    if stored:
        rows = db.execute(f"SELECT {_CELL_COLUMNS} FROM drive_cell WHERE item_id = ?", (item_id,)).fetchall()
        for row in rows:
            inputs[by_id[row[1]]][(row[2], row[3])] = row[5]
        return sheets, inputs, rows
    for sheet_id, r, c, text in db.execute("SELECT sheet_id, row, col, input FROM drive_cell WHERE item_id = ?", (item_id,)).fetchall():
        inputs[by_id[sheet_id]][(r, c)] = text
    return sheets, inputs, []


def _raw(session: Session) -> Any:
    """The session's own SQLite connection (same transaction), for reads of thousands of plain rows:
    the driver's tuples, without a result wrapper per row."""
    return session.connection().connection.dbapi_connection


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
    sheets, inputs, _stored = _load(session, item_id, stored=False)
    names = {s.name.lower(): s.name for s in sheets}
    touched: set[tuple[str, int, int]] = set()
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
        touched.add((real, r, c))
    if sum(len(c) for c in inputs.values()) > MAX_CELLS:
        raise SheetError(f"A workbook holds at most {MAX_CELLS:,} filled cells.")
    return sync(session, item_id, sheets, inputs, touched)


def sync(session: Session, item_id: int, sheets: list[Sheet], inputs: dict[str, dict[tuple[int, int], str]],
         touched: set[tuple[str, int, int]] | None = None, stored: list[tuple[Any, ...]] | None = None) -> tuple[list[Cell], str]:
    """Store the workbook's inputs and computed values. With ``touched`` (the cells whose input was
    set), only they and their dependents are recalculated, unless the workbook has or gets a circular
    reference; without it the whole workbook is."""
    ids = {s.name: s.id for s in sheets}
    conn = session.connection()
    new: dict[tuple[int, int, int], dict[str, Any]] | None = None
    if touched is not None and stored is None and conn.exec_driver_sql(
            "SELECT 1 FROM drive_cell WHERE item_id = ? AND error = ? LIMIT 1", (item_id, CIRCULAR)).first() is None:
        values = recalculate_some(inputs, touched)
        if values is not None:
            new = {}
            for (sheet, r, c), v in values.items():
                text = inputs[sheet].get((r, c))
                if text is not None:
                    shown, num, err = computed(v, False)
                    new[(ids[sheet], r, c)] = {"sheet_id": ids[sheet], "item_id": item_id, "row": r, "col": c, "ref": ref_name(r, c),
                                               "input": text, "value": shown, "number": num, "error": err}
            # only the recalculated cells' stored rows are read (by reference, then by sheet)
            keys = {(ids[sheet], r, c) for (sheet, r, c) in values}
            refs = sorted({ref_name(r, c) for (_s, r, c) in keys})
            stored = []
            for i in range(0, len(refs), 500):
                chunk = refs[i:i + 500]
                stored += [row for row in conn.exec_driver_sql(
                    f"SELECT {_CELL_COLUMNS} FROM drive_cell WHERE item_id = ? AND ref IN ({','.join('?' * len(chunk))})", (item_id, *chunk))
                    if (row[1], row[2], row[3]) in keys]
    if new is None:
        if stored is None:
            stored = _load(session, item_id)[2]
        new = {(row["sheet_id"], row["row"], row["col"]): row for row in cell_rows(item_id, ids, inputs)}
    changed: list[Cell] = []
    for cid, sheet_id, r, c, ref, text, value, number, error in stored:
        row = new.pop((sheet_id, r, c), None)
        if row is None:
            session.delete(session.get(Cell, cid))
            changed.append(Cell(sheet_id=sheet_id, item_id=item_id, row=r, col=c, ref=ref, input="", value=""))
            continue
        if (text, value, number, error) != (row["input"], row["value"], row["number"], row["error"]):
            cell = session.get(Cell, cid)
            cell.input, cell.value, cell.number, cell.error = row["input"], row["value"], row["number"], row["error"]
            session.add(cell)
            changed.append(cell)
    for row in new.values():
        cell = Cell(**row)
        session.add(cell)
        changed.append(cell)
    # the version snapshot taken next (library.touch) reads these inputs instead of the table again
    session.info.setdefault("drive_inputs", {})[item_id] = inputs
    return changed, plain_text(inputs)


def plain_text(inputs: dict[str, dict[tuple[int, int], str]]) -> str:
    return "\n".join(t for cells in inputs.values() for _k, t in sorted(cells.items()) if not t.startswith("="))


def snapshot(session: Session, item_id: int, inputs: dict[str, dict[tuple[int, int], str]] | None = None) -> dict[str, Any]:
    """The workbook's content as a version keeps it: each sheet's inputs (``inputs``: as the caller
    just stored them), and its charts when it has any."""
    from .models import Chart

    inputs = inputs or session.info.get("drive_inputs", {}).pop(item_id, None)
    if inputs is None:
        sheets, inputs = workbook_inputs(session, item_id)
    else:
        sheets = list(session.exec(select(Sheet).where(Sheet.item_id == item_id).order_by(Sheet.position)).all())
    charts: dict[int, list[dict[str, Any]]] = {}
    for ch in session.exec(select(Chart).where(Chart.item_id == item_id).order_by(Chart.id)).all():
        charts.setdefault(ch.sheet_id, []).append({"kind": ch.kind, "source": ch.source, "title": ch.title, "anchor": ch.anchor,
                                                   "width": ch.width, "height": ch.height})
    out = []
    for s in sheets:
        sh: dict[str, Any] = {"name": s.name, "cells": {ref_name(r, c): t for (r, c), t in sorted(inputs[s.name].items())}}
        if s.id in charts:
            sh["charts"] = charts[s.id]
        out.append(sh)
    return {"sheets": out}


def restore(session: Session, item_id: int, snap: dict[str, Any]) -> str:
    from .models import Chart

    sheets = list(session.exec(select(Sheet).where(Sheet.item_id == item_id).order_by(Sheet.position)).all())
    session.exec(delete(Cell).where(Cell.item_id == item_id))
    session.exec(delete(Chart).where(Chart.item_id == item_id))
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
    for s, sh in zip(result, snap["sheets"]):
        for ch in sh.get("charts", []):
            session.add(Chart(item_id=item_id, sheet_id=s.id, kind=ch["kind"], source=ch["source"], title=ch.get("title", ""), anchor=ch.get("anchor", "A1"),
                              width=ch.get("width", 480), height=ch.get("height", 288)))
    return plain_text(inputs)


class GridCell(NamedTuple):
    row: int
    col: int
    ref: str
    input: str
    value: str
    number: float | None
    error: str | None


def grid(session: Session, sheet: Sheet) -> dict[str, Any]:
    session.flush()
    cells = [GridCell(*r) for r in _raw(session).execute(
        "SELECT row, col, ref, input, value, number, error FROM drive_cell WHERE sheet_id = ?", (sheet.id,)).fetchall()]
    rows = max([c.row for c in cells] + [30]) + 5
    cols = max([c.col for c in cells] + [10]) + 2
    return {"rows": rows, "cols": cols, "cells": {c.ref: c for c in cells}, "col_names": [col_name(i) for i in range(1, cols + 1)],
            "widths": column_widths(cells), "header_width": ROW_HEADER_PX + DIGIT_PX * len(str(rows))}


# Column widths in pixels, set by the server as Excel stores them per column (the grid is laid out with
# fixed widths: the browser never measures 2,000 cells to size the columns): the default width, or
# wider for the longest value of the column, up to a limit (longer text is cut with an ellipsis).
DEFAULT_COL_PX, MAX_COL_PX, CHAR_PX, CELL_PAD_PX = 92, 240, 7, 12
ROW_HEADER_PX, DIGIT_PX = 14, 8


def column_widths(cells: list[Any]) -> dict[int, int]:
    """{column: width} for the columns wider than the default."""
    longest: dict[int, int] = {}
    for c in cells:
        if len(c.value) > longest.get(c.col, 0):
            longest[c.col] = len(c.value)
    out = {}
    for col, n in longest.items():
        px = min(MAX_COL_PX, n * CHAR_PX + CELL_PAD_PX)
        if px > DEFAULT_COL_PX:
            out[col] = px
    return out


def grid_style(grid: dict[str, Any]) -> Markup:
    """The grid's column widths as CSS rules (the row header, then each column wider than the default)."""
    rules = [f".grid tr>:first-child{{width:{grid['header_width']}px}}"]
    rules += [f".grid tr>:nth-child({col + 1}){{width:{px}px}}" for col, px in sorted(grid["widths"].items())]
    return Markup("".join(rules))


def grid_body(grid: dict[str, Any], hidden: set[int], autofilter: dict[str, Any] | None, filter_button: Any = None) -> Markup:
    """The grid's rows as HTML, written in one pass (a template loop over 2,000 cells is most of a
    large sheet's render). A cell is a ``td`` (a gridcell of the grid) labelled by its reference,
    ``data-ref`` for the editor, ``data-input`` only when what was typed differs from what is shown
    (a formula, "1,250"), the ``num`` class for right-aligned numbers, ``data-error`` for errors.
    End tags of cells are left out, as HTML allows. ``filter_button(col)`` draws the AutoFilter
    button of a header cell."""
    by_pos = {(c.row, c.col): c for c in grid["cells"].values()}
    af_row = autofilter["row"] if autofilter else None
    af_cols = autofilter["cols"] if autofilter else {}
    out: list[str] = []
    add = out.append
    for r in range(1, grid["rows"] + 1):
        filtered = ' class="filtered"' if autofilter and hidden and r > af_row else ""
        add(f'<tr hidden><th scope="row"{filtered}>{r}</th>' if r in hidden else f'<tr><th scope="row"{filtered}>{r}</th>')
        for i, letter in enumerate(grid["col_names"], 1):
            ref = f"{letter}{r}"
            cell = by_pos.get((r, i))
            button = r == af_row and i in af_cols and filter_button is not None
            if cell is None:
                add(f'<td data-ref="{ref}" aria-label="{ref}" class="af">{filter_button(i)}' if button else f'<td data-ref="{ref}" aria-label="{ref}">')
                continue
            classes = ("num af" if button else "num") if cell.number is not None else ("af" if button else "")
            attrs = f' class="{classes}"' if classes else ""
            if cell.error:
                attrs += f' data-error="{escape(cell.error)}"'
            if cell.input != cell.value:
                attrs += f' data-input="{escape(cell.input)}"'
            add(f'<td data-ref="{ref}" aria-label="{ref}"{attrs}>{escape(cell.value)}{filter_button(i) if button else ""}')
    return Markup("".join(out))


# -- .xlsx ------------------------------------------------------------------------------------
def to_xlsx(snap: dict[str, Any], values: dict[tuple[str, str], Any] | None = None, charts: list[Any] | None = None) -> bytes:
    """The workbook as .xlsx; ``charts`` (sheet name, kind, range, title, anchor) become Excel charts
    over the same ranges (openpyxl's chart objects)."""
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
    for sheet_name, kind, source, title, anchor, header in charts or []:
        if sheet_name in wb.sheetnames:
            _xlsx_chart(wb[sheet_name], kind, source, title, anchor, header)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _xlsx_chart(ws: Any, kind: str, source: str, title: str, anchor: str, header: bool) -> None:
    from openpyxl.chart import BarChart, LineChart, PieChart, Reference

    r1, c1, r2, c2 = parse_range(source)
    chart = {"column": BarChart, "bar": BarChart, "line": LineChart, "pie": PieChart}[kind]()
    if kind in ("column", "bar"):
        chart.type = "col" if kind == "column" else "bar"
    first = c1 + 1 if c2 > c1 else c1
    chart.add_data(Reference(ws, min_col=first, max_col=c2, min_row=r1, max_row=r2), titles_from_data=header)
    if c2 > c1:
        chart.set_categories(Reference(ws, min_col=c1, max_col=c1, min_row=r1 + 1 if header else r1, max_row=r2))
    chart.title = title or None
    ws.add_chart(chart, anchor)


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


# -- sort, filter, freeze panes ---------------------------------------------------------------
REF_IN_FORMULA = re.compile(r"""("(?:[^"]|"")*")|(?<![\w$.'])(\$?)([A-Za-z]{1,3})(\$?)(\d+)(?![\w(!])""")


def shift_rows(formula: str, delta: int) -> str:
    """The formula as Excel writes it when its cell moves ``delta`` rows (relative row numbers shift;
    ``$`` rows and text in quotes stay)."""
    if not delta or not formula.startswith("="):
        return formula

    def sub(m: re.Match[str]) -> str:
        if m.group(1):
            return m.group(1)
        row = int(m.group(5)) if m.group(4) else int(m.group(5)) + delta
        return f"{m.group(2)}{m.group(3)}{m.group(4)}{row if row >= 1 else '#REF!'}"

    return REF_IN_FORMULA.sub(sub, formula)


def parse_range(text: str) -> tuple[int, int, int, int]:
    """(first row, first col, last row, last col) of "A1:H31"."""
    a, _, b = text.partition(":")
    (r1, c1), (r2, c2) = parse_ref(a), parse_ref(b or a)
    return min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)


def range_name(r1: int, c1: int, r2: int, c2: int) -> str:
    return f"{ref_name(r1, c1)}:{ref_name(r2, c2)}"


def current_region(cells: dict[tuple[int, int], str], row: int, col: int) -> tuple[int, int, int, int]:
    """Excel's current region around a cell: the rectangle of data bounded by empty rows and empty
    columns that holds it. Raises when the cell is outside any data."""
    filled = set(cells)
    r1 = r2 = row
    c1 = c2 = col
    if not any((r, c) in filled for r in range(row - 1, row + 2) for c in range(col - 1, col + 2)):
        raise SheetError("Select a cell in the data you want to sort or filter, then try again.")
    while True:
        grow = (any((r1 - 1, c) in filled for c in range(c1 - 1, c2 + 2)), any((r2 + 1, c) in filled for c in range(c1 - 1, c2 + 2)),
                any((r, c1 - 1) in filled for r in range(r1 - 1, r2 + 2)), any((r, c2 + 1) in filled for r in range(r1 - 1, r2 + 2)))
        if not any(grow):
            break
        r1, r2, c1, c2 = r1 - grow[0], r2 + grow[1], c1 - grow[2], c2 + grow[3]
    r1, c1 = max(r1, 1), max(c1, 1)
    used = [(r, c) for r, c in filled if r1 <= r <= r2 and c1 <= c <= c2]
    return min(r for r, _ in used), min(c for _, c in used), max(r for r, _ in used), max(c for _, c in used)


def sort_key(value: str, number: float | None) -> tuple[int, Any]:
    """Excel's order: numbers, then text (case-insensitive), then TRUE/FALSE; blanks always last."""
    if value == "":
        return (3, 0)
    if number is not None:
        return (0, number)
    if value in ("TRUE", "FALSE"):
        return (2, value)
    return (1, value.lower())


def sort_range(session: Session, item_id: int, sheet: Sheet, rng: tuple[int, int, int, int], col: int, descending: bool,
               header: bool = True) -> tuple[list[Cell], str]:
    """Sort the rows of a range by one column (the header row stays), moving each row's inputs and
    shifting its formulas' relative rows; blanks stay at the bottom in either order, as in Excel."""
    r1, c1, r2, c2 = rng
    if not c1 <= col <= c2:
        raise SheetError("The sort column must be inside the data.")
    sheets, inputs = workbook_inputs(session, item_id)
    cells = inputs[sheet.name]
    values = {(c.row, c.col): (c.value, c.number) for c in session.exec(select(Cell).where(Cell.sheet_id == sheet.id)).all()}
    first = r1 + 1 if header else r1
    rows = list(range(first, r2 + 1))
    filled = [r for r in rows if values.get((r, col), ("", None))[0] != ""]
    blanks = [r for r in rows if r not in filled]
    filled.sort(key=lambda r: sort_key(*values[(r, col)]), reverse=descending)
    order = filled + blanks
    moved = {}
    for dest, src in zip(rows, order):
        for c in range(c1, c2 + 1):
            text = cells.pop((src, c), None)
            if text is not None:
                moved[(dest, c)] = shift_rows(text, dest - src)
    cells.update(moved)
    sheet.sort_state = f"{range_name(first, col, r2, col)} {'desc' if descending else 'asc'}"
    session.add(sheet)
    return sync(session, item_id, sheets, inputs)


def filter_values(session: Session, sheet: Sheet) -> dict[int, list[str]]:
    """The distinct values shown in each column of the filter range (below the header), sorted as
    Excel's filter list ("" stands for (Blanks))."""
    if not sheet.filter_range:
        return {}
    r1, c1, r2, c2 = parse_range(sheet.filter_range)
    shown = {(c.row, c.col): (c.value, c.number) for c in session.exec(select(Cell).where(Cell.sheet_id == sheet.id)).all()}
    out: dict[int, list[str]] = {}
    for col in range(c1, c2 + 1):
        vals = {shown.get((r, col), ("", None)) for r in range(r1 + 1, r2 + 1)}
        out[col] = [v for v, _n in sorted(vals, key=lambda v: sort_key(*v))]
    return out


def criteria(sheet: Sheet) -> dict[str, list[str]]:
    import json

    return json.loads(sheet.filter_criteria or "{}")


def set_filter(session: Session, sheet: Sheet, col: int, shown: list[str] | None) -> None:
    """Show only the rows whose value in ``col`` is one of ``shown`` (None clears the column's filter)."""
    import json

    if not sheet.filter_range:
        raise SheetError("Turn on Filter first (Data > Filter).")
    r1, c1, r2, c2 = parse_range(sheet.filter_range)
    if not c1 <= col <= c2:
        raise SheetError("That column isn't in the filtered range.")
    crit = criteria(sheet)
    letter = col_name(col)
    available = filter_values(session, sheet)[col]
    if shown is None or set(shown) >= set(available):
        crit.pop(letter, None)
    else:
        if not shown:
            raise SheetError("Select at least one item to show.")
        crit[letter] = sorted(set(shown) & set(available))
    sheet.filter_criteria = json.dumps(dict(sorted(crit.items())))
    session.add(sheet)


def hidden_rows(session: Session, sheet: Sheet) -> set[int]:
    """Rows the AutoFilter hides: below the header, a value not among a filtered column's shown values."""
    crit = criteria(sheet)
    if not sheet.filter_range or not crit:
        return set()
    r1, _c1, r2, _c2 = parse_range(sheet.filter_range)
    shown = {(c.row, c.col): c.value for c in session.exec(select(Cell).where(Cell.sheet_id == sheet.id)).all()}
    hide = set()
    for letter, values in crit.items():
        col, keep = parse_ref(f"{letter}1")[1], set(values)
        hide |= {r for r in range(r1 + 1, r2 + 1) if shown.get((r, col), "") not in keep}
    return hide


# -- sheet tabs, fill down, paste -------------------------------------------------------------
def shift_refs(formula: str, drow: int, dcol: int) -> str:
    """The formula as Excel writes it when copied ``drow`` rows down and ``dcol`` columns right:
    relative rows and columns shift, ``$`` parts and text in quotes stay; a reference pushed off the
    sheet becomes #REF!."""
    if not (drow or dcol) or not formula.startswith("="):
        return formula

    def sub(m: re.Match[str]) -> str:
        if m.group(1):
            return m.group(1)
        row = int(m.group(5)) + (0 if m.group(4) else drow)
        col = parse_ref(f"{m.group(3).upper()}1")[1] + (0 if m.group(2) else dcol)
        if row < 1 or col < 1:
            return "#REF!"
        return f"{m.group(2)}{col_name(col)}{m.group(4)}{row}"

    return REF_IN_FORMULA.sub(sub, formula)


SHEET_IN_FORMULA = re.compile(r"""("(?:[^"]|"")*")|'((?:[^']|'')+)'!|(?<![\w.'#])([A-Za-z_][\w.]*)!""")


def quoted_sheet(name: str) -> str:
    """A sheet name as a formula writes it: quoted when it is not a plain word (spaces, a cell-like name)."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name) and not re.fullmatch(r"[A-Za-z]{1,3}\d+", name):
        return name
    return "'" + name.replace("'", "''") + "'"


def rename_in_formula(formula: str, old: str, new: str) -> str:
    """Every reference to sheet ``old`` in the formula now names ``new`` (as Excel rewrites them)."""
    return _resheet(formula, old, quoted_sheet(new) + "!")


def unlink_sheet_in_formula(formula: str, gone: str) -> str:
    """The formula after sheet ``gone`` is deleted, as Excel rewrites it: each reference to the sheet
    becomes ``#REF!`` (``=SUM(Data!B2:B9)`` is now ``=SUM(#REF!B2:B9)``)."""
    return _resheet(formula, gone, "#REF!")


def _resheet(formula: str, sheet: str, prefix: str) -> str:
    """The formula with each ``<sheet>!`` prefix (any case, quoted or not) replaced by ``prefix``."""
    if not formula.startswith("="):
        return formula

    def sub(m: re.Match[str]) -> str:
        if m.group(1):
            return m.group(1)
        name = m.group(2).replace("''", "'") if m.group(2) is not None else m.group(3)
        return prefix if name.lower() == sheet.lower() else m.group(0)

    return SHEET_IN_FORMULA.sub(sub, formula)


def rename_sheet(session: Session, item_id: int, sheet: Sheet, name: str) -> tuple[list[Cell], str]:
    """Rename a sheet; formulas anywhere in the workbook that refer to it follow the new name."""
    sheets, inputs = workbook_inputs(session, item_id)
    old = sheet.name
    name = check_sheet_name(name, [s.name for s in sheets if s.id != sheet.id])
    for cells in inputs.values():
        for key, text in cells.items():
            cells[key] = rename_in_formula(text, old, name)
    inputs[name] = inputs.pop(old)
    sheet.name = name
    session.add(sheet)
    return sync(session, item_id, sheets, inputs)


def delete_sheet(session: Session, item_id: int, sheet: Sheet) -> tuple[list[Cell], str]:
    """Delete a sheet, its cells and its charts; formulas on the other sheets that referred to it are
    rewritten as Excel does (the sheet's name becomes ``#REF!``) and show #REF!."""
    from .models import Chart

    sheets, inputs = workbook_inputs(session, item_id)
    if len(sheets) <= 1:
        raise SheetError("A workbook must contain at least one visible worksheet.")
    session.exec(delete(Cell).where(Cell.sheet_id == sheet.id))
    session.exec(delete(Chart).where(Chart.sheet_id == sheet.id))
    inputs.pop(sheet.name)
    for cells in inputs.values():
        for key, text in cells.items():
            cells[key] = unlink_sheet_in_formula(text, sheet.name)
    rest = [s for s in sheets if s.id != sheet.id]
    session.delete(sheet)
    for pos, s in enumerate(rest):
        s.position = pos
        session.add(s)
    session.flush()
    return sync(session, item_id, rest, inputs)


def fill_down(session: Session, item_id: int, sheet: Sheet, rng: tuple[int, int, int, int]) -> tuple[list[Cell], str]:
    """Ctrl+D: the top row of the selection is copied into the rows below it (a single row takes the
    row above it), formulas shifting their relative references as Excel's fill does."""
    return _fill(session, item_id, sheet, rng, down=True)


def fill_right(session: Session, item_id: int, sheet: Sheet, rng: tuple[int, int, int, int]) -> tuple[list[Cell], str]:
    """Ctrl+R: the left column of the selection is copied into the columns to its right (a single
    column takes the column to its left), formulas shifting their relative columns as Excel's fill does."""
    return _fill(session, item_id, sheet, rng, down=False)


def _fill(session: Session, item_id: int, sheet: Sheet, rng: tuple[int, int, int, int], *, down: bool) -> tuple[list[Cell], str]:
    r1, c1, r2, c2 = rng
    if not down:  # work on the transposed selection: columns become rows
        r1, c1, r2, c2 = c1, r1, c2, r2
    src = r1 - 1 if r1 == r2 else r1
    if src < 1:
        raise SheetError("There's nothing above the selection to fill down from." if down
                         else "There's nothing left of the selection to fill right from.")
    sheets, inputs = workbook_inputs(session, item_id)
    cells = inputs[sheet.name]
    touched = set()
    for c in range(c1, c2 + 1):
        at = (lambda r: (r, c)) if down else (lambda r: (c, r))  # noqa: B023 - used within this iteration
        text = cells.get(at(src))
        for r in range(src + 1, r2 + 1):
            touched.add((sheet.name, *at(r)))
            if text is None:
                cells.pop(at(r), None)
            else:
                cells[at(r)] = shift_refs(text, r - src, 0) if down else shift_refs(text, 0, r - src)
    return sync(session, item_id, sheets, inputs, touched)


def paste(session: Session, item_id: int, sheet: Sheet, at: tuple[int, int], rows: list[list[str]],
          origin: tuple[int, int] | None = None) -> tuple[list[Cell], str]:
    """Ctrl+V of a range: tab-separated text fills the grid from the selected cell, one value a cell.
    Cells copied from a workbook (``origin`` is where they came from) keep their formulas, shifted."""
    if not rows or len(rows) * max(len(r) for r in rows) > MAX_CELLS:
        raise SheetError("There's nothing to paste." if not rows else "That's more cells than a workbook can hold.")
    sheets, inputs = workbook_inputs(session, item_id)
    cells = inputs[sheet.name]
    r0, c0 = at
    touched = set()
    for i, values in enumerate(rows):
        for j, text in enumerate(values):
            text = text.strip() if not text.startswith("=") else text
            if len(text) > MAX_INPUT:
                raise SheetError(f"A cell holds at most {MAX_INPUT:,} characters.")
            if origin is not None:
                text = shift_refs(text, r0 - origin[0], c0 - origin[1])
            touched.add((sheet.name, r0 + i, c0 + j))
            if text == "":
                cells.pop((r0 + i, c0 + j), None)
            else:
                cells[(r0 + i, c0 + j)] = text
    if sum(len(c) for c in inputs.values()) > MAX_CELLS:
        raise SheetError(f"A workbook holds at most {MAX_CELLS:,} filled cells.")
    return sync(session, item_id, sheets, inputs, touched)

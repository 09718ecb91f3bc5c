"""The spreadsheet editor (Excel for the web): the grid page, cell edits recalculated on the server,
new sheets."""

from __future__ import annotations

import re
from urllib.parse import quote

from fastapi import APIRouter, Body, Form, HTTPException, Request
from fastapi.responses import JSONResponse
from markupsafe import Markup
from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep

from ...ui import icon, redirect
from .. import charts as ch
from .. import library as lib
from .. import sheets as sh
from ..access import require
from ..models import Cell, Chart, Sheet, Site
from .common import page

router = APIRouter()


def cell_json(c: Cell) -> dict:
    return {"ref": c.ref, "input": c.input, "value": c.value, "error": c.error, "number": c.number}


@router.get("/sheet/{item_id}")
def sheet_page(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, s: str = ""):
    item, role = require(session, user, item_id)
    if item.kind != "sheet":
        raise HTTPException(404, "This item isn't a workbook.")
    if session.get(Site, item.site_id).restricted:
        lib.log(session, item, user, "viewed", "Viewed in the data room", clock.now)
        session.commit()
    sheets = list(session.exec(select(Sheet).where(Sheet.item_id == item.id).order_by(Sheet.position)).all())
    current = next((x for x in sheets if x.name == s), sheets[0])
    circular = [c.ref for c in session.exec(select(Cell).where(Cell.sheet_id == current.id, Cell.error == "circular")).all()]
    grid = sh.grid(session, current)
    autofilter = None
    if current.filter_range:
        r1, c1, _r2, c2 = sh.parse_range(current.filter_range)
        crit = sh.criteria(current)
        header = {c: (grid["cells"].get(sh.ref_name(r1, c)).value if grid["cells"].get(sh.ref_name(r1, c)) else f"Column {sh.col_name(c)}")
                  for c in range(c1, c2 + 1)}
        autofilter = {"row": r1, "cols": header, "values": sh.filter_values(session, current),
                      "criteria": {sh.parse_ref(f"{k}1")[1]: set(v) for k, v in crit.items()}}
    charts = ch.charts_of(session, current)
    if charts:
        values = {(c.row, c.col): (c.value, c.number) for c in grid["cells"].values()}
        charts = [(x, ch.svg(x, ch.read(values, x.source))) for x in charts]
    hidden = sh.hidden_rows(session, current)
    limits = clip_limits(grid)

    def filter_button(col: int) -> Markup:
        active = col in autofilter["criteria"]
        return Markup('<button class="af-btn{}" type="button" data-dialog-open="dlg-af-{}" aria-label="Filter {}">{}</button>').format(
            " active" if active else "", sh.col_name(col), autofilter["cols"][col], icon("filter" if active else "down", "icon-sm"))

    return page(request, session, user, "drive/sheet.html", item=item, role=role, crumbs=lib.path_of(session, item), sheets=sheets, current=current,
                grid=grid, grid_body=mark_clipped(sh.grid_body(grid, hidden, autofilter, filter_button), grid, limits), clip_at=",".join(map(str, limits)), grid_style=sh.grid_style(grid) + gridlines(grid), circular=circular, display_name=lib.display_name,
                autofilter=autofilter, hidden=hidden, charts=charts, chart_kinds=ch.CHART_LABELS)


# Widest character of the grid's font (13 px) in pixels: a value is marked for clipping when it may not fit.
WIDEST_CHAR_PX = 9
_CELL_TAG = re.compile(r'<td data-ref="([A-Z]+[0-9]+)"')


def clip_limits(grid: dict) -> list[int]:
    """Per column (A first), the longest value sure to fit its width at the widest character: a longer
    one is clipped. The page gets the list too (``data-clip-at``), so a typed value is judged alike."""
    return [(grid["widths"].get(col, sh.DEFAULT_COL_PX) - sh.CELL_PAD_PX) // WIDEST_CHAR_PX for col in range(1, grid["cols"] + 1)]


def mark_clipped(body: Markup, grid: dict, limits: list[int]) -> Markup:
    """The grid body with ``data-clip`` on each cell whose text may be wider than its column (only those
    are clipped: see drive.css), erring towards clipping, which changes nothing on screen when the text
    fits. Marked here rather than in ``sheets.grid_body`` because ``sheets.py`` is one of the drive's
    data files (``data_files``): any change to it is a new world version, which makes every proven
    corpus instance stale."""
    clip = {c.ref for c in grid["cells"].values() if len(c.value) > limits[c.col - 1]}
    if not clip:
        return body
    return Markup(_CELL_TAG.sub(lambda m: f'<td data-clip data-ref="{m[1]}"' if m[1] in clip else m[0], str(body)))


GRIDLINE, ROW_PX = "#e1dfdd", 22  # drive.css: the gridlines' colour, a row's height


def gridlines(grid: dict) -> Markup:
    """The cells' gridlines as one background of the row group, over white: a line under every row
    (22 px) and one at the right edge of each column (the widths of ``sheets.grid_style``)."""
    layers = [f"linear-gradient(#0000 {ROW_PX - 1}px,{GRIDLINE} {ROW_PX - 1}px) 0 0/100% {ROW_PX}px repeat-y"]
    x = grid["header_width"]
    for col in range(1, grid["cols"] + 1):
        x += grid["widths"].get(col, sh.DEFAULT_COL_PX)
        layers.append(f"linear-gradient({GRIDLINE},{GRIDLINE}) {x - 1}px 0/1px 100% no-repeat")
    return Markup(".grid tbody{background:" + ",".join(layers) + " #fff}")  # white cells, as Excel's


def chart_updates(session, item_id: int, changed: list[Cell]) -> list[dict]:  # noqa: ANN001
    """The charts whose data changed, drawn again ({id, svg}) for the page to swap in."""
    out = []
    charts = list(session.exec(select(Chart).where(Chart.item_id == item_id)).all())
    for sheet_id in {c.sheet_id for c in changed}:
        for x in ch.touching(charts, sheet_id, changed):
            out.append({"id": x.id, "svg": str(ch.svg(x, ch.read(ch.sheet_values(session, sheet_id), x.source)))})
    return out


def _sheet_form(session, user, item_id: int, name: str):  # noqa: ANN001, ANN202
    item, _role = require(session, user, item_id, "edit")
    if item.kind != "sheet":
        raise HTTPException(404, "This item isn't a workbook.")
    current = session.exec(select(Sheet).where(Sheet.item_id == item.id, Sheet.name == name)).first()
    if current is None:
        raise HTTPException(404, f"There is no sheet named “{name}” in this workbook.")
    return item, current, f"/sheet/{item.id}?s={quote(current.name)}"


@router.post("/sheet/{item_id}/sort")
def sort(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, sheet: str = Form(""), cell: str = Form("A1"),
         order: str = Form("asc")):
    """Sort A to Z / Z to A: the selected cell's column orders the rows of its data (or of the
    filtered range), the header row staying on top."""
    item, current, back = _sheet_form(session, user, item_id, sheet)
    try:
        row, col = sh.parse_ref(cell)
        if current.filter_range:
            rng = sh.parse_range(current.filter_range)
        else:
            _sheets, inputs = sh.workbook_inputs(session, item.id)
            rng = sh.current_region(inputs[current.name], row, col)
        sh.sort_range(session, item.id, current, rng, col, order == "desc")
    except (sh.SheetError, ValueError) as exc:
        return redirect(request, back, toast=str(exc), kind="error")
    lib.touch(session, user, clock.now, item, "Sorted")
    item.text = sh.plain_text(sh.workbook_inputs(session, item.id)[1])
    session.commit()
    return redirect(request, back)


@router.post("/sheet/{item_id}/filter")
def toggle_filter(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, sheet: str = Form(""), cell: str = Form("A1")):
    """Data > Filter: turn the AutoFilter on for the selected cell's data (its first row holds the
    filter buttons), or off (every row shows again)."""
    item, current, back = _sheet_form(session, user, item_id, sheet)
    if current.filter_range:
        current.filter_range, current.filter_criteria = "", "{}"
    else:
        try:
            row, col = sh.parse_ref(cell)
            _sheets, inputs = sh.workbook_inputs(session, item.id)
            current.filter_range = sh.range_name(*sh.current_region(inputs[current.name], row, col))
        except (sh.SheetError, ValueError) as exc:
            return redirect(request, back, toast=str(exc), kind="error")
    session.add(current)
    lib.touch(session, user, clock.now, item, "Filter turned " + ("on" if current.filter_range else "off"), new_version=False)
    session.commit()
    return redirect(request, back)


@router.post("/sheet/{item_id}/filter/{col}")
async def filter_column(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, col: str):
    """A filter column's list: the checked values stay shown (``value`` fields; ``clear`` shows all)."""
    form = await request.form()
    item, current, back = _sheet_form(session, user, item_id, str(form.get("sheet", "")))
    try:
        number = sh.parse_ref(f"{col}1")[1]
        sh.set_filter(session, current, number, None if form.get("clear") else [str(v) for v in form.getlist("value")])
    except (sh.SheetError, ValueError) as exc:
        return redirect(request, back, toast=str(exc), kind="error")
    lib.touch(session, user, clock.now, item, "Filtered", new_version=False)
    session.commit()
    return redirect(request, back)


FREEZE_MODES = ("panes", "top-row", "first-column", "none")


@router.post("/sheet/{item_id}/freeze")
def freeze(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, sheet: str = Form(""), cell: str = Form("A1"),
           mode: str = Form("panes")):
    """View > Freeze Panes: the rows above and columns left of the selected cell stay in view (or the
    top row, or the first column; ``none`` unfreezes)."""
    item, current, back = _sheet_form(session, user, item_id, sheet)
    if mode not in FREEZE_MODES:
        return redirect(request, back, toast=f"Unknown freeze option “{mode}”.", kind="error")
    try:
        row, col = sh.parse_ref(cell)
    except ValueError as exc:
        return redirect(request, back, toast=str(exc), kind="error")
    current.freeze_rows, current.freeze_cols = {"panes": (row - 1, col - 1), "top-row": (1, 0), "first-column": (0, 1), "none": (0, 0)}[mode]
    session.add(current)
    lib.touch(session, user, clock.now, item, "Froze panes" if mode != "none" else "Unfroze panes", new_version=False)
    session.commit()
    return redirect(request, back)


@router.post("/sheet/{item_id}/cells")
def edit_cells(session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, payload: dict = Body(...)):
    """``{"sheet": name, "ref": "B3", "input": "=SUM(B1:B2)"}`` or ``{"edits": [{sheet, ref, input}...]}``."""
    item, _role = require(session, user, item_id, "edit")
    if item.kind != "sheet":
        return JSONResponse({"detail": "This item isn't a workbook."}, status_code=422)
    raw = payload.get("edits") or [payload]
    try:
        edits = [(str(e["sheet"]), str(e["ref"]), str(e.get("input", ""))) for e in raw]
    except (KeyError, TypeError):
        return JSONResponse({"detail": "Each edit needs sheet, ref and input."}, status_code=422)
    try:
        changed, text = sh.apply_edits(session, item.id, edits)
    except sh.SheetError as exc:
        return JSONResponse({"detail": str(exc)}, status_code=422)
    item.text = text
    lib.touch(session, user, clock.now, item, "Edited")
    # the answer is read before the commit (same transaction): after it, every changed cell would be
    # loaded again from the database
    session.flush()
    names = {x.id: x.name for x in session.exec(select(Sheet).where(Sheet.item_id == item.id)).all()}
    circ = [f"{names[sid]}!{ref}" for sid, ref in session.connection().exec_driver_sql(
        "SELECT sheet_id, ref FROM drive_cell WHERE item_id = ? AND error = 'circular'", (item.id,))]
    answer = {"cells": [{**cell_json(c), "sheet": names.get(c.sheet_id)} for c in changed], "circular": circ, "charts": chart_updates(session, item.id, changed)}
    session.commit()
    return answer


@router.post("/sheet/{item_id}/sheets")
def add_sheet(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, name: str = Form("")):
    item, _role = require(session, user, item_id, "edit")
    sheets = list(session.exec(select(Sheet).where(Sheet.item_id == item.id)).all())
    name = name.strip() or f"Sheet{len(sheets) + 1}"
    try:
        name = sh.check_sheet_name(name, [x.name for x in sheets])
    except sh.SheetError as exc:
        return redirect(request, f"/sheet/{item_id}", toast=str(exc), kind="error")
    session.add(Sheet(item_id=item.id, name=name, position=len(sheets)))
    lib.touch(session, user, clock.now, item, f"Added sheet {name}")
    session.commit()
    return redirect(request, f"/sheet/{item_id}?s={name}")


@router.post("/sheet/{item_id}/sheets/rename")
def rename_sheet(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, sheet: str = Form(""), name: str = Form("")):
    """Rename a sheet (double-click its tab, or right-click > Rename); formulas follow the new name."""
    item, current, back = _sheet_form(session, user, item_id, sheet)
    old = current.name
    if name.strip() == old:
        return redirect(request, back)
    try:
        _changed, item.text = sh.rename_sheet(session, item.id, current, name)
    except sh.SheetError as exc:
        return redirect(request, back, toast=str(exc), kind="error")
    note = f"Renamed sheet {old} to {current.name}"
    lib.log(session, item, user, "edited", note, clock.now)  # in the activity even when today's edits coalesce
    lib.touch(session, user, clock.now, item, note)
    session.commit()
    return redirect(request, f"/sheet/{item.id}?s={quote(current.name)}")


@router.post("/sheet/{item_id}/sheets/delete")
def delete_sheet(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, sheet: str = Form("")):
    """Delete a sheet, after Excel's confirmation (formulas elsewhere that refer to it show #REF!)."""
    item, current, back = _sheet_form(session, user, item_id, sheet)
    name = current.name
    try:
        _changed, item.text = sh.delete_sheet(session, item.id, current)
    except sh.SheetError as exc:
        return redirect(request, back, toast=str(exc), kind="error")
    lib.log(session, item, user, "edited", f"Deleted sheet {name}", clock.now)
    lib.touch(session, user, clock.now, item, f"Deleted sheet {name}")
    session.commit()
    return redirect(request, f"/sheet/{item.id}", toast=f"Deleted sheet “{name}”.")


def _range_edit(session, user, clock, item_id: int, payload: dict, action):  # noqa: ANN001, ANN202
    """A JSON edit of a range (fill, paste): the changed cells, as a cell edit answers."""
    item, _role = require(session, user, item_id, "edit")
    if item.kind != "sheet":
        return JSONResponse({"detail": "This item isn't a workbook."}, status_code=422)
    current = session.exec(select(Sheet).where(Sheet.item_id == item.id, Sheet.name == str(payload.get("sheet", "")))).first()
    if current is None:
        return JSONResponse({"detail": f"There is no sheet named “{payload.get('sheet', '')}” in this workbook."}, status_code=422)
    try:
        changed, item.text, note = action(current)
    except (sh.SheetError, ValueError, TypeError, KeyError) as exc:
        return JSONResponse({"detail": str(exc)}, status_code=422)
    lib.touch(session, user, clock.now, item, note)
    session.commit()
    names = {x.id: x.name for x in session.exec(select(Sheet).where(Sheet.item_id == item.id)).all()}
    circ = [f"{names[c.sheet_id]}!{c.ref}" for c in session.exec(select(Cell).where(Cell.item_id == item.id, Cell.error == "circular")).all()]
    return {"cells": [{**cell_json(c), "sheet": names.get(c.sheet_id)} for c in changed], "circular": circ, "charts": chart_updates(session, item.id, changed)}


@router.post("/sheet/{item_id}/fill")
def fill(session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, payload: dict = Body(...)):
    """Ctrl+D over a selection: ``{"sheet": name, "range": "C2:C20"}``."""
    def act(current: Sheet):  # noqa: ANN202
        rng = str(payload.get("range", ""))
        return (*sh.fill_down(session, item_id, current, sh.parse_range(rng)), f"Filled down {rng}")
    return _range_edit(session, user, clock, item_id, payload, act)


@router.post("/sheet/{item_id}/fill-right")
def fill_right(session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, payload: dict = Body(...)):
    """Ctrl+R over a selection: ``{"sheet": name, "range": "C2:F2"}``."""
    def act(current: Sheet):  # noqa: ANN202
        rng = str(payload.get("range", ""))
        return (*sh.fill_right(session, item_id, current, sh.parse_range(rng)), f"Filled right {rng}")
    return _range_edit(session, user, clock, item_id, payload, act)


@router.post("/sheet/{item_id}/paste")
def paste(session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, payload: dict = Body(...)):
    """Ctrl+V of several cells: ``{"sheet", "at": "A2", "rows": [["a", "b"], ...], "origin"?: "D5"}``
    (``origin``: where cells copied in a workbook came from; their formulas shift)."""
    def act(current: Sheet):  # noqa: ANN202
        rows = [[str(v) for v in row] for row in payload.get("rows") or []]
        origin = sh.parse_ref(str(payload["origin"])) if payload.get("origin") else None
        at = sh.parse_ref(str(payload.get("at", "")))
        changed, text = sh.paste(session, item_id, current, at, rows, origin)
        return changed, text, f"Pasted {len(rows)} rows at {sh.ref_name(*at)}"
    return _range_edit(session, user, clock, item_id, payload, act)


# -- charts ---------------------------------------------------------------------------------------
@router.post("/sheet/{item_id}/charts")
def insert_chart(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, sheet: str = Form(""),
                 source: str = Form("", alias="range"), kind: str = Form("column"), title: str = Form("")):
    """Insert > Chart over the selected range: the chart lands beside its data, titled by its series
    (one series) or "Chart Title"."""
    item, current, back = _sheet_form(session, user, item_id, sheet)
    try:
        source, kind = ch.check_source(source), ch.check_kind(kind)
        data = ch.read(ch.sheet_values(session, current.id), source)
        if not any(v is not None for s in data.series for v in s.values):
            raise sh.SheetError("The selected range has no numbers to chart. Select the data with its labels, like A1:B7.")
    except sh.SheetError as exc:
        return redirect(request, back, toast=str(exc), kind="error")
    chart = Chart(item_id=item.id, sheet_id=current.id, kind=kind, source=source, title=(title.strip() or ch.default_title(data))[:120],
                  anchor=ch.anchor_beside(source), created_by_id=user.id, created_at=clock.now)
    session.add(chart)
    lib.touch(session, user, clock.now, item, f"Inserted a {ch.kind_label(kind).lower()} chart of {source}")
    session.commit()
    return redirect(request, back)


def _chart(session, user, item_id: int, chart_id: int):  # noqa: ANN001, ANN202
    item, _role = require(session, user, item_id, "edit")
    chart = session.get(Chart, chart_id)
    if chart is None or chart.item_id != item.id:
        raise HTTPException(404, "This chart isn't in the workbook any more.")
    current = session.get(Sheet, chart.sheet_id)
    return item, chart, f"/sheet/{item.id}?s={quote(current.name)}"


@router.post("/sheet/{item_id}/charts/{chart_id}")
def edit_chart(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, chart_id: int, title: str = Form(""),
               kind: str = Form(""), source: str = Form("", alias="range")):
    """Chart settings: Chart Title, Change Chart Type, Select Data (the range)."""
    item, chart, back = _chart(session, user, item_id, chart_id)
    try:
        chart.kind = ch.check_kind(kind or chart.kind)
        chart.source = ch.check_source(source) if source.strip() else chart.source
    except sh.SheetError as exc:
        return redirect(request, back, toast=str(exc), kind="error")
    chart.title = title.strip()[:120]
    session.add(chart)
    lib.touch(session, user, clock.now, item, "Edited a chart", new_version=False)
    session.commit()
    return redirect(request, back)


@router.post("/sheet/{item_id}/charts/{chart_id}/move")
def move_chart(session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, chart_id: int, payload: dict = Body(...)):
    """A chart dragged to another place: ``{"anchor": "H4"}`` (the cell under its top-left corner)."""
    item, chart, _back = _chart(session, user, item_id, chart_id)
    try:
        r, c = sh.parse_ref(str(payload.get("anchor", "")).upper())
    except ValueError as exc:
        return JSONResponse({"detail": str(exc)}, status_code=422)
    chart.anchor = sh.ref_name(r, c)
    session.add(chart)
    lib.touch(session, user, clock.now, item, "Moved a chart", new_version=False)
    session.commit()
    return {"id": chart.id, "anchor": chart.anchor}


@router.post("/sheet/{item_id}/charts/{chart_id}/delete")
def delete_chart(request: Request, session: SessionDep, user: CurrentUser, clock: ClockDep, item_id: int, chart_id: int):
    item, chart, back = _chart(session, user, item_id, chart_id)
    session.delete(chart)
    lib.touch(session, user, clock.now, item, "Deleted a chart", new_version=False)
    session.commit()
    return redirect(request, back, toast="Chart deleted.")

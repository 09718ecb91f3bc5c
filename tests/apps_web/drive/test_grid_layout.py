"""The grid's column widths, set by the server per column (the browser lays the grid out with them)."""

from __future__ import annotations

from apps_web.drive.sheets import DEFAULT_COL_PX, MAX_COL_PX, GridCell, column_widths, grid_style


def cell(row: int, col: int, value: str) -> GridCell:
    return GridCell(row, col, "", value, value, None, None)


def test_columns_wider_than_the_default_for_their_longest_value_up_to_the_limit() -> None:
    cells = [cell(1, 1, "No."), cell(2, 1, "12"), cell(1, 2, "Counterparty"), cell(2, 2, "Maynard Murphy and Co"),
             cell(1, 3, "x" * 200)]
    widths = column_widths(cells)
    assert 1 not in widths  # short values keep the default width
    assert DEFAULT_COL_PX < widths[2] < MAX_COL_PX
    assert widths[3] == MAX_COL_PX  # longer text is cut with an ellipsis
    grid = {"widths": widths, "header_width": 38}
    css = str(grid_style(grid))
    assert css.startswith(".grid tr>:first-child{width:38px}")
    # column B is the third child of a row (after the row number)
    assert f".grid tr>:nth-child(3){{width:{widths[2]}px}}" in css and ":nth-child(2)" not in css

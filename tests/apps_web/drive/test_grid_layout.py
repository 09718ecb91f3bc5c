"""The grid's column widths, set by the server per column (the browser lays the grid out with them), its
clipping of long values and its gridlines."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from apps_web.drive.sheets import DEFAULT_COL_PX, MAX_COL_PX, GridCell, column_widths, grid_style

from .conftest import client_for, my_root, signed_in_page, user


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


@pytest.mark.browser
def test_only_text_wider_than_its_column_is_clipped_and_gridlines_are_drawn(browser, live_host, world) -> None:
    """A long value is cut with an ellipsis at its column's edge (the widest column is 240 px); short values
    and numbers are not clipped (no clip per cell); the gridlines fall on every cell's right and bottom
    edge; an edit that makes a value long clips it."""
    me = user(world, "sales_rep", 4)
    long = "Renewal depends on the procurement review that the customer has scheduled for next quarter"
    with client_for(live_host, world, me[1]) as api:
        wb = api.post("/api/items", json={"parent_id": my_root(world, me[0]), "kind": "sheet", "name": "Clip Check"}).json()["id"]
        edits = [("A1", "Account"), ("B1", "Amount"), ("C1", "Notes"), ("A2", "Globex"), ("B2", "125000"), ("C2", long)]
        assert api.patch(f"/api/sheets/{wb}/cells", json={"edits": [{"sheet": "Sheet1", "ref": r, "input": v} for r, v in edits]}).status_code == 200
    with signed_in_page(browser, live_host, world, me[1]) as (_context, page):
        page.goto(live_host.url("drive", f"/sheet/{wb}"))
        grid = page.get_by_role("grid")
        cell = lambda ref: grid.locator(f"td[data-ref={ref}]")  # noqa: E731
        overflow = "(td) => [getComputedStyle(td).overflowX, getComputedStyle(td).textOverflow, td.scrollWidth > td.clientWidth]"
        assert cell("C2").evaluate(overflow) == ["hidden", "ellipsis", True]
        box = cell("C2").bounding_box()
        assert box["width"] == MAX_COL_PX
        for ref in ("A2", "B2", "C1", "D2"):
            assert cell(ref).evaluate(overflow)[0] == "visible", ref
        # Gridlines: the last pixel column and row of B2 are the grid's line colour, its inside is white.
        b2 = cell("B2").bounding_box()
        png = page.screenshot(clip={"x": b2["x"], "y": b2["y"], "width": b2["width"], "height": b2["height"]})
        from io import BytesIO

        from PIL import Image

        img = Image.open(BytesIO(png)).convert("RGB")
        w, h = img.size
        line = (0xE1, 0xDF, 0xDD)
        assert img.getpixel((w - 1, h // 2)) == line and img.getpixel((4, h - 1)) == line
        assert img.getpixel((2, 2)) == (255, 255, 255)
        # An edit that makes a value long clips it; one that makes it short again does not.
        cell("A2").click()
        page.keyboard.type(long)
        page.keyboard.press("Enter")
        expect(cell("A2")).to_have_text(long)
        expect(grid).not_to_have_attribute("data-busy", "1")
        assert cell("A2").evaluate(overflow)[:2] == ["hidden", "ellipsis"]
        cell("A2").click()
        page.keyboard.type("Initech")
        page.keyboard.press("Enter")
        expect(cell("A2")).to_have_text("Initech")
        expect(grid).not_to_have_attribute("data-busy", "1")
        assert cell("A2").evaluate(overflow)[0] == "visible"

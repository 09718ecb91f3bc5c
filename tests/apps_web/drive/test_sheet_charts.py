"""Charts, Fill Right and sheet deletion in the workbook, in real Chromium, each step checked in the
world's database: Insert > Chart over a selected range (stored in drive_chart: kind, range, title,
anchor), drawn from the computed values with each bar's exact value as its tooltip and accessible name,
drawn again when a cell of its range changes, edited, dragged to another cell and deleted; Ctrl+R
fills right (relative columns shift); deleting a sheet turns references to it into #REF!."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import client_for, my_root, rows, user

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def me(world):
    return user(world, "sales_rep", 6)


def cells(world, item_id: int, sheet: str) -> dict[str, tuple]:
    return {ref: (inp, val) for ref, inp, val in rows(
        world, "SELECT c.ref, c.input, c.value FROM drive_cell c JOIN drive_sheet s ON s.id = c.sheet_id WHERE c.item_id = ? AND s.name = ?", item_id, sheet)}


def idle(page: Page) -> None:
    expect(page.get_by_role("grid")).not_to_have_attribute("data-busy", "1")
    expect(page.locator("#save-state")).to_have_text("Saved")


def workbook(live_host, world, me, name: str, edits: list[tuple[str, str, str]]) -> int:
    with client_for(live_host, world, me[1]) as api:
        wb = api.post("/api/items", json={"parent_id": my_root(world, me[0]), "kind": "sheet", "name": name}).json()["id"]
        r = api.patch(f"/api/sheets/{wb}/cells", json={"edits": [{"sheet": s, "ref": ref, "input": v} for s, ref, v in edits]})
        assert r.status_code == 200, r.text
    return wb


def test_column_chart_from_a_range(page: Page, live_host, world, me) -> None:
    data = [("Region", "Q1", "Q2"), ("East", "1250", "900"), ("West", "=B2*2", "1400"), ("North", "800", "650.5")]
    wb = workbook(live_host, world, me, "Regional Sales", [("Sheet1", f"{c}{r}", v) for r, row in enumerate(data, 1) for c, v in zip("ABC", row)])
    page.goto(live_host.url("drive", f"/sheet/{wb}"))
    grid = page.get_by_role("grid")
    page.get_by_label("Name Box").fill("A1:C4")
    page.keyboard.press("Enter")
    expect(grid).to_have_attribute("data-selection", "A1:C4")
    page.get_by_role("toolbar", name="Data").get_by_role("button", name="Insert Chart").click()
    page.get_by_role("menu", name="Insert Chart").get_by_role("menuitem", name="Clustered Column").click()
    chart = page.get_by_role("figure", name="Chart: Chart Title")
    expect(chart).to_be_visible()
    assert rows(world, "SELECT kind, source, title, anchor FROM drive_chart WHERE item_id = ?", wb) == [("column", "A1:C4", "Chart Title", "E1")]
    # Each bar carries its exact value (computed: West's Q1 is =B2*2), and the legend names the series.
    expect(chart.get_by_role("img", name='Series "Q1" Point "West" Value: 2,500')).to_have_count(1)
    expect(chart.get_by_role("img", name='Series "Q2" Point "North" Value: 650.5')).to_have_count(1)
    expect(chart.locator(".chart-point")).to_have_count(6)
    assert chart.bounding_box()["x"] > grid.locator("td[data-ref=D1]").bounding_box()["x"]
    # A cell of the range changes: the chart is drawn again from the new value.
    grid.locator("td[data-ref=B2]").click()
    page.keyboard.type("3000")
    page.keyboard.press("Enter")
    expect(chart.get_by_role("img", name='Series "Q1" Point "West" Value: 6,000')).to_have_count(1)
    idle(page)
    # Chart settings: title, type and range.
    chart.hover()
    chart.get_by_role("button", name="Edit chart Chart Title").click()
    dialog = page.get_by_role("dialog", name="Chart settings")
    dialog.get_by_label("Chart title").fill("Sales by Region")
    dialog.get_by_label("Chart type").select_option(label="Clustered Bar")
    dialog.get_by_label("Chart data range").fill("A1:B4")
    dialog.get_by_role("button", name="OK").click()
    chart = page.get_by_role("figure", name="Chart: Sales by Region")
    expect(chart.locator(".chart-point")).to_have_count(3)
    assert rows(world, "SELECT kind, source, title FROM drive_chart WHERE item_id = ?", wb) == [("bar", "A1:B4", "Sales by Region")]
    # A bad range is refused with a message; the chart keeps its range.
    chart.hover()
    chart.get_by_role("button", name="Edit chart Sales by Region").click()
    dialog.get_by_label("Chart data range").fill("B7")
    dialog.get_by_role("button", name="OK").click()
    expect(page.locator(".toast")).to_contain_text("more than one cell")
    assert rows(world, "SELECT source FROM drive_chart WHERE item_id = ?", wb) == [("A1:B4",)]
    # Drag it so its corner lands on B8: the anchor follows.
    chart = page.get_by_role("figure", name="Chart: Sales by Region")
    box, target = chart.bounding_box(), grid.locator("td[data-ref=B8]").bounding_box()
    page.mouse.move(box["x"] + 40, box["y"] + 60)
    page.mouse.down()
    page.mouse.move(target["x"] + 45, target["y"] + 65, steps=5)
    page.mouse.up()
    expect(chart).to_have_attribute("data-anchor", "B8")
    idle(page)
    assert rows(world, "SELECT anchor FROM drive_chart WHERE item_id = ?", wb) == [("B8",)]
    page.reload()
    chart = page.get_by_role("figure", name="Chart: Sales by Region")
    assert abs(chart.bounding_box()["x"] - grid.locator("td[data-ref=B8]").bounding_box()["x"]) < 2
    # The sheet API and the .xlsx export carry it.
    with client_for(live_host, world, me[1]) as api:
        got = api.get(f"/api/sheets/{wb}").json()["sheets"][0]["charts"]
        assert [(c["kind"], c["range"], c["title"], c["anchor"]) for c in got] == [("bar", "A1:B4", "Sales by Region", "B8")]
        assert got[0]["categories"] == ["East", "West", "North"] and got[0]["series"] == [{"name": "Q1", "values": [3000, 6000, 800]}]
        xlsx = api.get(f"/files/{wb}/download").content
    from io import BytesIO

    from openpyxl import load_workbook
    from openpyxl.chart import BarChart

    ws = load_workbook(BytesIO(xlsx)).active
    assert len(ws._charts) == 1 and isinstance(ws._charts[0], BarChart) and ws._charts[0].type == "bar"
    # Select the chart and press Delete.
    chart.focus()
    page.keyboard.press("Delete")
    expect(page.locator(".toast")).to_contain_text("Chart deleted")
    expect(page.get_by_role("figure")).to_have_count(0)
    assert not rows(world, "SELECT id FROM drive_chart WHERE item_id = ?", wb)


def test_pie_and_line_and_refusals(page: Page, live_host, world, me) -> None:
    wb = workbook(live_host, world, me, "Headcount Mix", [("Sheet1", r, v) for r, v in (
        ("A1", "Team"), ("B1", "People"), ("A2", "Sales"), ("B2", "12"), ("A3", "Support"), ("B3", "6"), ("A4", "IT"), ("B4", "2"), ("A8", "Notes"), ("A9", "Hiring"))])
    page.goto(live_host.url("drive", f"/sheet/{wb}"))
    grid = page.get_by_role("grid")
    grid.locator("td[data-ref=A1]").click()
    grid.locator("td[data-ref=B4]").click(modifiers=["Shift"])
    page.get_by_role("toolbar", name="Data").get_by_role("button", name="Insert Chart").click()
    page.get_by_role("menu", name="Insert Chart").get_by_role("menuitem", name="Pie").click()
    chart = page.get_by_role("figure", name="Chart: People")
    expect(chart.get_by_role("img", name='Series "People" Point "Support" Value: 6')).to_have_count(1)
    expect(chart.locator("path.chart-point")).to_have_count(3)
    # A range without numbers is refused.
    grid.locator("td[data-ref=A8]").click()
    grid.locator("td[data-ref=A10]").click(modifiers=["Shift"])
    page.get_by_role("toolbar", name="Data").get_by_role("button", name="Insert Chart").click()
    page.get_by_role("menu", name="Insert Chart").get_by_role("menuitem", name="Line").click()
    expect(page.locator(".toast")).to_contain_text("no numbers to chart")
    assert rows(world, "SELECT kind, source, title FROM drive_chart WHERE item_id = ?", wb) == [("pie", "A1:B4", "People")]
    # A copy of the workbook (Copy to) carries its chart, on the copy's own sheet.
    with client_for(live_host, world, me[1], accept="text/html") as http:
        assert http.post(f"/files/{wb}/copy", data={"target": str(my_root(world, me[0]))}, follow_redirects=False).status_code == 303
    copy = world.one("SELECT id FROM drive_item WHERE name LIKE 'Headcount Mix%' AND id != ? ORDER BY id DESC", wb)[0]
    assert rows(world, "SELECT c.kind, c.source, c.title, s.item_id FROM drive_chart c JOIN drive_sheet s ON s.id = c.sheet_id WHERE c.item_id = ?", copy) == [
        ("pie", "A1:B4", "People", copy)]
    # The same drawing twice (deterministic).
    page.reload()
    first = page.locator(".chart-body").inner_html()
    page.reload()
    assert page.locator(".chart-body").inner_html() == first


def test_fill_right_and_deleted_sheet_becomes_ref(page: Page, live_host, world, me) -> None:
    wb = workbook(live_host, world, me, "Quarterly Plan", [
        ("Sheet1", "A1", "Units"), ("Sheet1", "B1", "10"), ("Sheet1", "C1", "20"), ("Sheet1", "D1", "30"),
        ("Sheet1", "A2", "Revenue"), ("Sheet1", "B2", "=B1*$A$5"), ("Sheet1", "A5", "4")])
    with client_for(live_host, world, me[1]) as api:
        assert api.post(f"/sheet/{wb}/sheets", data={"name": "Inputs"}, follow_redirects=False).status_code == 303
        api.patch(f"/api/sheets/{wb}/cells", json={"edits": [{"sheet": "Inputs", "ref": "A1", "input": "7"},
                                                              {"sheet": "Sheet1", "ref": "A3", "input": "=SUM(Inputs!A1:A3)+Inputs!A1"}]})
    page.goto(live_host.url("drive", f"/sheet/{wb}"))
    grid = page.get_by_role("grid")
    expect(grid.locator("td[data-ref=A3]")).to_have_text("14")
    # Ctrl+R over B2:D2: B2's formula is copied right, its relative column shifting.
    grid.locator("td[data-ref=B2]").click()
    grid.locator("td[data-ref=D2]").click(modifiers=["Shift"])
    page.keyboard.press("Control+r")
    expect(grid.locator("td[data-ref=D2]")).to_have_text("120")
    idle(page)
    got = cells(world, wb, "Sheet1")
    assert got["C2"] == ("=C1*$A$5", "80") and got["D2"] == ("=D1*$A$5", "120")
    # Ctrl+R on one cell takes the cell on its left.
    grid.locator("td[data-ref=E2]").click()
    page.keyboard.press("Control+r")
    expect(grid.locator("td[data-ref=E2]")).to_have_text("0")
    idle(page)
    assert cells(world, wb, "Sheet1")["E2"] == ("=E1*$A$5", "0")
    # Delete the sheet Inputs: the formula that read it is rewritten with #REF! and shows #REF!.
    tabs = page.get_by_role("navigation", name="Sheets")
    tabs.get_by_role("link", name="Inputs").click(button="right")
    page.get_by_role("menu", name="Sheet options").get_by_role("menuitem", name="Delete").click()
    page.get_by_role("dialog", name="Delete sheet").get_by_role("button", name="Delete").click()
    expect(page.locator(".toast")).to_contain_text("Deleted sheet “Inputs”")
    expect(grid.locator("td[data-ref=A3]")).to_have_text("#REF!")
    assert cells(world, wb, "Sheet1")["A3"] == ("=SUM(#REF!A1:A3)+#REF!A1", "#REF!")
    assert world.one("SELECT error FROM drive_cell WHERE item_id = ? AND ref = 'A3'", wb)[0] == "#REF!"
    grid.locator("td[data-ref=A3]").click()
    expect(page.get_by_label("Formula Bar")).to_have_value("=SUM(#REF!A1:A3)+#REF!A1")

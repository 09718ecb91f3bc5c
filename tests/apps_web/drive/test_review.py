"""Reviewing a document in real Chromium, checked in the database: Find and Replace (Ctrl+H, match
case, Replace All) saved as blocks, and suggestions (track changes) made from a selection, accepted
into the paragraph or rejected."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from .conftest import client_for, my_root, rows, user

pytestmark = pytest.mark.browser

BLOCKS = [
    {"style": "Title", "runs": [{"text": "Order Form"}]},
    {"style": "Heading 1", "runs": [{"text": "Payment terms"}]},
    {"style": "Normal", "runs": [{"text": "Payment is due within "}, {"text": "30 Days", "bold": True}, {"text": " of invoice; interest accrues after 30 days."}]},
    {"style": "Normal", "runs": [{"text": "The Customer may terminate this Order for convenience on notice."}]},
]


@pytest.fixture(scope="module")
def me(world):
    return user(world, "sales_rep", 2)


@pytest.fixture(scope="module")
def doc(live_host, world, me):
    with client_for(live_host, world, me[1]) as http:
        item = http.post("/api/items", json={"parent_id": my_root(world, me[0]), "kind": "document", "name": "Order Form - terms"}).json()
        assert http.put(f"/api/documents/{item['id']}", json={"blocks": BLOCKS}).status_code == 200
    return item["id"]


def texts(world, doc: int) -> list[str]:
    return [t for (t,) in rows(world, "SELECT text FROM drive_block WHERE item_id = ? ORDER BY position", doc)]


def test_find_and_replace_match_case(page: Page, live_host, world, doc) -> None:
    page.goto(live_host.url("drive", f"/doc/{doc}"))
    page.locator(".ql-editor").click()
    page.keyboard.press("Control+h")
    dlg = page.get_by_role("dialog", name="Find and Replace")
    dlg.get_by_label("Find what").fill("30 days")
    dlg.get_by_label("Replace with").fill("45 days")
    dlg.get_by_label("Match case").check()
    dlg.get_by_role("button", name="Replace All").click()
    expect(dlg.get_by_role("status")).to_have_text("We replaced 1 occurrence.")  # "30 Days" differs in case
    dlg.get_by_label("Match case").uncheck()
    dlg.get_by_label("Find what").fill("30 Days")
    dlg.get_by_role("button", name="Find Next").click()
    expect(dlg.get_by_role("status")).to_have_text("Match 1 of 1.")
    dlg.get_by_role("button", name="Replace", exact=True).click()
    expect(dlg.get_by_role("status")).to_contain_text("We replaced 1 occurrence")
    dlg.get_by_label("Find what").fill("sixty")
    dlg.get_by_role("button", name="Replace All").click()
    expect(dlg.get_by_role("status")).to_have_text("We couldn't find “sixty”.")
    dlg.get_by_role("button", name="Close").click()
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-state")).to_have_text("Saved")
    assert texts(world, doc)[2] == "Payment is due within 45 days of invoice; interest accrues after 45 days."
    # Saving from the editor keeps Word's Title style (Quill has no such style of its own).
    assert rows(world, "SELECT style FROM drive_block WHERE item_id = ? AND position < 2 ORDER BY position", doc) == [("Title",), ("Heading 1",)]
    runs = json.loads(world.one("SELECT runs FROM drive_block WHERE item_id = ? AND position = 2", doc)[0])
    assert {"text": "45 days", "bold": True} in runs  # the replacement keeps the replaced text's bold


def test_suggestions_accept_and_reject(page: Page, live_host, world, me, doc) -> None:
    page.goto(live_host.url("drive", f"/doc/{doc}"))
    page.locator(".ql-editor").click()
    # Select "convenience" with Find, then suggest replacing it.
    page.keyboard.press("Control+f")
    dlg = page.get_by_role("dialog", name="Find and Replace")
    dlg.get_by_label("Find what").fill("convenience")
    dlg.get_by_role("button", name="Find Next").click()
    dlg.get_by_role("button", name="Close").click()
    page.get_by_role("button", name="Suggest edit").click()
    sdlg = page.get_by_role("dialog", name="Suggest an edit")
    expect(sdlg.get_by_label("Selected text")).to_have_value("convenience")
    sdlg.get_by_label("Replace with").fill("material breach")
    sdlg.get_by_role("button", name="Suggest").click()
    expect(page.locator(".toast")).to_contain_text("Suggestion added")
    assert world.one("SELECT block_position, offset, anchor, text, status FROM drive_suggestion WHERE item_id = ?", doc) == (
        3, 42, "convenience", "material breach", "open")
    assert texts(world, doc)[3].endswith("for convenience on notice.")  # a suggestion changes nothing yet
    # A second suggestion (a deletion), then accept the first and reject the second.
    page.locator(".ql-editor").click()
    page.keyboard.press("Control+f")
    dlg.get_by_label("Find what").fill(" on notice")
    dlg.get_by_role("button", name="Find Next").click()
    dlg.get_by_role("button", name="Close").click()
    page.get_by_role("button", name="Suggest edit").click()
    sdlg.get_by_role("button", name="Suggest").click()
    expect(page.locator(".toast")).to_contain_text("Suggestion added")
    pane = page.get_by_role("region", name="Suggestions")
    expect(pane.get_by_role("article")).to_have_count(2)
    pane.get_by_role("article", name="Suggestion: Replace “convenience” with “material breach”").get_by_role("button", name="Accept").click()
    expect(page.locator(".toast")).to_contain_text("Suggestion accepted")
    assert texts(world, doc)[3] == "The Customer may terminate this Order for material breach on notice."
    page.get_by_role("article", name="Suggestion: Delete “ on notice”").get_by_role("button", name="Reject").click()
    expect(page.locator(".toast")).to_contain_text("Suggestion rejected")
    assert texts(world, doc)[3] == "The Customer may terminate this Order for material breach on notice."
    got = rows(world, "SELECT anchor, status, resolved_by_id FROM drive_suggestion WHERE item_id = ? ORDER BY id", doc)
    assert got == [("convenience", "accepted", me[0]), (" on notice", "rejected", me[0])]
    expect(page.get_by_role("region", name="Suggestions")).to_have_count(0)


def test_list_and_tiles_views(page: Page, live_host, world, me) -> None:
    page.goto(live_host.url("drive", "/my"))
    expect(page.get_by_role("table", name="Files")).to_be_visible()
    page.get_by_role("button", name="View options").click()
    page.get_by_role("menuitemradio", name="Tiles").click()
    tiles = page.get_by_role("list", name="Files")
    expect(tiles).to_be_visible()
    names = [n for (n,) in rows(world, "SELECT name FROM drive_item WHERE parent_id = ? AND deleted_at IS NULL", my_root(world, me[0]))]
    expect(tiles.get_by_role("listitem")).to_have_count(len(names))
    # The choice is remembered; a tile's menu works as the row's does.
    page.goto(live_host.url("drive", "/my"))
    expect(page.get_by_role("list", name="Files")).to_be_visible()
    page.get_by_role("button", name="More actions for Meeting notes.docx").click()
    page.get_by_role("menuitem", name="Rename").click()
    page.get_by_role("dialog").get_by_label("Name").fill("Team meeting notes")
    page.get_by_role("dialog").get_by_role("button", name="Rename").click()
    expect(page.get_by_role("list", name="Files").get_by_role("link", name="Team meeting notes.docx")).to_be_visible()
    assert world.one("SELECT count(*) FROM drive_item WHERE parent_id = ? AND name = 'Team meeting notes'", my_root(world, me[0]))[0] == 1
    page.get_by_role("button", name="View options").click()
    page.get_by_role("menuitemradio", name="List").click()
    expect(page.get_by_role("table", name="Files")).to_be_visible()

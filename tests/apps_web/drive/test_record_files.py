"""The CRM's "Files" related list in real Chromium, checked in the database: Add Files on an
opportunity links a drive file the rep can see (drive_record_link, logged in the file's activity),
the list opens the file in the drive, a file the rep can't see or one already attached is refused,
Remove from Record unlinks it; accounts have the same list."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import rows, signed_in_page

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def proposal(world):
    """(opportunity id, account id, owner username, proposal item id, proposal name) of a rep's open deal."""
    return world.one(
        "SELECT o.id, o.account_id, u.username, i.id, i.name FROM drive_item i JOIN crm_opportunity o ON o.id = i.crm_opportunity_id "
        "JOIN identity_user u ON u.id = o.owner_id WHERE i.kind = 'document' AND i.deleted_at IS NULL AND i.owner_id = o.owner_id ORDER BY o.id LIMIT 1")


@pytest.fixture(scope="module")
def page(browser, live_host, world, proposal):
    with signed_in_page(browser, live_host, world, proposal[2]) as (_context, page):
        yield page


def test_add_open_and_remove_files_on_an_opportunity(page: Page, live_host, world, proposal) -> None:
    opp_id, account_id, _owner, item_id, name = proposal
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}?tab=related"))
    expect(page.get_by_role("heading", name="Files (0)")).to_be_visible()
    page.get_by_role("button", name="Add Files").click()
    dialog = page.get_by_role("dialog", name="Select Files")
    dialog.get_by_role("button", name="Add").click()  # nothing chosen
    expect(page.get_by_role("dialog", name="Select Files")).to_contain_text("Complete this field.")
    dialog.get_by_role("combobox", name="File").fill(name[:12])
    dialog.get_by_role("option", name=re.compile("^" + re.escape(name))).first.click()
    dialog.get_by_role("button", name="Add").click()
    expect(page.locator(".toast")).to_contain_text("1 file was added to the Opportunity.")
    expect(page.get_by_role("heading", name="Files (1)")).to_be_visible()
    assert rows(world, "SELECT item_id, app, object_type, record_id FROM drive_record_link") == [(item_id, "crm", "opportunity", opp_id)]
    assert world.one("SELECT action FROM drive_activity WHERE item_id = ? ORDER BY id DESC", item_id)[0] == "linked"
    # The same file again is refused.
    page.get_by_role("button", name="Add Files").click()
    dialog.get_by_role("combobox", name="File").fill(name[:12])
    dialog.get_by_role("option", name=re.compile("^" + re.escape(name))).first.click()
    dialog.get_by_role("button", name="Add").click()
    expect(page.get_by_role("dialog", name="Select Files")).to_contain_text(f"{name} is already attached to this record.")
    assert len(rows(world, "SELECT id FROM drive_record_link")) == 1
    # The list's link opens the file in the drive.
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}?tab=related"))
    page.get_by_role("article", name="Files").get_by_role("link", name=name).click()
    expect(page).to_have_url(re.compile(rf"drive\.localhost.*/doc/{item_id}"))
    # A file the rep can't see is not offered, and posting its id is refused.
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}?tab=related"))
    hidden = world.one("SELECT i.id FROM drive_item i JOIN drive_site s ON s.id = i.site_id WHERE s.kind = 'dataroom' AND i.kind = 'document' ORDER BY i.id")[0]
    status, text = page.evaluate("""async ([url, id]) => { const r = await fetch(url, { method: "POST", body: new URLSearchParams({ item_id: id }) });
                                     return [r.status, await r.text()]; }""", [f"/opportunities/{opp_id}/files", str(hidden)])
    assert status == 422 and "Select a file from the list." in text
    # Remove from Record.
    page.get_by_role("button", name=f"Remove {name} from Record").click()
    expect(page.get_by_role("heading", name="Files (0)")).to_be_visible()
    assert not rows(world, "SELECT id FROM drive_record_link")
    # Accounts have the list too.
    page.goto(live_host.url("crm", f"/accounts/{account_id}?tab=related"))
    expect(page.get_by_role("heading", name="Files (0)")).to_be_visible()

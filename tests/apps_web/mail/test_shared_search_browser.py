"""Search in a shared mailbox, in real Chromium against the real host: a member searching while in
support@ finds support@'s messages (not their own), opens one from the results; the JSON API lists
and searches a shared mailbox for its members and answers 404 to anyone else."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from .conftest import mailbox_of
from .test_api import client_for

pytestmark = pytest.mark.browser


def test_member_searches_a_shared_mailbox_and_the_api_lists_it_for_members_only(browser, live_host, world) -> None:
    agent = mailbox_of(world, "support_agent")
    support_id, support = world.one("SELECT id, address FROM mail_mailbox WHERE kind = 'shared' AND address LIKE 'support@%'")
    deleted = world.one("SELECT id FROM mail_folder WHERE mailbox_id = ? AND kind = 'deleted'", support_id)[0]
    # a customer who wrote to support@ more than once, and never to the agent's own mailbox
    customer, expected = world.one(
        "SELECT from_address, count(*) FROM mail_message m WHERE mailbox_id = ? AND folder_id != ? AND NOT is_draft AND from_address NOT LIKE 'support@%' "
        "AND NOT EXISTS (SELECT 1 FROM mail_message o WHERE o.mailbox_id = ? AND o.from_address = m.from_address) "
        "GROUP BY from_address HAVING count(*) > 1 ORDER BY count(*) DESC, from_address", support_id, deleted, agent.id)
    newest_id, newest_subject = world.one(
        "SELECT id, subject FROM mail_message WHERE mailbox_id = ? AND folder_id != ? AND NOT is_draft AND from_address = ? "
        "ORDER BY sent_at DESC, id DESC", support_id, deleted, customer)
    context = live_host.new_context(browser, world, agent.username)
    page = context.new_page()
    try:
        page.goto(live_host.url("mail", f"/mail/{support}/inbox"))
        box = page.get_by_role("searchbox", name="Search")
        box.fill(f"from:{customer}")
        box.press("Enter")
        page.wait_for_url(re.compile(re.escape(f"/mail/{support}/search?q=") + re.escape(quote(f"from:{customer}", safe=""))))
        expect(page.locator("#list-summary")).to_have_text(f"{expected} items")
        results = page.get_by_role("list", name="Messages")
        expect(results.get_by_role("link", name=newest_subject, exact=True).first).to_be_visible()
        # open the newest result: it reads in the shared mailbox, marked read there
        results.get_by_role("link", name=newest_subject, exact=True).first.click()
        page.wait_for_url(re.compile(re.escape(f"/mail/{support}/search/id/{newest_id}?q=")))
        expect(page.get_by_role("article").first).to_contain_text(newest_subject)
        assert world.one("SELECT is_read FROM mail_message WHERE id = ?", newest_id)[0] == 1
        # the same words in one's own mailbox find none of support@'s messages
        page.goto(live_host.url("mail", "/mail/inbox"))
        page.get_by_role("searchbox", name="Search").fill(f"from:{customer}")
        page.get_by_role("searchbox", name="Search").press("Enter")
        page.wait_for_url(re.compile(r"/mail/search\?q="))
        expect(page.locator("#list-summary")).to_have_text("0 items")
    finally:
        context.close()
    # The API: a member lists and searches the shared mailbox; its folders too
    with client_for(live_host, world, agent.username) as api:
        found = api.get("/api/messages", params={"mailbox": support, "q": f"from:{customer}"}).json()
        assert found["total"] == expected and {i["from"]["address"] for i in found["items"]} == {customer}
        assert found["items"][0]["id"] == newest_id
        inbox = api.get("/api/messages", params={"mailbox": support, "folder": "inbox"}).json()
        assert inbox["total"] == world.one("SELECT count(*) FROM mail_message m JOIN mail_folder f ON f.id = m.folder_id "
                                           "WHERE m.mailbox_id = ? AND f.kind = 'inbox'", support_id)[0]
        assert {f["slug"] for f in api.get("/api/folders", params={"mailbox": support}).json()} >= {"inbox", "sentitems"}
        assert api.get("/api/messages", params={"q": f"from:{customer}"}).json()["total"] == 0  # one's own mailbox by default
    # ... and anyone else gets a 404, for the list, the search and the folders alike
    rep = mailbox_of(world, "sales_rep")
    with client_for(live_host, world, rep.username) as api:
        for params in ({"mailbox": support}, {"mailbox": support, "q": f"from:{customer}"}):
            assert api.get("/api/messages", params=params).status_code == 404
        assert api.get("/api/folders", params={"mailbox": support}).status_code == 404
        assert api.get(f"/mail/{support}/search", params={"q": f"from:{customer}"}).status_code == 404

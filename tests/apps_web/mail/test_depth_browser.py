"""Shared mailboxes, signatures, attachments and one occurrence of a series, in real Chromium against
the real host, each step checked in the world database."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import mailbox_of
from .test_api import client_for

pytestmark = pytest.mark.browser


def _shared(world, local: str) -> tuple[int, str]:
    return world.one("SELECT id, address FROM mail_mailbox WHERE kind = 'shared' AND address LIKE ?", f"{local}@%")


def test_shared_mailbox_reply_as_the_shared_address_and_send_as_denied(browser, live_host, world) -> None:
    agent = mailbox_of(world, "support_agent")
    support_id, support = _shared(world, "support")
    _, billing = _shared(world, "billing")
    assert world.one("SELECT count(*) FROM mail_mailbox_member WHERE mailbox_id = ? AND user_id = ?", support_id, agent.user_id)[0] == 1
    context = live_host.new_context(browser, world, agent.username)
    page = context.new_page()
    try:
        page.goto(live_host.url("mail", "/mail/inbox"))
        pane = page.get_by_role("navigation", name="Customer Support")
        expect(pane.get_by_role("heading", name="Customer Support")).to_be_visible()
        expect(page.get_by_role("navigation", name="Billing")).to_have_count(0)  # not a member of billing@
        pane.get_by_role("link", name="Inbox").click()
        expect(page).to_have_url(re.compile(re.escape(f"/mail/{support}/inbox")))
        inbox = world.one("SELECT id FROM mail_folder WHERE mailbox_id = ? AND kind = 'inbox'", support_id)[0]
        total = world.one("SELECT count(*) FROM mail_message WHERE folder_id = ?", inbox)[0]
        expect(page.locator("#list-summary")).to_have_text(f"{total} items")
        mid, subject, customer = world.one("SELECT id, subject, from_address FROM mail_message WHERE folder_id = ? AND crm_case_id IS NOT NULL "
                                           "ORDER BY sent_at DESC LIMIT 1", inbox)
        page.get_by_role("list", name="Messages").get_by_role("link", name=subject, exact=True).first.click()
        page.get_by_role("group", name="Message actions").get_by_role("button", name="Reply", exact=True).click()
        compose = page.get_by_role("form", name="Reply")
        expect(compose.get_by_role("combobox", name="From")).to_have_value(support)  # a reply in a shared mailbox goes out from it
        compose.get_by_role("textbox", name="Message body").click()
        page.keyboard.type("We are on it and will call you today.")
        compose.get_by_role("button", name="Send").click()
        expect(page.get_by_role("status")).to_contain_text("Sent")
        sent = world.one("SELECT m.mailbox_id, f.kind, m.from_address, m.reply_to_message_id FROM mail_message m JOIN mail_folder f ON f.id = m.folder_id "
                         "WHERE m.in_reply_to = (SELECT internet_message_id FROM mail_message WHERE id = ?) AND NOT m.is_draft", mid)
        assert sent == (support_id, "sent", support, mid)
        assert world.one("SELECT address FROM mail_recipient WHERE message_id = (SELECT id FROM mail_message WHERE reply_to_message_id = ?)", mid)[0] == customer
        assert world.one("SELECT count(*) FROM mail_message WHERE mailbox_id = ? AND reply_to_message_id = ?", agent.id, mid)[0] == 0
        # Send As another shared mailbox the agent is not a member of: Outlook's refusal, nothing sent, nothing lost.
        page.goto(live_host.url("mail", "/mail/compose"))
        compose = page.get_by_role("form", name="New message")
        compose.get_by_role("combobox", name="From").select_option("other")
        compose.get_by_role("textbox", name="Other email address").fill(billing)
        compose.get_by_role("combobox", name="To").fill(customer + "; ")
        compose.get_by_placeholder("Add a subject").fill("Your invoice")
        compose.get_by_role("button", name="Send").click()
        expect(page.get_by_role("alert")).to_contain_text(f"You can't send a message on behalf of \u201c{billing}\u201d")
        expect(page.get_by_placeholder("Add a subject")).to_have_value("Your invoice")
        assert world.one("SELECT count(*) FROM mail_message WHERE subject = 'Your invoice' AND NOT is_draft")[0] == 0
        # mail to the shared address lands in the shared mailbox's Inbox, unread
        with client_for(live_host, world, mailbox_of(world, "finance").username) as api:
            assert api.post("/api/messages/send", json={"to": [support], "subject": "Escalation from finance", "body": "<p>Please call them.</p>"}).status_code in (200, 201)
        assert world.one("SELECT folder_id, is_read FROM mail_message WHERE mailbox_id = ? AND subject = 'Escalation from finance'", support_id) == (inbox, 0)
        # a non-member cannot open the shared mailbox
        rep = mailbox_of(world, "sales_rep")
        with client_for(live_host, world, rep.username) as api:
            assert api.get(f"/mail/{support}/inbox").status_code == 404
    finally:
        context.close()

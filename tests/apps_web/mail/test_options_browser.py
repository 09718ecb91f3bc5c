"""Automatic replies and rules in real Chromium, checked in the database and on delivery: the
settings' validation, a rule that files and marks read what matches, and one automatic reply per
internal sender while replies are on (none once the period is over)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .test_api import client_for

pytestmark = pytest.mark.browser


def test_rules_and_automatic_replies_act_on_delivery(page: Page, live_host, world, me) -> None:
    page.goto(live_host.url("mail", "/mail/inbox"))
    page.get_by_role("link", name="Automatic replies and rules").click()
    rules = page.get_by_role("form", name="Add a new rule")
    rules.get_by_role("button", name="Save rule").click()
    expect(page.get_by_role("alert")).to_contain_text("Enter a name for the rule.")
    expect(page.get_by_role("alert")).to_contain_text("Add a condition")
    rules = page.get_by_role("form", name="Add a new rule")
    rules.get_by_label("Name your rule").fill("Weekly numbers")
    rules.get_by_label("Subject includes").fill("weekly numbers")
    rules.get_by_role("combobox", name="Move to folder").select_option(label="Archive")
    rules.get_by_label("Mark as read").check()
    rules.get_by_role("button", name="Save rule").click()
    expect(page.get_by_role("status")).to_contain_text("Rule \u201cWeekly numbers\u201d saved")
    archive = me.folder(world, "archive")
    assert world.one("SELECT subject_contains, move_to_folder_id, mark_read, flag FROM mail_rule WHERE mailbox_id = ?", me.id) == ("weekly numbers", archive, 1, 0)
    # automatic replies: bad period refused, then on from today 00:00 to tomorrow
    ar = page.get_by_role("form", name="Automatic replies")
    ar.get_by_role("switch", name="Turn on automatic replies").check()
    ar.get_by_label("Send replies only during a time period").check()
    ar.get_by_label("Start date").fill("2026-03-16")
    ar.get_by_label("Start time").fill("00:00")
    ar.get_by_label("End date").fill("2026-03-15")
    ar.get_by_label("End time").fill("09:00")
    ar.get_by_role("button", name="Save automatic replies").click()
    expect(page.get_by_role("alert")).to_contain_text("The end time must be after the start time.")
    expect(page.get_by_role("alert")).to_contain_text("Add a message to send to people inside your organization.")
    assert world.one("SELECT count(*) FROM mail_auto_reply")[0] == 0
    ar = page.get_by_role("form", name="Automatic replies")
    ar.get_by_label("End date").fill("2026-03-17")
    ar.get_by_label("Send replies inside your organization").fill("I'm at the partner summit until Tuesday. Ask Support for urgent cases.")
    ar.get_by_role("button", name="Save automatic replies").click()
    expect(page.get_by_role("status")).to_contain_text("Automatic replies are on.")
    assert world.one("SELECT enabled, scheduled, start, end FROM mail_auto_reply WHERE mailbox_id = ?", me.id) == (
        1, 1, "2026-03-16 00:00:00.000000", "2026-03-17 09:00:00.000000")
    # a colleague writes twice: the rule files the matching one, one automatic reply comes back
    sender, sender_user, sender_box = world.one("SELECT b.address, u.username, b.id FROM mail_mailbox b JOIN identity_user u ON u.id = b.user_id "
                                                "WHERE u.role = 'finance' ORDER BY u.id")
    with client_for(live_host, world, sender_user) as api:
        for subject in ("Your weekly numbers", "Lunch on Thursday?"):
            assert api.post("/api/messages/send", json={"to": [me.address], "subject": subject, "body": "<p>Hi</p>"}).status_code in (200, 201)
    filed = world.one("SELECT folder_id, is_read FROM mail_message WHERE mailbox_id = ? AND subject = 'Your weekly numbers'", me.id)
    assert filed == (archive, 1)
    assert world.one("SELECT folder_id, is_read FROM mail_message WHERE mailbox_id = ? AND subject = 'Lunch on Thursday?'", me.id) == (me.folder(world, "inbox"), 0)
    replies = world.one("SELECT count(*), min(unique_body_html) FROM mail_message WHERE mailbox_id = ? AND subject LIKE 'Automatic reply: %'", sender_box)
    assert replies[0] == 1 and "partner summit" in replies[1]

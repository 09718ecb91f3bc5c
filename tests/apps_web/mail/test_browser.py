"""The mail app in real Chromium: folders, reading, search operators, compose with type-ahead,
send delivering internally, reply, reply all, forward, drafts, the command bar; each checked in
the world's database."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser


def goto(page: Page, live_host, path: str) -> None:
    page.goto(live_host.url("mail", path))


def rows(world, sql: str, *args) -> list[tuple]:
    with world.connect() as conn:
        return conn.execute(sql, args).fetchall()


def unread_inbox(world, me) -> int:
    return world.one("SELECT count(*) FROM mail_message WHERE folder_id = ? AND NOT is_read", me.folder(world, "inbox"))[0]


def colleague(world, me, role: str = "support_agent") -> tuple[str, str, str, int]:
    """(full name, last name, address, mailbox id) of a colleague whose last name is unique."""
    return world.one(
        "SELECT u.first_name || ' ' || u.last_name, u.last_name, b.address, b.id FROM identity_user u JOIN mail_mailbox b ON b.user_id = u.id "
        "WHERE u.role = ? AND u.id != ? AND (SELECT count(*) FROM identity_user x WHERE x.last_name = u.last_name) = 1 "
        "AND (SELECT count(*) FROM crm_contact c WHERE c.last_name = u.last_name) = 0 ORDER BY u.id", role, me.user_id)


def pick(page: Page, field: str, text: str, option: str) -> None:
    box = page.get_by_role("combobox", name=field)
    box.click()
    box.press_sequentially(text)
    page.get_by_role("option", name=re.compile(re.escape(option))).click()


def test_folders_counts_and_reading_marks_read(page: Page, live_host, world, me) -> None:
    goto(page, live_host, "/mail/inbox")
    expect(page.get_by_role("heading", name="Inbox", level=1)).to_be_visible()
    n = unread_inbox(world, me)
    assert n > 0
    expect(page.locator(f"#fc-{me.folder(world, 'inbox')}")).to_contain_text(str(n))
    page.get_by_role("navigation", name="Folders").get_by_role("link", name="Sent Items").click()
    expect(page.get_by_role("heading", name="Sent Items", level=1)).to_be_visible()
    assert page.url.endswith("/mail/sentitems")
    page.get_by_role("navigation", name="Folders").get_by_role("link", name="Inbox").click()
    mid, subject = world.one("SELECT id, subject FROM mail_message WHERE folder_id = ? AND NOT is_read ORDER BY sent_at DESC", me.folder(world, "inbox"))
    page.get_by_role("list", name="Messages").locator(f"li[data-href$='/id/{mid}'] a.msg-subject").click()
    expect(page.get_by_role("heading", name=subject, level=2)).to_be_visible()
    expect(page.get_by_role("group", name="Message actions")).to_be_visible()
    assert world.one("SELECT is_read FROM mail_message WHERE id = ?", mid)[0] == 1
    expect(page.locator(f"#fc-{me.folder(world, 'inbox')}")).to_contain_text(str(n - 1))
    # Mark as unread from the command bar puts it back
    page.get_by_role("toolbar", name="Commands").get_by_role("button", name="Mark as unread").click()
    expect(page.get_by_role("status")).to_contain_text("marked as unread")
    assert world.one("SELECT is_read FROM mail_message WHERE id = ?", mid)[0] == 0


def test_search_operators_in_the_url(page: Page, live_host, world, me) -> None:
    goto(page, live_host, "/mail/inbox")
    box = page.get_by_role("searchbox", name="Search")
    box.fill("from:servicedesk")
    box.press("Enter")
    page.wait_for_url(re.compile(r"/mail/search\?q=from%3Aservicedesk"))
    deleted = me.folder(world, "deleted")
    n = world.one("SELECT count(*) FROM mail_message WHERE mailbox_id = ? AND folder_id != ? AND from_address LIKE 'servicedesk@%'", me.id, deleted)[0]
    expect(page.locator("#list-summary")).to_have_text(f"{n} items")
    senders = page.locator(".msg-from").all_inner_texts()
    assert senders and set(senders) == {"IT Service Desk"}
    # has:attachment with a date range (the world clock's dates)
    goto(page, live_host, "/mail/search?q=" + "has:attachment after:2026-02-01 before:2026-03-16")
    n = world.one("SELECT count(*) FROM mail_message WHERE mailbox_id = ? AND folder_id != ? AND has_attachments AND NOT is_draft "
                  "AND sent_at >= '2026-02-02' AND sent_at < '2026-03-16'", me.id, deleted)[0]
    expect(page.locator("#list-summary")).to_have_text(f"{n} item" + ("" if n == 1 else "s"))
    assert page.locator(".msg-row").count() == min(n, 50)
    assert page.get_by_role("img", name="Has attachments").count() == min(n, 50)
    # subject: with quotes, and to:
    subject = world.one("SELECT subject FROM mail_message WHERE mailbox_id = ? AND folder_id != ? ORDER BY id", me.id, deleted)[0]
    goto(page, live_host, f'/mail/search?q=subject:"{subject}"')
    expect(page.get_by_role("list", name="Messages").get_by_role("link", name=subject).first).to_be_visible()
    # a malformed date says what to type
    goto(page, live_host, "/mail/search?q=before:yesterday")
    expect(page.get_by_role("alert")).to_contain_text("before: needs a date such as 2026-03-01")


def test_compose_typeahead_send_delivers_internally_only(page: Page, live_host, world, me) -> None:
    name, last, address, their_box = colleague(world, me)
    before = world.one("SELECT count(*) FROM mail_message")[0]
    goto(page, live_host, "/mail/inbox")
    page.get_by_role("toolbar", name="Commands").get_by_role("button", name="New mail").click()
    pick(page, "To", last, address)
    expect(page.get_by_role("combobox", name="To")).to_have_value(f"{name} <{address}>; ")
    page.get_by_role("combobox", name="Cc", exact=True).fill("partner@outside.example.org")
    page.get_by_role("textbox", name="Subject").fill("Quarterly numbers")
    editor = page.get_by_role("textbox", name="Message body")
    editor.click()
    page.get_by_role("toolbar", name="Formatting").get_by_role("button", name="Bold").click()
    editor.press_sequentially("Please review")
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_role("status")).to_contain_text("Sent")
    sent = world.one("SELECT id, folder_id, is_draft, unique_body_html, internet_message_id FROM mail_message WHERE mailbox_id = ? AND subject = 'Quarterly numbers'", me.id)
    assert sent[1] == me.folder(world, "sent") and sent[2] == 0
    assert "<b>Please review</b>" in sent[3]
    assert rows(world, "SELECT kind, address FROM mail_recipient WHERE message_id = ? ORDER BY position", sent[0]) == [("to", address), ("cc", "partner@outside.example.org")]
    copy = world.one("SELECT folder_id, is_read, from_address FROM mail_message WHERE mailbox_id = ? AND internet_message_id = ?", their_box, sent[4])
    assert copy == (world.one("SELECT id FROM mail_folder WHERE mailbox_id = ? AND kind = 'inbox'", their_box)[0], 0, me.address)
    assert world.one("SELECT count(*) FROM mail_message")[0] == before + 2  # the sender's copy and one delivery; the outsider gets nothing here


def test_invalid_address_and_no_subject_warnings(page: Page, live_host, world, me) -> None:
    name, last, address, _ = colleague(world, me)
    goto(page, live_host, "/mail/compose")
    page.get_by_role("combobox", name="To").fill("not-an-address")
    page.get_by_role("textbox", name="Subject").fill("Hello")
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_role("alert")).to_contain_text("\u201cnot-an-address\u201d isn't a valid email address")
    expect(page.get_by_role("combobox", name="To")).to_have_value("not-an-address")  # nothing is lost
    assert world.one("SELECT count(*) FROM mail_message WHERE subject = 'Hello' AND NOT is_draft")[0] == 0
    page.get_by_role("combobox", name="To").fill(address)
    page.get_by_role("textbox", name="Subject").fill("")
    page.get_by_role("textbox", name="Message body").click()
    page.get_by_role("textbox", name="Message body").press_sequentially("no subject here")
    page.get_by_role("button", name="Send").click()
    dialog = page.get_by_role("dialog", name="Send without a subject?")
    expect(dialog).to_contain_text("This message has no subject")
    dialog.get_by_role("button", name="Don't send").click()
    expect(dialog).to_be_hidden()
    assert world.one("SELECT count(*) FROM mail_message WHERE unique_body_html LIKE '%no subject here%' AND NOT is_draft")[0] == 0
    page.get_by_role("button", name="Send").click()
    dialog.get_by_role("button", name="Send", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("Sent")
    assert world.one("SELECT count(*) FROM mail_message WHERE unique_body_html LIKE '%no subject here%' AND subject = '' AND NOT is_draft")[0] == 2
    assert world.one("SELECT count(*) FROM mail_message WHERE is_draft AND mailbox_id = ?", me.id)[0] == 0


def test_reply_all_keeps_the_thread(page: Page, live_host, world, me) -> None:
    mid, subject, conv, sender = world.one("""
        SELECT m.id, m.subject, m.conversation_id, m.from_address FROM mail_message m JOIN mail_folder f ON f.id = m.folder_id AND f.kind = 'inbox'
        WHERE m.mailbox_id = ? AND m.from_address != ? AND (SELECT count(*) FROM mail_recipient r WHERE r.message_id = m.id AND r.kind = 'cc') >= 1
        ORDER BY m.sent_at DESC""", me.id, me.address)
    ccs = [r[0] for r in rows(world, "SELECT address FROM mail_recipient WHERE message_id = ? AND kind IN ('to', 'cc') AND address != ?", mid, me.address)]
    goto(page, live_host, f"/mail/inbox/id/{mid}")
    page.get_by_role("group", name="Message actions").get_by_role("button", name="Reply all").click()
    expect(page.get_by_role("combobox", name="To")).to_have_value(re.compile(re.escape(sender)))
    for a in ccs:
        expect(page.get_by_role("combobox", name="Cc", exact=True)).to_have_value(re.compile(re.escape(a)))
    expect(page.get_by_role("textbox", name="Subject")).to_have_value(re.compile(r"^RE: "))
    page.get_by_role("textbox", name="Message body").click()
    page.get_by_role("textbox", name="Message body").press_sequentially("Thanks, noted.")
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_role("status")).to_contain_text("Sent")
    reply = world.one("SELECT id, conversation_id, reply_to_message_id, body_html, unique_body_html FROM mail_message WHERE mailbox_id = ? AND reply_to_message_id = ?", me.id, mid)
    assert reply[1] == conv and "Thanks, noted." in reply[4] and "Thanks, noted." in reply[3]
    original = world.one("SELECT unique_body_html FROM mail_message WHERE id = ?", mid)[0]
    assert original in reply[3] and original not in reply[4]  # the quoted history is in the body, not the unique part
    got = {r[0]: r[1] for r in rows(world, "SELECT address, kind FROM mail_recipient WHERE message_id = ?", reply[0])}
    assert got[sender] == "to" and all(got[a] == "cc" for a in ccs)
    expect(page.get_by_role("article").first).to_have_attribute("aria-label", f"Message from {me.name}")  # the reply tops the conversation


def test_forward_with_attachment(page: Page, live_host, world, me) -> None:
    mid, subject = world.one("""SELECT m.id, m.subject FROM mail_message m JOIN mail_folder f ON f.id = m.folder_id AND f.kind = 'inbox'
        WHERE m.mailbox_id = ? AND m.has_attachments ORDER BY m.sent_at DESC""", me.id)
    names = [r[0] for r in rows(world, "SELECT name FROM mail_attachment WHERE message_id = ? ORDER BY id", mid)]
    name, last, address, their_box = colleague(world, me, "finance")
    goto(page, live_host, f"/mail/inbox/id/{mid}")
    page.get_by_role("group", name="Message actions").get_by_role("button", name="Forward").click()
    atts = page.get_by_role("list", name="Attachments")
    for n in names:
        expect(atts).to_contain_text(n)
    pick(page, "To", last, address)
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_role("status")).to_contain_text("Sent")
    fw = world.one("SELECT id, subject, internet_message_id, forward_of_message_id FROM mail_message WHERE mailbox_id = ? AND forward_of_message_id = ?", me.id, mid)
    assert fw[1].startswith("FW: ")
    assert [r[0] for r in rows(world, "SELECT name FROM mail_attachment WHERE message_id = ? ORDER BY id", fw[0])] == names
    copy = world.one("SELECT id FROM mail_message WHERE mailbox_id = ? AND internet_message_id = ?", their_box, fw[2])[0]
    assert [r[0] for r in rows(world, "SELECT name FROM mail_attachment WHERE message_id = ? ORDER BY id", copy)] == names


def test_draft_survives_navigation_and_sends(page: Page, live_host, world, me) -> None:
    name, last, address, their_box = colleague(world, me)
    goto(page, live_host, "/mail/inbox")
    page.get_by_role("button", name="New mail").click()
    pick(page, "To", last, address)
    page.get_by_role("textbox", name="Subject").fill("Draft about the renewal")
    page.get_by_role("textbox", name="Message body").click()
    page.get_by_role("textbox", name="Message body").press_sequentially("First thoughts")
    page.get_by_role("navigation", name="Folders").get_by_role("link", name="Archive").click()
    expect(page.get_by_role("heading", name="Archive", level=1)).to_be_visible()
    draft = world.one("SELECT id, folder_id, is_draft, unique_body_html FROM mail_message WHERE mailbox_id = ? AND subject = 'Draft about the renewal'", me.id)
    assert draft[1] == me.folder(world, "drafts") and draft[2] == 1 and "First thoughts" in draft[3]
    expect(page.locator(f"#fc-{me.folder(world, 'drafts')}")).to_contain_text("1")
    page.get_by_role("navigation", name="Folders").get_by_role("link", name="Drafts").click()
    page.get_by_role("list", name="Messages").get_by_role("link", name="Draft about the renewal").click()
    expect(page.get_by_role("combobox", name="To")).to_have_value(f"{name} <{address}>; ")
    expect(page.get_by_role("textbox", name="Message body")).to_have_text("First thoughts")
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_role("status")).to_contain_text("Sent")
    assert world.one("SELECT folder_id, is_draft FROM mail_message WHERE id = ?", draft[0]) == (me.folder(world, "sent"), 0)
    assert world.one("SELECT count(*) FROM mail_message WHERE mailbox_id = ? AND is_draft", me.id)[0] == 0
    assert world.one("SELECT count(*) FROM mail_message WHERE mailbox_id = ? AND subject = 'Draft about the renewal'", their_box)[0] == 1


def test_command_bar_flag_move_archive_delete(page: Page, live_host, world, me) -> None:
    inbox, deleted, archive = me.folder(world, "inbox"), me.folder(world, "deleted"), me.folder(world, "archive")
    goto(page, live_host, "/mail/inbox")
    ids = [int(h.rsplit("/", 1)[1]) for h in page.locator(".msg-row").evaluate_all("rs => rs.slice(0, 3).map(r => r.dataset.href)")]
    for i in ids[:2]:
        page.locator(f"li[data-href$='/id/{i}'] input[type=checkbox]").check()
    page.get_by_role("toolbar", name="Commands").get_by_role("button", name="Flag", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("2 items flagged")
    assert rows(world, f"SELECT is_flagged FROM mail_message WHERE id IN ({ids[0]}, {ids[1]})") == [(1,), (1,)]
    # a new folder, then Move to
    page.get_by_role("button", name="Create new folder").click()
    page.get_by_role("dialog", name="Create new folder").get_by_label("Folder name").fill("Renewals")
    page.get_by_role("dialog", name="Create new folder").get_by_role("button", name="Create").click()
    expect(page.get_by_role("heading", name="Renewals", level=1)).to_be_visible()
    folder = world.one("SELECT id FROM mail_folder WHERE mailbox_id = ? AND name = 'Renewals'", me.id)[0]
    goto(page, live_host, "/mail/inbox")
    for i in ids[:2]:
        page.locator(f"li[data-href$='/id/{i}'] input[type=checkbox]").check()
    page.get_by_role("button", name="Move to").click()
    page.get_by_role("menu", name="Move to").get_by_role("menuitem", name="Renewals").click()
    expect(page.get_by_role("status")).to_contain_text("2 items moved to Renewals")
    assert {r[0] for r in rows(world, f"SELECT folder_id FROM mail_message WHERE id IN ({ids[0]}, {ids[1]})")} == {folder}
    # Archive the open message, then delete it twice (Deleted Items, then for good)
    goto(page, live_host, f"/mail/inbox/id/{ids[2]}")
    page.get_by_role("toolbar", name="Commands").get_by_role("button", name="Archive").click()
    expect(page.get_by_role("status")).to_contain_text("1 item archived")
    assert world.one("SELECT folder_id FROM mail_message WHERE id = ?", ids[2])[0] == archive
    goto(page, live_host, f"/mail/archive/id/{ids[2]}")
    page.get_by_role("toolbar", name="Commands").get_by_role("button", name="Delete").click()
    expect(page.get_by_role("status")).to_contain_text("moved to Deleted Items")
    assert world.one("SELECT folder_id FROM mail_message WHERE id = ?", ids[2])[0] == deleted
    goto(page, live_host, f"/mail/deleteditems/id/{ids[2]}")
    page.get_by_role("toolbar", name="Commands").get_by_role("button", name="Delete").click()
    expect(page.get_by_role("status")).to_contain_text("1 item deleted")
    assert world.one("SELECT count(*) FROM mail_message WHERE id = ?", ids[2])[0] == 0
    assert world.one("SELECT count(*) FROM mail_recipient WHERE message_id = ?", ids[2])[0] == 0
    # nothing selected: a clear message, nothing changes
    goto(page, live_host, "/mail/inbox")
    page.get_by_role("toolbar", name="Commands").get_by_role("button", name="Delete").click()
    expect(page.get_by_role("status")).to_contain_text("Select one or more messages first.")
    assert world.one("SELECT count(*) FROM mail_message WHERE folder_id = ?", inbox)[0] > 0


def test_hostile_html_is_shown_inert(page: Page, live_host, world, me) -> None:
    hostile = ('<p>Hello <b>bold</b> <a href="https://example.com/x" onclick="window.__pwned=1">link</a></p>'
               '<script>window.__pwned = 1; alert(1)</script><img src=x onerror="window.__pwned=1">'
               '<svg onload="window.__pwned=1"></svg><a href="javascript:window.__pwned=1">js</a>'
               '<iframe src="https://evil.example.com"></iframe><style>body { display: none }</style>'
               '<div onmouseover="window.__pwned=1">hover</div><form action="https://evil.example.com"><input name=p></form>')
    inbox = me.folder(world, "inbox")
    with world.connect(readonly=False) as conn:
        cur = conn.execute(
            "INSERT INTO mail_message (mailbox_id, folder_id, conversation_id, internet_message_id, subject, body_html, unique_body_html, preview, "
            "from_address, from_name, sent_at, received_at, is_read, is_flagged, is_draft, importance, categories, has_attachments, created_at, updated_at) "
            "VALUES (?, ?, 'conv-x', '<x@evil.example.com>', '<script>alert(2)</script>Hostile', ?, ?, 'Hello', 'x@evil.example.com', '<b>Evil</b>', "
            "'2026-03-16 09:00:00', '2026-03-16 09:00:00', 0, 0, 0, 'normal', '', 0, '2026-03-16 09:00:00', '2026-03-16 09:00:00')",
            (me.id, inbox, hostile, hostile))
        mid = cur.lastrowid
    goto(page, live_host, f"/mail/inbox/id/{mid}")
    body = page.get_by_role("article", name="Message from <b>Evil</b>").locator(".item-body").first
    expect(body.locator("b")).to_have_text("bold")  # formatting kept
    expect(body.get_by_role("link", name="link")).to_have_attribute("href", "https://example.com/x")
    body.get_by_text("hover").hover()
    assert body.locator("script, iframe, style, img, svg, form, [onclick], [onerror], [onmouseover]").count() == 0
    assert body.get_by_text("js", exact=True).get_attribute("href") is None
    expect(page.locator("#conv-subject")).to_have_text("<script>alert(2)</script>Hostile")  # subject shown as text
    assert page.evaluate("window.__pwned") is None
    assert page.dialogs == []
    # the same through the API
    data = page.evaluate("id => fetch('/api/messages/' + id, {headers: {Accept: 'application/json'}}).then(r => r.json())", mid)
    assert "<script" not in data["body_html"] and "onerror" not in data["body_html"] and "<b>bold</b>" in data["body_html"]

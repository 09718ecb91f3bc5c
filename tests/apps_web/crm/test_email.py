"""Email from a CRM record in real Chromium: the Activity tab's Email composer (To prefilled with the
deal's contact, type-ahead, a template whose merge fields fill in the record's values, Send) delivers
through the mail app (the sender's Sent Items, a colleague's Inbox) and writes the CRM's
EmailMessage linked to the record; the timeline lists the email, the record's mail from the mail app
and its tasks, with its filters. Every test checks the world database."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, expect


@pytest.fixture(scope="module")
def world(live_host):
    return live_host.world()


def _deal(world):
    """An open deal with a primary contact who has an address, owned by a rep with a mailbox."""
    return world.one("""
        select o.id, o.name, o.amount, u.username, u.id, lower(u.email), k.id, k.first_name, lower(k.email), o.account_id
        from crm_opportunity o join identity_user u on u.id = o.owner_id
        join crm_opportunity_contact_role r on r.opportunity_id = o.id and r.is_primary
        join crm_contact k on k.id = r.contact_id
        where o.stage not in ('Closed Won', 'Closed Lost') and o.amount is not null and k.email is not null and k.first_name is not null
        order by o.id limit 1""")


@pytest.fixture(scope="module")
def page(browser: Browser, live_host, world):
    context = live_host.new_context(browser, world, _deal(world)[3])
    page = context.new_page()
    yield page
    context.close()


def test_send_an_email_from_an_opportunity(page, live_host, world) -> None:
    opp_id, opp_name, amount, _username, user_id, user_email, contact_id, first, contact_email, account_id = _deal(world)
    colleague_name, colleague_email, colleague_box = world.one(
        "select u.first_name || ' ' || u.last_name, lower(u.email), b.id from identity_user u join mail_mailbox b on b.user_id = u.id "
        "where u.id != ? and u.active order by u.id limit 1", user_id)
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}?tab=activity"))
    composer = page.get_by_role("region", name="Activity composer")
    composer.get_by_role("tab", name="Email").click()
    panel = composer.get_by_role("tabpanel", name="Email")
    expect(panel.get_by_label("From")).to_have_value(re.compile(re.escape(user_email)))
    expect(panel.get_by_role("combobox", name="To")).to_have_value(re.compile(re.escape(contact_email)))
    # Cc a colleague through the type-ahead.
    panel.get_by_role("button", name="Cc", exact=True).click()
    cc = panel.get_by_role("combobox", name="Cc")
    cc.press_sequentially(colleague_name[:6])
    panel.get_by_role("option", name=re.compile(re.escape(colleague_email))).click()
    expect(cc).to_have_value(re.compile(re.escape(colleague_email)))
    panel.get_by_label("Insert template").select_option(label="Quote Sent")
    figure = f"${amount:,.2f}"
    expect(panel.get_by_label("Subject")).to_have_value(f"Your quote for {opp_name}")
    body = panel.get_by_role("textbox", name="Email body")
    expect(body).to_contain_text(figure)
    expect(body).to_contain_text(f"Hello {first},")
    body.click()
    page.keyboard.press("Control+End")
    page.keyboard.type(" See you on Thursday.")
    panel.get_by_role("button", name="Send").click()
    expect(page.locator(".toast")).to_contain_text(f'Email "Your quote for {opp_name}" was sent.')
    expect(page).to_have_url(re.compile(r"\?tab=activity$"))

    # The CRM's EmailMessage, linked as Salesforce relates it.
    row = world.one("""select subject, to_address, cc_address, who_type, who_id, what_type, what_id, account_id, template_id, related_type,
        related_id, created_by_id, internet_message_id, html_body from crm_email_message order by id desc limit 1""")
    assert row[:12] == (f"Your quote for {opp_name}", contact_email, colleague_email, "contact", contact_id, "opportunity", opp_id, account_id,
                        2, "opportunity", opp_id, user_id)
    assert figure in row[13] and "See you on Thursday." in row[13]
    # The mail app delivered it: the sender's Sent Items, the colleague's Inbox (unread), nothing for the customer.
    copies = world.query("""select f.kind, m.is_read, m.crm_opportunity_id, m.crm_account_id from mail_message m join mail_folder f on f.id = m.folder_id
        where m.internet_message_id = ? order by m.id""", row[12])
    assert copies == [("sent", 1, opp_id, account_id), ("inbox", 0, opp_id, account_id)]
    assert world.one("select m.mailbox_id from mail_message m where m.internet_message_id = ? order by m.id desc", row[12])[0] == colleague_box

    # The timeline lists it once (not again as the mail app's copy), with its details on expanding.
    past = page.get_by_role("region", name="Past Activities")
    entry = past.locator("li.tl-email", has_text=f"Your quote for {opp_name}")
    expect(entry).to_have_count(1)
    expect(entry).to_contain_text("You sent an email to")
    entry.get_by_label(f"Details of Your quote for {opp_name}").click()
    expect(entry.locator(".tl-email-body")).to_contain_text(figure)

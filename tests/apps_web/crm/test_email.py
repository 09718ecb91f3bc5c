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


def test_errors_keep_the_draft_and_the_timeline_shows_mail_with_filters(page, live_host, world) -> None:
    # A contact the world's mail talks to and about, with tasks or calls of their own.
    contact_id, email, last_mail, subject = world.one("""
        select k.id, lower(k.email), max(m.sent_at), (select m2.subject from mail_message m2 where lower(m2.from_address) = lower(k.email)
            and not m2.is_draft and m2.event_id is null order by m2.sent_at desc, m2.id limit 1)
        from crm_contact k join mail_message m on lower(m.from_address) = lower(k.email)
        where not m.is_draft and m.event_id is null
          and exists (select 1 from crm_activity a where a.contact_id = k.id and a.kind in ('task', 'call') and a.status = 'Completed')
        group by k.id order by count(*) desc, k.id limit 1""")
    n_mail = world.one("select count(*) from mail_message")[0]
    n_crm = world.one("select count(*) from crm_email_message")[0]
    page.goto(live_host.url("crm", f"/contacts/{contact_id}?tab=activity"))
    composer = page.get_by_role("region", name="Activity composer")
    composer.get_by_role("tab", name="Email").click()
    panel = composer.get_by_role("tabpanel", name="Email")
    expect(panel.get_by_role("combobox", name="To")).to_have_value(re.compile(re.escape(email)))
    # Bad input: an invalid Bcc address and no subject are refused with sentences; what was typed stays.
    panel.get_by_role("button", name="Bcc", exact=True).click()
    panel.get_by_role("combobox", name="Bcc").fill("not-an-address")
    panel.get_by_role("textbox", name="Email body").fill("Checking in on the rollout.")
    panel.get_by_role("button", name="Send").click()
    panel = page.get_by_role("region", name="Activity composer").get_by_role("tabpanel", name="Email")
    expect(panel.get_by_text("Enter a subject.")).to_be_visible()
    expect(panel.get_by_text("\u201cnot-an-address\u201d isn't a valid email address", exact=False).first).to_be_visible()
    expect(panel.get_by_role("combobox", name="Bcc")).to_have_value("not-an-address")
    expect(panel.get_by_role("textbox", name="Email body")).to_have_text("Checking in on the rollout.")
    assert world.one("select count(*) from mail_message")[0] == n_mail
    assert world.one("select count(*) from crm_email_message")[0] == n_crm
    # A template is merged for the person in To (here the contact): subject and body replace what was typed.
    first = world.one("select first_name from crm_contact where id = ?", contact_id)[0]
    panel.get_by_label("Insert template").select_option(label="Meeting Request")
    expect(panel.get_by_label("Subject")).to_have_value(f"Time to meet, {first}?")
    expect(panel.get_by_role("textbox", name="Email body")).to_contain_text(f"Hi {first},")

    # The timeline shows the contact's mail from the mail app (read in place), newest first, beside tasks.
    past = page.get_by_role("region", name="Past Activities")
    newest = past.locator("li.tl-email").first
    expect(newest).to_contain_text(subject)
    expect(past.locator("li.tl-task, li.tl-call").first).to_be_visible()
    expect(page.locator("#tl-filter-summary")).to_have_text("Filters: All time • All activities • All types")
    # Filters: Email only, then the last 7 days.
    page.get_by_label("Filter timeline").click()
    filters = page.get_by_role("form", name="Timeline filters")
    for label in ("Events", "Logged calls", "Tasks"):
        filters.get_by_label(label).uncheck()
    filters.get_by_role("button", name="Apply").click()
    expect(page).to_have_url(re.compile(r"tl_type=email"))
    expect(page.locator("#tl-filter-summary")).to_have_text("Filters: All time • All activities • Email")
    past = page.get_by_role("region", name="Past Activities")
    expect(past.locator("li.tl-task, li.tl-call, li.tl-meeting")).to_have_count(0)
    n_all = past.locator("li.tl-email").count()
    expected = world.one("""select count(distinct m.internet_message_id) from mail_message m
        where not m.is_draft and m.event_id is null and m.sent_at is not null and (lower(m.from_address) = ?
           or m.id in (select message_id from mail_recipient where address = ?))""", email, email)[0]
    assert n_all == min(expected, 100)
    page.goto(live_host.url("crm", f"/contacts/{contact_id}?tab=activity&tl_type=email&tl_range=last7"))
    recent = world.one("""select count(distinct m.internet_message_id) from mail_message m
        where not m.is_draft and m.event_id is null and date(m.sent_at) >= '2026-03-09' and (lower(m.from_address) = ?
           or m.id in (select message_id from mail_recipient where address = ?))""", email, email)[0]
    expect(page.get_by_role("region", name="Past Activities").locator("li.tl-email")).to_have_count(recent)
    # Expand All opens every row's details (the email's body among them).
    page.goto(live_host.url("crm", f"/contacts/{contact_id}?tab=activity&tl_type=email"))
    page.get_by_role("button", name="Expand All").click()
    expect(page.get_by_role("button", name="Collapse All")).to_be_visible()
    expect(page.get_by_role("region", name="Past Activities").locator("li.tl-email .tl-email-body").first).to_be_visible()
    assert last_mail  # the world's mail reaches this contact

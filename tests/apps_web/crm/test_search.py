"""Global search in real Chromium: the header box, grouped results, click-through, escaping."""

from __future__ import annotations

import re
import sqlite3

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser


def username_of(world) -> str:
    return world.one("SELECT username FROM identity_user WHERE role = 'sales_rep' ORDER BY id")[0]


@pytest.fixture(scope="module")
def world(live_host):
    world = live_host.world()
    # A contact whose name is markup: it must show as text, never run.
    with world.connect(readonly=False) as conn:
        account_id = conn.execute("SELECT min(id) FROM crm_account").fetchone()[0]
        conn.execute(
            "INSERT INTO crm_contact (first_name, last_name, email, account_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
            ("<script>alert(1)</script>", "Scriptwright", "xss@example.com", account_id, "2026-03-01 10:00:00", "2026-03-01 10:00:00"),
        )
    return world


@pytest.fixture()
def page(browser, live_host, world):
    context = live_host.new_context(browser, world, username_of(world))
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.dialogs = dialogs
    yield page
    context.close()


def search_from_header(page: Page, live_host, text: str) -> None:
    page.goto(live_host.url("crm", "/search"))
    box = page.get_by_role("searchbox", name="Search")
    box.fill(text)
    box.press("Enter")
    page.wait_for_url(re.compile(r"/search\?q="))


def count(world, sql: str, *args) -> int:
    return world.one(sql, *args)[0]


def test_search_groups_results_and_clicks_through(page: Page, live_host, world) -> None:
    with world.connect() as conn:
        acct_id, name = conn.execute("SELECT id, name FROM crm_account ORDER BY id LIMIT 1").fetchone()
    word = name.split()[0]
    search_from_header(page, live_host, word.lower())
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Results for \u201c{word.lower()}\u201d")
    like = f"%{word}%"
    accounts = count(world, "SELECT count(*) FROM crm_account WHERE name LIKE ? OR phone LIKE ? OR website LIKE ?", like, like, like)
    opps = count(world, """SELECT count(*) FROM crm_opportunity WHERE name LIKE ?
        AND owner_id = (SELECT id FROM identity_user WHERE role = 'sales_rep' ORDER BY id LIMIT 1)""", like)  # a rep finds only their own deals
    leads = count(world, "SELECT count(*) FROM crm_lead WHERE company LIKE ? OR email LIKE ? OR first_name LIKE ? OR last_name LIKE ?", like, like, like, like)
    assert accounts >= 1
    expect(page.get_by_role("heading", name=f"Accounts ({accounts})")).to_be_visible()
    if opps:
        expect(page.get_by_role("heading", name=f"Opportunities ({opps})")).to_be_visible()
    nav = page.get_by_role("navigation", name="Search results by object")
    expect(nav.get_by_role("link", name=re.compile(r"^Leads"))).to_have_text(re.compile(rf"Leads\s*{leads}$"))
    table = page.get_by_role("table", name=f"Accounts matching {word.lower()}")
    expect(table.get_by_role("row")).to_have_count(min(accounts, 25) + 1)
    table.get_by_role("link", name=name, exact=True).first.click()
    page.wait_for_url(re.compile(r"/accounts/\d+$"))
    clicked = int(page.url.rsplit("/", 1)[1])
    assert count(world, "SELECT count(*) FROM crm_account WHERE id = ? AND name = ?", clicked, name) == 1


def test_search_finds_people_by_email_cases_by_number_and_phones_by_digits(page: Page, live_host, world) -> None:
    with world.connect() as conn:
        first, last, email, phone = conn.execute("SELECT first_name, last_name, email, phone FROM crm_contact WHERE phone LIKE '(%' ORDER BY id LIMIT 1").fetchone()
        case_id, number, subject = conn.execute("SELECT id, case_number, subject FROM crm_case ORDER BY id DESC LIMIT 1").fetchone()
    search_from_header(page, live_host, email.upper())
    contacts = page.get_by_role("table", name=re.compile("^Contacts matching"))
    expect(contacts.get_by_role("link", name=f"{first} {last}")).to_be_visible()
    search_from_header(page, live_host, re.sub(r"\D", "", phone))
    expect(page.get_by_role("table", name=re.compile("^Contacts matching")).get_by_role("link", name=f"{first} {last}")).to_be_visible()
    search_from_header(page, live_host, number)
    cases = page.get_by_role("table", name=re.compile("^Cases matching"))
    expect(cases.get_by_role("row", name=re.compile(re.escape(subject)))).to_be_visible()
    cases.get_by_role("link", name=number).click()
    page.wait_for_url(re.compile(rf"/cases/{case_id}$"))


def test_markup_in_queries_and_data_renders_as_text(page: Page, live_host, world) -> None:
    search_from_header(page, live_host, "<script>alert(1)</script>")
    expect(page.get_by_role("heading", level=1)).to_have_text("Results for \u201c<script>alert(1)</script>\u201d")
    expect(page.get_by_role("searchbox", name="Search")).to_have_value("<script>alert(1)</script>")
    # The stored contact whose first name is markup is found, and shown as text.
    contacts = page.get_by_role("table", name=re.compile("^Contacts matching"))
    expect(contacts.get_by_role("link", name="<script>alert(1)</script> Scriptwright")).to_be_visible()
    assert count(world, "SELECT count(*) FROM crm_contact WHERE first_name = '<script>alert(1)</script>'") == 1
    assert page.dialogs == []
    assert page.locator("main script").count() == 0


def test_no_results_and_too_short(page: Page, live_host, world) -> None:
    search_from_header(page, live_host, "zzqxv-nothing")
    expect(page.locator("#no-results")).to_contain_text("No results for \u201czzqxv-nothing\u201d")
    assert count(world, "SELECT count(*) FROM crm_account WHERE name LIKE '%zzqxv%'") == 0
    assert count(world, "SELECT count(*) FROM crm_contact WHERE last_name LIKE '%zzqxv%' OR email LIKE '%zzqxv%'") == 0
    search_from_header(page, live_host, "a")
    expect(page.locator("main").get_by_role("status")).to_contain_text("Enter at least 2 characters")

"""CRM reports in real Chromium: grouped subtotals vs SQL, group-by and filters, sorting, CSV export."""

from __future__ import annotations

import csv
import io
import re

import pytest
from playwright.sync_api import Page, expect

from apps_web.crm.picklists import CASE_STATUSES, OPEN_STAGES
from apps_web.crm.reports import REPORTS, date_range
from apps_web.ui import money

pytestmark = pytest.mark.browser
OPEN = f"stage IN ({', '.join(repr(s) for s in OPEN_STAGES)})"
OWNER = "(SELECT first_name || ' ' || last_name FROM identity_user u WHERE u.id = o.owner_id)"


def rep_of(world) -> tuple[int, str]:
    return world.one("SELECT id, username FROM identity_user WHERE role = 'sales_rep' ORDER BY id")


@pytest.fixture(scope="module")
def world(live_host):
    world = live_host.world()
    # An open deal whose name needs CSV quoting and HTML escaping.
    with world.connect(readonly=False) as conn:
        conn.execute("UPDATE crm_opportunity SET name = ? WHERE id = (SELECT min(id) FROM crm_opportunity WHERE stage = 'Prospecting')",
                     ('Acme, "Big" <b>Deal</b>',))
    return world


@pytest.fixture()
def vp_page(browser, live_host, world):
    """The VP of Sales: every deal's owner is below them in the role hierarchy, so reports count the whole pipeline
    (a rep's reports count their own deals: Opportunity is Private; see test_sharing.py)."""
    username = world.one("SELECT username FROM identity_user WHERE title = 'VP of Sales' ORDER BY id")[0]
    context = live_host.new_context(browser, world, username)
    yield context.new_page()
    context.close()


@pytest.fixture()
def page(browser, live_host, world):
    context = live_host.new_context(browser, world, rep_of(world)[1])
    page = context.new_page()
    yield page
    context.close()


def subtotals(page: Page, level: str) -> dict[str, tuple[int, float | None]]:
    rows = page.locator(f"tr.subtotal.{level}")
    data = rows.evaluate_all("els => els.map(e => [e.dataset.group, Number(e.dataset.count), e.dataset.total === undefined ? null : Number(e.dataset.total)])")
    return {g: (n, t) for g, n, t in data}


def test_list_and_pipeline_report_totals_equal_sql(vp_page: Page, live_host, world) -> None:
    page = vp_page
    page.goto(live_host.url("crm", "/reports"))
    names = page.get_by_role("table", name="All Reports").locator("tbody td:first-child")
    expect(names).to_have_text(sorted(r.name for r in REPORTS.values()))
    page.get_by_role("link", name="Pipeline by Stage and Owner").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Pipeline by Stage and Owner")

    by_stage = {s: (n, t) for s, n, t in world.query(f"SELECT stage, count(*), sum(amount) FROM crm_opportunity WHERE {OPEN} GROUP BY stage")}
    got = subtotals(page, "level-1")
    assert list(got) == [s for s in OPEN_STAGES if s in by_stage]  # picklist order, not alphabetical
    for stage, (n, total) in by_stage.items():
        assert got[stage][0] == n and got[stage][1] == pytest.approx(total), stage
    pairs = {f"{s} / {o}": (n, t) for s, o, n, t in world.query(f"SELECT stage, {OWNER}, count(*), sum(amount) FROM crm_opportunity o WHERE {OPEN} GROUP BY 1, 2")}
    got2 = subtotals(page, "level-2")
    assert set(got2) == set(pairs)
    for key, (n, total) in pairs.items():
        assert got2[key][0] == n and got2[key][1] == pytest.approx(total), key
    n, total = world.query(f"SELECT count(*), sum(amount) FROM crm_opportunity WHERE {OPEN}")[0]
    expect(page.locator("#total-records")).to_have_text(str(n))
    expect(page.locator("#total-measure")).to_have_text(money(total))
    expect(page.locator("tr.grand-total")).to_contain_text(money(total))
    first = page.locator("tr.subtotal.level-1").first
    expect(first).to_contain_text(money(by_stage["Prospecting"][1]))
    # The summary chart shows the same first-level sums.
    bars = page.get_by_role("img", name="Sum of Amount by Stage").locator("g.bar")
    values = dict(bars.evaluate_all("els => els.map(e => [e.dataset.label, Number(e.dataset.value)])"))
    assert values == pytest.approx({s: t for s, (_n, t) in by_stage.items()})
    # Names are text, never markup.
    expect(page.get_by_role("link", name='Acme, "Big" <b>Deal</b>')).to_be_visible()


def test_group_by_selector_and_owner_and_date_filters(page: Page, live_host, world) -> None:
    user_id = rep_of(world)[0]
    page.goto(live_host.url("crm", "/reports/pipeline-by-stage-and-owner"))
    page.get_by_label("Group Rows By").select_option(label="Lead Source")
    page.get_by_label("Then Group By").select_option(label="--None--")
    page.get_by_label("Show Me").select_option(label="My opportunities")
    page.get_by_label("Close Date").select_option(label="Current FQ")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url(re.compile(r"g1=lead_source"))
    start, end = date_range("this_quarter", world.clock)
    rows = world.query(f"SELECT coalesce(lead_source, '-'), count(*), sum(amount) FROM crm_opportunity WHERE {OPEN} AND owner_id = ?"
                      " AND close_date >= ? AND close_date < ? GROUP BY 1", user_id, start.isoformat(), end.isoformat())
    got = subtotals(page, "level-1")
    assert {k: (n, pytest.approx(t)) for k, (n, t) in got.items()} == {k: (n, pytest.approx(t)) for k, n, t in rows}
    expect(page.locator("tr.subtotal.level-2")).to_have_count(0)
    expect(page.locator("#total-records")).to_have_text(str(sum(n for _k, n, _t in rows)))


def test_deals_won_defaults_to_this_quarter_and_cases_count_by_status(vp_page: Page, live_host, world) -> None:
    page = vp_page
    page.goto(live_host.url("crm", "/reports/deals-won-this-quarter"))
    expect(page.get_by_label("Close Date")).to_have_value("this_quarter")
    start, end = date_range("this_quarter", world.clock)
    n, total = world.query("SELECT count(*), coalesce(sum(amount), 0) FROM crm_opportunity WHERE stage = 'Closed Won' AND close_date >= ? AND close_date < ?",
                   start.isoformat(), end.isoformat())[0]
    expect(page.locator("#total-records")).to_have_text(str(n))
    expect(page.locator("#total-measure")).to_have_text(money(total))

    page.goto(live_host.url("crm", "/reports/cases-by-status-and-priority"))
    by_status = dict(world.query("SELECT status, count(*) FROM crm_case GROUP BY status"))
    got = subtotals(page, "level-1")
    assert list(got) == [s for s in CASE_STATUSES if s in by_status]
    assert {k: n for k, (n, _t) in got.items()} == by_status


def test_sorting_detail_rows_and_detail_toggle(page: Page, live_host, world) -> None:
    page.goto(live_host.url("crm", "/reports/accounts-by-industry?g1=&g2="))
    table = page.get_by_role("table", name="Accounts by Industry")
    table.get_by_role("link", name="Employees").click()
    page.wait_for_url(re.compile(r"sort=employees&dir=asc"))
    expected = [r[0] for r in world.query("SELECT name FROM crm_account ORDER BY employees IS NULL, employees, id")]
    expect(table.locator("tr.detail-row td:first-child")).to_have_text(expected)
    expect(table.get_by_role("columnheader", name="Employees")).to_have_attribute("aria-sort", "ascending")
    table.get_by_role("link", name="Employees").click()  # descending; empty values still last
    page.wait_for_url(re.compile(r"dir=desc"))
    expected = [r[0] for r in world.query("SELECT name FROM crm_account ORDER BY employees IS NULL, employees DESC, id")]
    expect(table.locator("tr.detail-row td:first-child")).to_have_text(expected)

    # Activities by Assignee opens as a summary; Detail Rows adds the rows, grouping kept.
    page.goto(live_host.url("crm", "/reports/activities-by-assignee"))
    expect(page.locator("tr.detail-row")).to_have_count(0)
    counts = dict(world.query("SELECT (SELECT first_name || ' ' || last_name FROM identity_user u WHERE u.id = a.assignee_id), count(*) FROM crm_activity a GROUP BY 1"))
    assert {k: n for k, (n, _t) in subtotals(page, "level-1").items()} == counts
    page.get_by_label("Detail Rows").check()
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url(re.compile(r"details=1"))
    expect(page.locator("tr.detail-row")).to_have_count(sum(counts.values()))


def test_csv_export_downloads_the_grouped_filtered_rows(vp_page: Page, live_host, world) -> None:
    page = vp_page
    page.goto(live_host.url("crm", "/reports/pipeline-by-stage-and-owner?g1=stage&g2=&range=all&sort=amount&dir=desc"))
    with page.expect_download() as info:
        page.get_by_role("link", name="Export").click()
    download = info.value
    assert download.suggested_filename == "pipeline-by-stage-and-owner-2026-03-16.csv"
    text = open(download.path(), encoding="utf-8-sig").read()
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["Stage", "Opportunity Name", "Account Name", "Amount", "Probability (%)", "Close Date", "Opportunity Owner"]
    order = {s: i for i, s in enumerate(OPEN_STAGES)}
    expected = world.query(f"SELECT o.stage, o.name, a.name, o.amount, o.id FROM crm_opportunity o LEFT JOIN crm_account a ON a.id = o.account_id WHERE {OPEN}")
    expected.sort(key=lambda r: (order[r[0]], -(r[3] or 0), r[4]))  # stage order, then the sort (amount desc), then id
    assert [(r[0], r[1], r[2] or "", float(r[3] or 0)) for r in rows[1:]] == [(s, n, a or "", float(m or 0)) for s, n, a, m, _id in expected]
    assert 'Acme, "Big" <b>Deal</b>' in [r[1] for r in rows[1:]]  # quoted correctly, round-trips
    assert '"Acme, ""Big"" <b>Deal</b>"' in text

    # The same export fetched by the page (Node's request API cannot resolve *.localhost): an attachment, filters applied.
    response = page.evaluate("""async (url) => {
        const r = await fetch(url);
        return {ok: r.ok, type: r.headers.get("content-type"), disposition: r.headers.get("content-disposition"), text: await r.text()};
    }""", f"/reports/deals-won-this-quarter.csv?owner={rep_of(world)[0]}")
    assert response["ok"]
    assert response["type"].startswith("text/csv")
    assert response["disposition"].startswith("attachment;")
    start, end = date_range("this_quarter", world.clock)
    mine = world.query("SELECT count(*) FROM crm_opportunity WHERE stage = 'Closed Won' AND owner_id = ? AND close_date >= ? AND close_date < ?",
               rep_of(world)[0], start.isoformat(), end.isoformat())[0][0]
    assert len(list(csv.reader(io.StringIO(response["text"].lstrip("\ufeff"))))) == mine + 1

"""CRM home in real Chromium: my open tasks (and completing one), pipeline chart, key deals, recent records."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from apps_web.crm.charts import short_money
from apps_web.crm.picklists import OPEN_STAGES
from apps_web.ui import money

pytestmark = pytest.mark.browser


def busiest_rep(world) -> tuple[int, str, str]:
    """The sales rep with the most open tasks (so the card has overdue and upcoming ones)."""
    with world.connect() as conn:
        return conn.execute(
            "SELECT u.id, u.username, u.first_name FROM identity_user u JOIN crm_activity a ON a.assignee_id = u.id"
            " WHERE u.role = 'sales_rep' AND a.kind = 'task' AND a.status != 'Completed'"
            " GROUP BY u.id ORDER BY count(*) DESC, u.id LIMIT 1"
        ).fetchone()


@pytest.fixture()
def world(live_host):
    return live_host.world()


@pytest.fixture()
def rep(world):
    return busiest_rep(world)


@pytest.fixture()
def page(browser, live_host, world, rep):
    context = live_host.new_context(browser, world, rep[1])
    page = context.new_page()
    yield page
    context.close()


def open_tasks(world, user_id: int) -> list[tuple]:
    with world.connect() as conn:
        return conn.execute(
            "SELECT id, subject, due_date FROM crm_activity WHERE kind = 'task' AND assignee_id = ? AND status != 'Completed'"
            " ORDER BY due_date IS NULL, due_date, id", (user_id,)
        ).fetchall()


def test_greeting_and_my_open_tasks_in_due_order(page: Page, live_host, world, rep) -> None:
    user_id, _, first_name = rep
    page.goto(live_host.url("crm", "/"))
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Good morning, {first_name}")  # the world clock says 9:30
    tasks = open_tasks(world, user_id)
    assert len(tasks) >= 3
    card = page.get_by_role("list", name=re.compile("My Open Tasks"))
    expect(page.get_by_role("heading", name=re.compile("My Open Tasks"))).to_contain_text(f"({len(tasks)})")
    expect(card.locator(".task-subject")).to_have_text([t[1] for t in tasks])
    today = world.clock.today.isoformat()
    overdue = [str(t[0]) for t in tasks if t[2] and t[2] < today]
    assert overdue, "the generator gives busy reps overdue tasks"
    expect(card.locator(".task-item.overdue")).to_have_count(len(overdue))
    assert card.locator(".task-item.overdue").evaluate_all("els => els.map(e => e.dataset.taskId)") == overdue
    expect(card.locator(".task-item.overdue").first).to_contain_text("Overdue")


def test_completing_a_task_saves_it_and_removes_it(page: Page, live_host, world, rep) -> None:
    user_id = rep[0]
    task_id, subject, _ = open_tasks(world, user_id)[1]
    page.goto(live_host.url("crm", "/"))
    box = page.get_by_role("checkbox", name=f"Mark complete: {subject}")
    expect(box).not_to_be_checked()
    box.click()
    expect(page.locator(".toast")).to_contain_text(f'Task "{subject}" was marked complete.')
    with world.connect() as conn:
        status, completed_at, updated_at = conn.execute("SELECT status, completed_at, updated_at FROM crm_activity WHERE id = ?", (task_id,)).fetchone()
    assert status == "Completed"
    assert completed_at.startswith("2026-03-16 09:30") and updated_at.startswith("2026-03-16 09:30")  # the world clock
    remaining = open_tasks(world, user_id)
    expect(page.locator(".task-list .task-subject")).to_have_text([t[1] for t in remaining])


def test_pipeline_chart_totals_equal_sql(page: Page, live_host, world, rep) -> None:
    page.goto(live_host.url("crm", "/"))
    chart = page.get_by_role("img", name="Pipeline by Stage")
    expect(chart).to_be_visible()
    with world.connect() as conn:  # the deals the rep may see: their own (Opportunity is Private)
        sums = dict(conn.execute("SELECT stage, sum(amount) FROM crm_opportunity WHERE owner_id = ? GROUP BY stage", (rep[0],)).fetchall())
        n, total = conn.execute(
            f"SELECT count(*), sum(amount) FROM crm_opportunity WHERE owner_id = ? AND stage IN ({','.join('?' * len(OPEN_STAGES))})", (rep[0], *OPEN_STAGES)
        ).fetchone()
    bars = chart.locator("g.bar")
    expect(bars).to_have_count(len(OPEN_STAGES))
    got = bars.evaluate_all("els => els.map(e => [e.dataset.label, Number(e.dataset.value)])")
    assert [label for label, _ in got] == OPEN_STAGES
    for label, value in got:
        assert value == pytest.approx(sums.get(label, 0)), label
    expect(chart.locator(".bar-value")).to_have_text([short_money(sums.get(s, 0)) for s in OPEN_STAGES])
    expect(page.locator("#pipeline-summary")).to_have_text(f"{n} open opportunities · {money(total)}")


def test_key_deals_quarter_and_recent_records(page: Page, live_host, world, rep) -> None:
    user_id = rep[0]
    with world.connect() as conn:
        deals = [r[0] for r in conn.execute(
            f"SELECT name FROM crm_opportunity WHERE owner_id = ? AND stage IN ({','.join('?' * len(OPEN_STAGES))})"
            " ORDER BY amount IS NULL, amount DESC, close_date, id LIMIT 5", (user_id, *OPEN_STAGES))]
        q = world.clock
        won_n, won_sum = conn.execute(
            "SELECT count(*), coalesce(sum(amount), 0) FROM crm_opportunity WHERE owner_id = ? AND stage = 'Closed Won'"
            " AND close_date >= ? AND close_date <= ?", (user_id, q.quarter_start.isoformat(), q.quarter_end.isoformat())).fetchone()
        account = conn.execute("SELECT id, name FROM crm_account ORDER BY id DESC LIMIT 1").fetchone()
        case = conn.execute("SELECT id, case_number, subject FROM crm_case ORDER BY id LIMIT 1").fetchone()
    with world.connect(readonly=False) as conn:  # as if the rep had opened these two records
        conn.execute("INSERT INTO crm_recent_view (user_id, object_type, record_id) VALUES (?, 'account', ?)", (user_id, account[0]))
        conn.execute("INSERT INTO crm_recent_view (user_id, object_type, record_id) VALUES (?, 'case', ?)", (user_id, case[0]))
    page.goto(live_host.url("crm", "/"))
    table = page.get_by_role("table", name=re.compile("Key Deals"))
    expect(table.locator("tbody tr td:first-child")).to_have_text(deals)
    expect(page.locator("#quarter-closed .metric-value")).to_have_text(money(won_sum))
    expect(page.locator("#quarter-closed")).to_contain_text(f"{won_n} deal")
    recent = page.get_by_role("list", name="Recent Records")
    expect(recent.get_by_role("link")).to_have_text([f"{case[1]} {case[2]}", account[1]])  # newest first
    recent.get_by_role("link", name=account[1]).click()
    expect(page).to_have_url(re.compile(rf"/accounts/{account[0]}$"))

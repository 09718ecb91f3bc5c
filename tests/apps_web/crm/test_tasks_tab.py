"""The Tasks tab in real Chromium: each list view shows the user's tasks the database says it should,
and Mark Complete completes the task and comes back to the view."""

from __future__ import annotations

from playwright.sync_api import Browser, expect


def test_task_views_and_mark_complete(browser: Browser, live_host) -> None:
    world = live_host.world()
    from apps_web.world.meta import META_TABLE

    today = world.one(f"SELECT substr(value, 1, 10) FROM {META_TABLE} WHERE key = 'clock'")[0]
    uid, username = world.one("SELECT a.assignee_id, u.username FROM crm_activity a JOIN identity_user u ON u.id = a.assignee_id "
                              "WHERE a.kind = 'task' AND a.status != 'Completed' AND a.due_date < ? "
                              "GROUP BY a.assignee_id ORDER BY count(*) DESC, a.assignee_id LIMIT 1", today)
    context = live_host.new_context(browser, world, username)
    page = context.new_page()
    try:
        page.goto(live_host.url("crm", "/"))
        page.get_by_role("link", name="Tasks", exact=True).first.click()
        expect(page.get_by_role("heading", name="My Tasks")).to_be_visible()
        mine = world.one("SELECT count(*) FROM crm_activity WHERE kind = 'task' AND status != 'Completed' AND assignee_id = ?", uid)[0]
        expect(page.get_by_role("table", name="My Tasks").locator("tbody tr")).to_have_count(mine)
        page.get_by_role("link", name="Overdue Tasks").click()
        table = page.get_by_role("table", name="Overdue Tasks")
        rows = table.locator("tbody tr")
        expect(rows.first).to_be_visible()
        ids = [int(x) for x in rows.evaluate_all("rs => rs.map(r => r.dataset.id)")]
        due = world.query(f"SELECT due_date, status FROM crm_activity WHERE id IN ({','.join(map(str, ids))})")
        assert due and all(status != "Completed" for _d, status in due)
        assert all(d < today for d, _s in due)
        overdue = world.one("SELECT count(*) FROM crm_activity WHERE kind = 'task' AND status != 'Completed' AND assignee_id = ? AND due_date < ?",
                            uid, today)[0]
        assert len(ids) == overdue
        first = ids[0]
        subject = world.one("SELECT subject FROM crm_activity WHERE id = ?", first)[0]
        table.locator(f"tr[data-id='{first}']").get_by_role("button", name=f"Mark Complete {subject}").click()
        expect(page.get_by_text(f'Task "{subject}" was marked complete.')).to_be_visible()
        expect(page.get_by_role("heading", name="Overdue Tasks")).to_be_visible()
        assert world.one("SELECT status FROM crm_activity WHERE id = ?", first)[0] == "Completed"
        expect(page.locator(f"tr[data-id='{first}']")).to_have_count(0)
        page.get_by_role("link", name="Completed Tasks").click()
        expect(page.locator(f"tr[data-id='{first}']")).to_have_count(1)
    finally:
        context.close()

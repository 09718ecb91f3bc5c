"""Roles, ACLs and impersonation in real Chromium against the live host, each checked against the
world database: a self-service user's view (denied pages and lists, their own incidents, comments
only, raising an incident), an admin impersonating that user and ending it, granting a role, and
the Table API's 403s and writes to problems and changes. One world for the module: each test works
on records the others leave alone."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import expect

from apps_web.identity import SESSION_COOKIE, session_cookie

from .conftest import agent

DENIED = "Security constraints prevent access to requested page"


def caller(world) -> tuple[str, int, str]:
    """A self-service user (a sales rep, no role) who is the caller of an open incident."""
    return world.one("""SELECT u.username, u.id, u.first_name || ' ' || u.last_name FROM identity_user u
                        WHERE u.role = 'sales_rep' AND NOT EXISTS (SELECT 1 FROM desk_user_role r WHERE r.user_id = u.id)
                        AND EXISTS (SELECT 1 FROM desk_incident i WHERE i.caller_id = u.id AND i.state = 'In Progress')
                        AND EXISTS (SELECT 1 FROM desk_journal j JOIN desk_incident i ON i.id = j.record_id AND j.table_name = 'incident'
                                    WHERE i.caller_id = u.id AND i.state = 'In Progress' AND j.kind = 'work_notes')
                        ORDER BY u.id""")


def admin(world) -> tuple[str, int]:
    return world.one("SELECT u.username, u.id FROM identity_user u JOIN desk_user_role r ON r.user_id = u.id WHERE r.role = 'admin' ORDER BY u.id")


@pytest.fixture(scope="module")
def world(live_host):
    return live_host.world()


def signed_in(browser, live_host, world, username):  # noqa: ANN001, ANN201
    context = live_host.new_context(browser, world, username)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return context, page, errors


def open_incident(world, user_id: int) -> tuple[int, str, str]:
    """The user's open incident that has a work note: (id, number, the note's text)."""
    return world.one("""SELECT i.id, i.number, j.body FROM desk_incident i JOIN desk_journal j ON j.record_id = i.id AND j.table_name = 'incident'
                        WHERE i.caller_id = ? AND i.state = 'In Progress' AND j.kind = 'work_notes' ORDER BY i.id, j.id""", user_id)


def test_self_service_user_sees_their_own_and_is_denied_the_rest(browser, live_host, world) -> None:
    username, me, _name = caller(world)
    context, page, errors = signed_in(browser, live_host, world, username)
    # Pages and lists of tables without read access: ServiceNow's message, a 403.
    for path in ("/problem_list.do", "/change_request.do?sys_id=1", "/dashboard"):
        response = page.goto(live_host.url("desk", path))
        assert response is not None and response.status == 403, path
        expect(page.get_by_role("alert", name="Access denied")).to_contain_text(DENIED)
    # The navigator offers Self-Service, the catalog and knowledge, not the fulfillers' applications.
    page.goto(live_host.url("desk", "/"))
    page.get_by_role("button", name="All", exact=True).click()
    nav = page.get_by_role("navigation", name="Application navigator")
    expect(nav.get_by_role("region", name="Self-Service")).to_be_visible()
    expect(nav.get_by_role("region", name="Knowledge")).to_be_visible()
    expect(nav.get_by_role("region", name="Problem")).to_have_count(0)
    expect(nav.get_by_role("region", name="User Administration")).to_have_count(0)
    # Self-Service > Incidents: the caller's own incidents only (the incident list is filtered, not refused).
    nav.get_by_role("region", name="Self-Service").get_by_role("link", name="Incidents", exact=True).click()
    own = world.one("SELECT count(*) FROM desk_incident WHERE caller_id = ?", me)[0]
    assert own < world.one("SELECT count(*) FROM desk_incident")[0]
    expect(page.get_by_text(re.compile(rf"\bof {own}\b")).first).to_be_visible()
    page.goto(live_host.url("desk", "/incident_list.do"))
    expect(page.get_by_text(re.compile(rf"\bof {own}\b")).first).to_be_visible()
    # Somebody else's incident is refused.
    other = world.one("SELECT id FROM desk_incident WHERE caller_id != ? AND (opened_by_id IS NULL OR opened_by_id != ?) ORDER BY id", me, me)[0]
    response = page.goto(live_host.url("desk", f"/incident.do?sys_id={other}"))
    assert response is not None and response.status == 403
    # Their own incident: fields read-only, no work notes (field ACL), no fulfiller actions; comments only.
    inc_id, number, note = open_incident(world, me)
    before = world.one("SELECT state, assigned_to_id, updated_at FROM desk_incident WHERE id = ?", inc_id)
    page.goto(live_host.url("desk", f"/incident.do?sys_id={inc_id}"))
    form = page.get_by_role("form", name="Incident form")
    expect(form.get_by_role("combobox", name="State", exact=True)).to_be_disabled()
    expect(form.get_by_role("textbox", name="Short description", exact=True)).to_be_disabled()
    expect(form.get_by_role("textbox", name="Work notes", exact=True)).to_have_count(0)
    expect(page.get_by_role("list", name="Activity stream")).not_to_contain_text(note)
    for action in ("Resolve", "Assign to me", "Create Problem", "Save"):
        expect(form.get_by_role("button", name=action, exact=True)).to_have_count(0)
    expect(page.get_by_role("table", name=f"Task SLAs of {number}")).to_have_count(0)
    form.get_by_role("textbox", name="Additional comments (Customer visible)").fill("Still failing after the restart.")
    form.get_by_role("button", name="Update", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text(f"Incident {number} updated")
    assert world.one("SELECT state, assigned_to_id FROM desk_incident WHERE id = ?", inc_id) == before[:2]
    assert world.one("SELECT kind, author_id FROM desk_journal WHERE record_id = ? AND table_name = 'incident' AND body = ?",
                     inc_id, "Still failing after the restart.") == ("comments", me)
    assert world.one("SELECT sys_updated_by FROM desk_incident WHERE id = ?", inc_id)[0] == username
    # A knowledge article's form is read-only for them (knowledge_admin edits articles).
    kb_id, title = world.one("SELECT id, title FROM desk_kb_article ORDER BY id")
    page.goto(live_host.url("desk", f"/kb_knowledge.do?sys_id={kb_id}"))
    kb_form = page.get_by_role("form", name="Knowledge article form")
    expect(kb_form.get_by_role("textbox", name="Title")).to_be_disabled()
    expect(kb_form.get_by_role("button", name="Update")).to_have_count(0)
    # Raising an incident through self-service: a few fields; the caller is you, the channel Self-service.
    page.goto(live_host.url("desk", "/"))
    page.get_by_role("link", name="Create Incident").click()
    form = page.get_by_role("form", name="Incident form")
    expect(form.get_by_role("combobox", name="Assignment group", exact=True)).to_have_count(0)
    expect(form.get_by_role("combobox", name="State", exact=True)).to_have_count(0)
    form.get_by_role("combobox", name="Category", exact=True).select_option("Hardware")
    form.get_by_role("combobox", name="Subcategory", exact=True).select_option("Monitor")
    form.get_by_role("combobox", name="Urgency", exact=True).select_option("2")
    form.get_by_role("textbox", name="Short description", exact=True).fill("Second monitor flickers")
    form.get_by_role("button", name="Submit", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("created")
    row = world.one("""SELECT caller_id, opened_by_id, channel, state, urgency, priority, assignment_group_id, subcategory FROM desk_incident
                       WHERE short_description = 'Second monitor flickers'""")
    assert row == (me, me, "Self-service", "New", 2, 4, None, "Monitor")
    context.close()
    assert not errors, errors


def test_admin_impersonates_a_caller_and_ends_it(browser, live_host, world) -> None:
    username, me, name = caller(world)
    admin_name, admin_id = admin(world)
    context, page, errors = signed_in(browser, live_host, world, admin_name)
    page.goto(live_host.url("desk", "/"))
    page.get_by_role("button", name=re.compile("^View profile")).click()
    page.get_by_role("menuitem", name="Impersonate user").click()
    dialog = page.get_by_role("dialog", name="Impersonate user")
    dialog.get_by_role("combobox", name="User").press_sequentially(name.split()[1])
    dialog.get_by_role("listbox", name="User results").get_by_role("option", name=re.compile(re.escape(name))).first.click()
    dialog.get_by_role("button", name="Impersonate user", exact=True).click()
    banner = page.get_by_role("region", name="Impersonation")
    expect(banner).to_contain_text(f"Impersonating {name}")
    assert world.query("SELECT impersonator_id, user_id FROM desk_impersonation WHERE ended_at IS NULL") == [(admin_id, me)]
    # The desk acts with the caller's roles: the fulfillers' lists are refused, their own incident takes a comment.
    response = page.goto(live_host.url("desk", "/problem_list.do"))
    assert response is not None and response.status == 403
    expect(banner).to_be_visible()
    inc_id, number, _note = world.one("""SELECT id, number, 0 FROM desk_incident WHERE caller_id = ? AND state IN ('New', 'In Progress', 'On Hold')
                                          ORDER BY id DESC""", me)
    page.goto(live_host.url("desk", f"/incident.do?sys_id={inc_id}"))
    form = page.get_by_role("form", name="Incident form")
    form.get_by_role("textbox", name="Additional comments (Customer visible)").fill("Checked from the caller's view.")
    form.get_by_role("button", name="Update", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text(f"Incident {number} updated")
    # ServiceNow records the impersonated user as the writer, in the record and in the journal.
    assert world.one("SELECT author_id FROM desk_journal WHERE body = ?", "Checked from the caller's view.")[0] == me
    assert world.one("SELECT sys_updated_by FROM desk_incident WHERE id = ?", inc_id)[0] == username
    page.goto(live_host.url("desk", f"/incident.do?sys_id={inc_id}"))
    expect(page.get_by_role("list", name="Activity stream").locator("li").first).to_contain_text(name)
    # The session is still the admin's: the episode's persona rule sees the admin.
    from sandbox.context import signed_in_users

    assert signed_in_users(context.cookies(), live_host, world) == {admin_name}
    # End impersonation from the user menu: the admin's roles are back, the log row is closed.
    page.get_by_role("button", name=re.compile("^View profile")).click()
    page.get_by_role("menuitem", name="End impersonation").click()
    expect(page.get_by_role("status")).to_contain_text("Impersonation ended")
    expect(page.get_by_role("region", name="Impersonation")).to_have_count(0)
    assert world.query("SELECT count(*) FROM desk_impersonation WHERE ended_at IS NULL") == [(0,)]
    assert world.one("SELECT count(*) FROM desk_impersonation WHERE user_id = ? AND ended_at IS NOT NULL", me)[0] == 1
    response = page.goto(live_host.url("desk", "/problem_list.do"))
    assert response is not None and response.status == 200
    # Granting a role on the user's Roles related list (admin only); the caller becomes a fulfiller.
    page.goto(live_host.url("desk", f"/sys_user.do?sys_id={me}"))
    roles = page.get_by_role("table", name=re.compile("^Roles of"))
    expect(roles).to_contain_text("No records to display")
    add = page.get_by_role("form", name="Add a role")
    add.get_by_label("Role to add").select_option("itil")
    add.get_by_role("button", name="Add role").click()
    expect(page.get_by_role("status")).to_contain_text(f"Role itil granted to {name}")
    assert world.query("SELECT role, granted_by_id FROM desk_user_role WHERE user_id = ?", me) == [("itil", admin_id)]
    expect(roles.get_by_role("cell", name="itil", exact=True)).to_be_visible()
    context.close()
    assert not errors, errors


def api(live_host, world, username: str) -> httpx.Client:
    headers = {"Host": f"desk.localhost:{live_host.port}", "X-Sandbox-World": world.id,
               "Cookie": f"{SESSION_COOKIE}={session_cookie(live_host.secret, username, world.id)}"}
    return httpx.Client(base_url=f"http://127.0.0.1:{live_host.port}", headers=headers)


def test_table_api_refuses_by_acl_and_writes_changes_and_problems(live_host, world) -> None:
    ess = world.one("""SELECT username FROM identity_user u WHERE role = 'finance'
                       AND NOT EXISTS (SELECT 1 FROM desk_user_role r WHERE r.user_id = u.id) ORDER BY id""")[0]
    c, itil = api(live_host, world, ess), api(live_host, world, agent(world)[0])
    # The generated grants follow the people: IT agents itil, group leads itil_admin, managers approver_user,
    # the administrator admin; sales reps none.
    roles = dict(world.query("""SELECT u.id, group_concat(r.role) FROM identity_user u LEFT JOIN desk_user_role r ON r.user_id = u.id AND r.granted_by_id IS NULL
                                GROUP BY u.id"""))
    people = world.query("SELECT id, role, (SELECT count(*) FROM desk_group g WHERE g.manager_id = u.id) FROM identity_user u")
    assert all("itil" in (roles[i] or "") for i, role, _ in people if role == "it")
    assert all("itil_admin" in roles[i] and "approver_user" in roles[i] for i, _, lead in people if lead)
    assert all(roles[i] is None for i, role, _ in people if role == "sales_rep")
    assert [i for i, role, _ in people if role == "admin"] == [i for i, r in roles.items() if r and "admin" in r.split(",")]
    chg_id, number = world.one("SELECT id, number FROM desk_change WHERE state = 'New' AND type = 'Normal' ORDER BY id")
    snapshot = world.one("SELECT * FROM desk_change WHERE id = ?", chg_id)
    counts = world.one("SELECT (SELECT count(*) FROM desk_problem), (SELECT count(*) FROM desk_change)")
    # A self-service user: 403 with ServiceNow's error shape, nothing written.
    r = c.patch(f"/api/now/table/change_request/{chg_id}", json={"risk": "Low"})
    assert r.status_code == 403 and r.json() == {"error": {"message": "User Not Authorized", "detail": "User is unauthorized to access table: change_request"},
                                                 "status": "failure"}
    r = c.post("/api/now/table/problem", json={"short_description": "x"})
    assert r.status_code == 403 and r.json()["error"]["message"] == "Operation Failed" and "ACL Exception Insert Failed" in r.json()["error"]["detail"]
    assert c.get("/api/now/table/problem").status_code == 403
    r = c.post("/api/now/table/incident", json={"short_description": "Printer jams", "assignment_group": 1})
    assert r.status_code == 403 and "assignment_group" in r.json()["error"]["detail"]
    assert world.one("SELECT * FROM desk_change WHERE id = ?", chg_id) == snapshot
    assert world.one("SELECT (SELECT count(*) FROM desk_problem), (SELECT count(*) FROM desk_change)") == counts
    # Impersonating and granting roles are for admins (an itil agent is refused too).
    impersonations = world.one("SELECT count(*) FROM desk_impersonation")[0]
    assert c.post("/impersonate.do", data={"user": "1"}).status_code == 403
    assert itil.post("/impersonate.do", data={"user": "1"}).status_code == 403
    assert itil.post("/sys_user_has_role.do", data={"user": "1", "role": "itil", "sysverb": "add"}).status_code == 403
    assert world.one("SELECT count(*) FROM desk_impersonation")[0] == impersonations
    # itil: a PATCH to a change goes through the form's rules (422, nothing saved), then saves with a work note.
    r = itil.patch(f"/api/now/table/change_request/{chg_id}", json={"start_date": "2026-04-02 22:00:00", "end_date": "2026-04-02 20:00:00"})
    assert r.status_code == 422 and "must be after the planned start date" in r.json()["error"]["detail"]["end_date"]
    r = itil.patch(f"/api/now/table/change_request/{chg_id}", json={"state": "Scheduled"})
    assert r.status_code == 422 and "not been approved by the CAB" in r.json()["error"]["detail"]["state"]
    assert itil.patch(f"/api/now/table/change_request/{chg_id}", json={"colour": "red"}).status_code == 422
    assert world.one("SELECT * FROM desk_change WHERE id = ?", chg_id) == snapshot
    r = itil.patch(f"/api/now/table/change_request/{chg_id}", json={"risk": "High", "start_date": "2026-04-02 20:00:00",
                                                                      "end_date": "2026-04-02 22:00:00", "work_notes": "Window moved to Thursday."})
    assert r.status_code == 200, r.text
    assert r.json()["result"]["number"] == number and r.json()["result"]["risk"] == "High"
    assert world.one("SELECT risk, start_date, sys_updated_by FROM desk_change WHERE id = ?", chg_id) == ("High", "2026-04-02 20:00:00.000000", agent(world)[0])
    assert world.one("SELECT count(*) FROM desk_journal WHERE table_name = 'change_request' AND record_id = ? AND body = 'Window moved to Thursday.'", chg_id)[0] == 1
    # Knowledge articles: itil may read, only knowledge_admin writes (validated like the article's form).
    kb_id, title = world.one("SELECT id, title FROM desk_kb_article WHERE workflow_state = 'Published' ORDER BY id")
    r = itil.patch(f"/api/now/table/kb_knowledge/{kb_id}", json={"workflow_state": "Retired"})
    assert r.status_code == 403 and "ACL Exception Update Failed" in r.json()["error"]["detail"]
    kadmin = api(live_host, world, world.one("SELECT u.username FROM identity_user u JOIN desk_user_role r ON r.user_id = u.id WHERE r.role = 'knowledge_admin'")[0])
    assert kadmin.patch(f"/api/now/table/kb_knowledge/{kb_id}", json={"workflow_state": "Archived"}).status_code == 422
    assert world.one("SELECT workflow_state FROM desk_kb_article WHERE id = ?", kb_id)[0] == "Published"
    r = kadmin.patch(f"/api/now/table/kb_knowledge/{kb_id}", json={"workflow_state": "Retired"})
    assert r.status_code == 200 and world.one("SELECT workflow_state, title FROM desk_kb_article WHERE id = ?", kb_id) == ("Retired", title)
    r = itil.post("/api/now/table/problem", json={"short_description": "VPN drops every hour", "category": "Network", "state": "Assess"})
    assert r.status_code == 422 and "assigned_to" in r.json()["error"]["detail"]
    r = itil.post("/api/now/table/problem", json={"short_description": "VPN drops every hour", "category": "Network", "impact": 2, "urgency": 2})
    assert r.status_code == 201 and r.json()["result"]["priority"] == 3
    assert world.one("SELECT category, state, priority FROM desk_problem WHERE id = ?", r.json()["result"]["sys_id"]) == ("Network", "New", 3)

"""The calendar and People in real Chromium, each checked in the world's database: the work-week
grid draws the user's meetings (series expanded), navigation and the month view; New event with
type-ahead attendees, a room and a weekly series, with Outlook's validation; the scheduling
assistant's first common free slot booked from its grid; an invitation accepted from the inbox
updating the organiser's tracking, then cancelled; the directory, a contact card and the org chart."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
from playwright.sync_api import Page, expect

from apps_web.mail.calendar.freebusy import first_free_slot
from apps_web.world.clock import DEFAULT_CLOCK

from .conftest import mailbox_of

pytestmark = pytest.mark.browser
NOW = DEFAULT_CLOCK


@pytest.fixture(scope="module")
def cal_world(live_host):
    return live_host.world()


@pytest.fixture(scope="module")
def rep(cal_world):
    return mailbox_of(cal_world)


@pytest.fixture(scope="module")
def page(browser, live_host, cal_world, rep):
    context = live_host.new_context(browser, cal_world, rep.username)
    page = context.new_page()
    yield page
    context.close()


def go(page: Page, live_host, path: str) -> None:
    page.goto(live_host.url("mail", path))


def rows(world, sql: str, *args) -> list[tuple]:
    with world.connect() as conn:
        return conn.execute(sql, args).fetchall()


def pick(page: Page, name: str, text: str, option: str) -> None:
    box = page.get_by_role("combobox", name=name)
    box.click()
    box.press_sequentially(text)
    page.get_by_role("option", name=re.compile(re.escape(option))).click()


def week_meetings(world, user_id: int, monday: datetime) -> int:
    """Occurrences on the user's calendar in the work week, from the database (the app's own expansion is not used)."""
    n = 0
    for start, end, rec, days in rows(world, """SELECT start, end, recurrence, recur_days FROM mail_event e WHERE NOT is_cancelled AND NOT all_day AND
            (organizer_id = ? OR EXISTS (SELECT 1 FROM mail_attendee a WHERE a.event_id = e.id AND a.user_id = ? AND a.response != 'declined'))""", user_id, user_id):
        s = datetime.fromisoformat(start)
        if rec == "none":
            n += monday <= s < monday + timedelta(days=5)
        else:
            n += sum(1 for d in days.split(",") if ["MO", "TU", "WE", "TH", "FR"].index(d) >= 0 and s <= monday + timedelta(days=["MO", "TU", "WE", "TH", "FR"].index(d), hours=s.hour, minutes=s.minute))
    return n


def test_work_week_month_and_navigation(page: Page, live_host, cal_world, rep) -> None:
    go(page, live_host, "/calendar")
    expect(page.get_by_role("heading", name="March 16-20, 2026")).to_be_visible()
    monday = datetime(2026, 3, 16)
    n = week_meetings(cal_world, rep.user_id, monday)
    assert n >= 3
    expect(page.locator(".week-body .cal-event")).to_have_count(n)
    # a weekly 1:1 is drawn in its slot this week and next
    subject, start = cal_world.one("SELECT subject, start FROM mail_event e WHERE recurrence = 'weekly' AND EXISTS "
                                   "(SELECT 1 FROM mail_attendee a WHERE a.event_id = e.id AND a.user_id = ? AND a.response != 'declined') ORDER BY id", rep.user_id)
    s = datetime.fromisoformat(start)
    block = page.get_by_role("link", name=f"{subject}, {s.hour % 12 or 12}:{s:%M} {'AM' if s.hour < 12 else 'PM'}")
    expect(block).to_be_visible()
    top = ((s.hour * 60 + s.minute) * 48 / 60)
    assert abs(float(block.evaluate("e => parseFloat(e.style.top)")) - top) < 0.5
    page.get_by_role("link", name="Next week").click()
    expect(page.get_by_role("heading", name="March 23-27, 2026")).to_be_visible()
    expect(page.get_by_role("link", name=f"{subject}, ")).to_have_count(1)
    page.get_by_role("link", name="Today").click()
    expect(page.get_by_role("heading", name="March 16-20, 2026")).to_be_visible()
    page.get_by_role("group", name="Views").get_by_role("link", name="Month").click()
    expect(page.get_by_role("heading", name="March 2026")).to_be_visible()
    expect(page.get_by_role("gridcell", name="Monday, March 16")).to_be_visible()
    page.get_by_role("link", name="Previous month").click()
    expect(page.get_by_role("heading", name="February 2026")).to_be_visible()
    # an event's details: the organiser's tracking of responses from the database
    eid, subj = cal_world.one("SELECT id, subject FROM mail_event WHERE organizer_id = ? AND recurrence = 'none' AND "
                              "(SELECT count(*) FROM mail_attendee a WHERE a.event_id = mail_event.id AND a.kind != 'resource') >= 2 ORDER BY id", rep.user_id)
    go(page, live_host, f"/calendar/item/{eid}")
    expect(page.get_by_role("heading", name=subj, level=1)).to_be_visible()
    counts = dict(rows(cal_world, "SELECT response, count(*) FROM mail_attendee WHERE event_id = ? AND kind != 'resource' GROUP BY response", eid))
    expect(page.locator("#tracking-summary")).to_have_text(
        f"{counts.get('accepted', 0)} accepted, {counts.get('tentative', 0)} tentative, {counts.get('declined', 0)} declined, {counts.get('none', 0)} didn't respond")
    go(page, live_host, "/calendar/view/week")
    expect(page.get_by_role("alert")).to_contain_text("There's no calendar view called")


def test_new_event_validation_attendees_room_and_series(page: Page, live_host, cal_world, rep) -> None:
    before = cal_world.one("SELECT count(*) FROM mail_event")[0]
    go(page, live_host, "/calendar/view/workweek/2026/3/23")
    page.get_by_role("link", name="New event").click()
    form = page.get_by_role("form", name="New event")
    form.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text("Add a title for the event.")
    assert cal_world.one("SELECT count(*) FROM mail_event")[0] == before
    page.get_by_placeholder("Add a title").fill("Renewal planning")
    page.get_by_label("Start date").fill("2026-03-25")
    page.get_by_role("combobox", name="Start time").select_option("14:00")
    page.get_by_label("End date").fill("2026-03-25")
    page.get_by_role("combobox", name="End time").select_option("13:00")
    page.get_by_role("form", name="New event").get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text("The end time you entered occurs before the start time.")
    assert page.get_by_placeholder("Add a title").input_value() == "Renewal planning"  # nothing typed is lost
    # two colleagues by type-ahead, one optional, a room, a weekly series on Monday and Wednesday, 4 times
    a_name, a_last, a_addr, a_id = cal_world.one("SELECT first_name || ' ' || last_name, last_name, lower(email), id FROM identity_user WHERE role = 'support_agent' "
                                                 "AND (SELECT count(*) FROM identity_user x WHERE x.last_name = identity_user.last_name) = 1 "
                                                 "AND (SELECT count(*) FROM crm_contact c WHERE c.last_name = identity_user.last_name) = 0 ORDER BY id")
    b_name, b_last, b_addr, b_id = cal_world.one("SELECT first_name || ' ' || last_name, last_name, lower(email), id FROM identity_user WHERE role = 'finance' "
                                                 "AND (SELECT count(*) FROM identity_user x WHERE x.last_name = identity_user.last_name) = 1 "
                                                 "AND (SELECT count(*) FROM crm_contact c WHERE c.last_name = identity_user.last_name) = 0 ORDER BY id")
    pick(page, "Required attendees", a_last, a_addr)
    pick(page, "Optional attendees", b_last, b_addr)
    page.get_by_role("combobox", name="End time").select_option("15:00")
    room_id, room_name = cal_world.one("SELECT id, name FROM mail_room WHERE capacity >= 6 AND NOT EXISTS (SELECT 1 FROM mail_event e WHERE e.room_id = mail_room.id "
                                       "AND e.start < '2026-04-02' AND (e.end > '2026-03-23' OR e.recurrence != 'none')) ORDER BY capacity, id")
    page.get_by_role("combobox", name="Room").select_option(str(room_id))
    page.get_by_role("combobox", name="Repeat").select_option("weekly")
    page.get_by_role("group", name="Repeat on").get_by_label("Monday").check()
    page.get_by_role("group", name="Repeat on").get_by_label("Wednesday").check()
    page.get_by_role("radio", name="End after").check()
    page.get_by_label("Number of occurrences").fill("4")
    page.get_by_role("form", name="New event").get_by_role("button", name="Send").click()  # Save became Send with attendees
    expect(page.get_by_role("status")).to_contain_text("Invitation sent: Renewal planning")
    ev = cal_world.one("SELECT id, start, end, room_id, location, recurrence, recur_days, recur_count FROM mail_event WHERE subject = 'Renewal planning'")
    assert ev[1:] == ("2026-03-25 14:00:00.000000", "2026-03-25 15:00:00.000000", room_id, room_name, "weekly", "MO,WE", 4)
    att = rows(cal_world, "SELECT address, kind, response, user_id FROM mail_attendee WHERE event_id = ? ORDER BY id", ev[0])
    assert sorted(att) == sorted([(a_addr, "required", "none", a_id), (b_addr, "optional", "none", b_id),
                                  (cal_world.one("SELECT address FROM mail_room WHERE id = ?", room_id)[0], "resource", "accepted", None)])
    # the invitation is a real message in each colleague's inbox, linked to the event
    for uid in (a_id, b_id):
        assert cal_world.one("SELECT count(*) FROM mail_message m JOIN mail_mailbox b ON b.id = m.mailbox_id JOIN mail_folder f ON f.id = m.folder_id "
                             "WHERE b.user_id = ? AND f.kind = 'inbox' AND m.event_id = ? AND m.meeting_type = 'request' AND NOT m.is_read", uid, ev[0])[0] == 1
    # the series: first on Wednesday 25th, then Monday 30th, Wednesday April 1st, Monday April 6th
    expect(page.get_by_role("link", name=re.compile(r"^Renewal planning, 2:00 PM"))).to_have_count(1)
    go(page, live_host, "/calendar/view/workweek/2026/3/30")
    expect(page.get_by_role("link", name=re.compile(r"^Renewal planning, 2:00 PM"))).to_have_count(2)
    go(page, live_host, "/calendar/view/workweek/2026/4/13")
    expect(page.get_by_role("heading", name="April 13-17, 2026")).to_be_visible()
    expect(page.get_by_role("link", name=re.compile(r"^Renewal planning"))).to_have_count(0)
    go(page, live_host, f"/calendar/item/{ev[0]}")
    expect(page.locator("#event-series")).to_have_text("Occurs every Monday and Wednesday for 4 occurrences")
    # the same room at an overlapping time is refused, as the room declines it
    go(page, live_host, "/calendar/deeplink/compose?start=2026-03-30T14:30&end=2026-03-30T15:30")
    page.get_by_placeholder("Add a title").fill("Clash")
    page.get_by_role("combobox", name="Room").select_option(str(room_id))
    page.get_by_role("form", name="New event").get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text(f"{room_name} is busy at this time")
    assert cal_world.one("SELECT count(*) FROM mail_event WHERE subject = 'Clash'")[0] == 0


def test_scheduling_assistant_books_the_first_common_free_slot(page: Page, live_host, cal_world, rep) -> None:
    people = rows(cal_world, "SELECT first_name || ' ' || last_name, lower(email) FROM identity_user WHERE manager_id = (SELECT manager_id FROM identity_user WHERE id = ?) "
                             "AND id != ? ORDER BY id LIMIT 2", rep.user_id, rep.user_id)
    room_id, room_addr = cal_world.one("SELECT id, address FROM mail_room WHERE capacity >= 3 ORDER BY capacity, id")
    day = datetime(2026, 3, 18).date()
    with cal_world.connect() as conn:
        expected = first_free_slot(conn, [rep.address] + [a for _, a in people] + [room_addr], day, 60)
    assert expected is not None
    attendees = "; ".join(f"{n} <{a}>" for n, a in people)
    go(page, live_host, f"/calendar/scheduling?date=2026-03-18&duration=60&room={room_id}&subject=Pipeline%20deep%20dive&attendees={attendees}")
    grid = page.get_by_role("table", name="Free/busy")
    expect(grid.get_by_role("row")).to_have_count(1 + 1 + len(people) + 1)
    hm = lambda t: f"{t.hour % 12 or 12}:{t:%M} {'AM' if t.hour < 12 else 'PM'}"  # noqa: E731
    expect(page.locator("#first-free")).to_contain_text(f"Wednesday, March 18, {hm(expected)}-{hm(expected + timedelta(hours=1))}")
    # each busy cell of the grid is a busy block in the database
    busy_cells = grid.locator("td.fb.busy").count()
    assert busy_cells == sum(1 for _ in grid.locator("td.busy").all())
    page.get_by_role("link", name="Use this time").click()
    expect(page.get_by_placeholder("Add a title")).to_have_value("Pipeline deep dive")
    expect(page.get_by_role("combobox", name="Start time")).to_have_value(f"{expected:%H:%M}")
    page.get_by_role("form", name="New event").get_by_role("button", name="Send").click()
    expect(page.get_by_role("status")).to_contain_text("Invitation sent")
    ev = cal_world.one("SELECT id, start, room_id FROM mail_event WHERE subject = 'Pipeline deep dive'")
    assert (ev[1], ev[2]) == (expected.strftime("%Y-%m-%d %H:%M:%S.%f"), room_id)
    assert {a for (a,) in rows(cal_world, "SELECT address FROM mail_attendee WHERE event_id = ? AND kind = 'required'", ev[0])} == {a for _, a in people}
    # the slot is now taken: the assistant moves on
    go(page, live_host, f"/calendar/scheduling?date=2026-03-18&duration=60&room={room_id}&attendees={attendees}")
    expect(page.locator("#first-free")).not_to_contain_text(f"{hm(expected)}-")


def test_invitation_accepted_from_inbox_then_cancelled(browser, live_host, cal_world) -> None:
    eid, subject, uid, username, org_id, org_user, mid = cal_world.one("""
        SELECT e.id, e.subject, u.id, u.username, o.id, o.username, m.id FROM mail_attendee a JOIN mail_event e ON e.id = a.event_id
        JOIN identity_user u ON u.id = a.user_id JOIN identity_user o ON o.id = e.organizer_id
        JOIN mail_mailbox b ON b.user_id = u.id JOIN mail_message m ON m.mailbox_id = b.id AND m.event_id = e.id AND m.meeting_type = 'request'
        WHERE a.response = 'none' AND e.start > '2026-03-17' AND e.recurrence = 'none' AND e.crm_opportunity_id IS NULL
          AND (SELECT count(*) FROM mail_message x WHERE x.mailbox_id = b.id AND x.subject = e.subject) = 1
        ORDER BY e.id""")
    ctx = live_host.new_context(browser, cal_world, username)
    page = ctx.new_page()
    try:
        go(page, live_host, f"/mail/inbox/id/{mid}")
        card = page.get_by_role("group", name="Meeting invitation")
        expect(card).to_contain_text("Respond to this invitation")
        card.get_by_role("button", name="Accept").click()
        expect(page.get_by_role("status")).to_contain_text(f"Accepted: {subject}")
        resp, at = cal_world.one("SELECT response, responded_at FROM mail_attendee WHERE event_id = ? AND user_id = ?", eid, uid)
        assert (resp, at) == ("accepted", NOW.strftime("%Y-%m-%d %H:%M:%S.%f"))
        reply = cal_world.one("""SELECT m.meeting_type, f.kind FROM mail_message m JOIN mail_mailbox b ON b.id = m.mailbox_id JOIN mail_folder f ON f.id = m.folder_id
                                 WHERE b.user_id = ? AND m.subject = ? AND m.event_id = ?""", org_id, f"Accepted: {subject}", eid)
        assert reply == ("accepted", "inbox")
        expect(page.get_by_role("group", name="Meeting invitation")).to_contain_text("You accepted this meeting.")
    finally:
        ctx.close()
    # the organiser sees the response in the tracking, and cancels with a message
    ctx = live_host.new_context(browser, cal_world, org_user)
    page = ctx.new_page()
    try:
        go(page, live_host, f"/calendar/item/{eid}")
        row = page.get_by_role("table", name="Tracking").get_by_role("row").filter(has_text=cal_world.one("SELECT address FROM mail_attendee WHERE event_id = ? AND user_id = ?", eid, uid)[0])
        expect(row).to_contain_text("Accepted")
        page.get_by_role("button", name="Cancel meeting").click()
        page.get_by_role("dialog", name="Cancel meeting").get_by_label("Message to attendees").fill("We'll pick this up next month.")
        page.get_by_role("dialog", name="Cancel meeting").get_by_role("button", name="Send cancellation").click()
        expect(page.get_by_role("status")).to_contain_text(f"Canceled: {subject}")
        assert cal_world.one("SELECT is_cancelled FROM mail_event WHERE id = ?", eid)[0] == 1
        body = cal_world.one("SELECT m.unique_body_html FROM mail_message m JOIN mail_mailbox b ON b.id = m.mailbox_id WHERE b.user_id = ? AND m.meeting_type = 'cancel' AND m.event_id = ?", uid, eid)[0]
        assert "pick this up next month" in body
        expect(page.locator(".cal-event", has_text=subject)).to_have_count(0)
    finally:
        ctx.close()


def test_people_directory_card_and_org_chart(page: Page, live_host, cal_world) -> None:
    uid, name, last, phone, mgr_id, mgr_name, office = cal_world.one("""
        SELECT u.id, u.first_name || ' ' || u.last_name, u.last_name, u.phone, m.id, m.first_name || ' ' || m.last_name, p.office
        FROM identity_user u JOIN identity_user m ON m.id = u.manager_id JOIN mail_profile p ON p.user_id = u.id
        WHERE u.role = 'sales_rep' AND m.manager_id IS NOT NULL AND (SELECT count(*) FROM identity_user x WHERE x.last_name = u.last_name) = 1 ORDER BY u.id""")
    go(page, live_host, "/mail/inbox")
    page.get_by_role("navigation", name="Modules").get_by_role("link", name="People").click()
    n = cal_world.one("SELECT count(*) FROM identity_user WHERE active")[0]
    expect(page.locator("#people-count")).to_have_text(f"{n} people")
    box = page.get_by_role("searchbox", name="Search people")
    box.fill(last)
    box.press("Enter")
    expect(page.get_by_role("list", name="People").get_by_role("listitem")).to_have_count(1)
    page.get_by_role("list", name="People").get_by_role("link", name=name).click()
    expect(page.locator("#person-name")).to_have_text(name)
    expect(page.locator("#person-phone")).to_have_text(phone)
    expect(page.locator("#person-office")).to_have_text(office)
    expect(page.locator("#person-manager")).to_have_text(mgr_name)
    chain = page.get_by_role("list", name="Reports to").get_by_role("listitem")
    expect(chain).to_have_count(3)  # VP, regional manager, the rep
    page.locator("#person-manager").get_by_role("link").click()
    reports = [r for (r,) in rows(cal_world, "SELECT first_name || ' ' || last_name FROM identity_user WHERE manager_id = ? AND active ORDER BY last_name, first_name", mgr_id)]
    expect(page.get_by_role("list", name=re.compile("Direct reports")).get_by_role("link")).to_have_text(reports)
    box = page.get_by_role("searchbox", name="Search people")
    box.fill("nobody-by-this-name")
    box.press("Enter")
    expect(page.get_by_text("We didn't find anyone.")).to_be_visible()

"""Chat presence from the mail app in real Chromium: a colleague in a meeting on the world clock shows
"In a meeting" with when they are free (the status dot's tooltip, as Teams), and turning on one's
automatic replies in Outlook shows Out of office; both read from the world database."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from apps_web.chat.presence import presences
from apps_web.identity import SESSION_COOKIE, session_cookie

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def world(live_host):
    return live_host.world()


def _partner(world, me_id: int) -> tuple[int, int, str, str]:
    """A 1:1 chat of mine with a colleague who is Available now: (conversation, user id, username, name)."""
    rows = world.query("""select c.id, u.id, u.username, u.first_name || ' ' || u.last_name from chat_conversation c
        join chat_member a on a.conversation_id = c.id and a.user_id = ? join chat_member b on b.conversation_id = c.id and b.user_id != ?
        join identity_user u on u.id = b.user_id where c.kind = 'oneonone' order by c.id""", me_id, me_id)
    with world.session() as session:
        now = world.clock.now
        status = presences(session, [r[1] for r in rows], now)
    return next(r for r in rows if status[r[1]][0] == "Available")


def test_meeting_and_automatic_replies_show_in_presence(browser, live_host, world) -> None:
    me_id, me_user = world.one("select id, username from identity_user where role = 'sales_rep' order by id")
    conv, other_id, other_user, other_name = _partner(world, me_id)
    context = live_host.new_context(browser, world, me_user)
    page = context.new_page()
    page.goto(live_host.url("chat", f"/chat/{conv}"))
    header = page.locator(".conv-sub")
    expect(header).to_have_text("Available")
    # The colleague puts a meeting on their calendar now (9:30 on the world clock) through the mail app.
    headers = {"Host": f"mail.localhost:{live_host.port}", "X-Sandbox-World": world.id, "Accept": "application/json",
               "Cookie": f"{SESSION_COOKIE}={session_cookie(live_host.secret, other_user, world.id)}"}
    with httpx.Client(base_url=f"http://127.0.0.1:{live_host.port}", headers=headers) as mail:
        r = mail.post("/api/events", json={"subject": "Forecast prep", "start": "2026-03-16T09:00", "end": "2026-03-16T10:30"})
        assert r.status_code in (200, 201), r.text
    assert world.one("select count(*) from mail_event where organizer_id = ? and subject = 'Forecast prep'", other_id)[0] == 1
    page.reload()
    expect(header).to_have_text("In a meeting · Free at 10:30 AM")
    expect(page.get_by_role("img", name="In a meeting").first).to_have_attribute("title", "In a meeting: Free at 10:30 AM")
    # I turn on my automatic replies in Outlook: chat shows me Out of office, with my message.
    page.goto(live_host.url("mail", "/mail/options"))
    ar = page.get_by_role("form", name="Automatic replies")
    ar.get_by_role("switch", name="Turn on automatic replies").check()
    ar.get_by_label("Send replies inside your organization").fill("At the partner summit until Wednesday.")
    ar.get_by_role("button", name="Save automatic replies").click()
    expect(page.get_by_role("status")).to_contain_text("Automatic replies are on.")
    assert world.one("select a.enabled, a.scheduled from mail_auto_reply a join mail_mailbox b on b.id = a.mailbox_id where b.user_id = ?", me_id) == (1, 0)
    page.goto(live_host.url("chat", f"/chat/{conv}"))
    me = page.locator(".me")
    expect(me).to_have_attribute("title", "You: Out of office")
    expect(me.get_by_role("img", name="Out of office")).to_have_attribute("title", "Out of office: At the partner summit until Wednesday.")
    context.close()

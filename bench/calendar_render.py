"""Calendar and People pages of the mail app: server-side render time at the default scale (target:
CPU median <= 20 ms), measured as every app's pages are (bench/_render.py), signed in as a sales rep."""

from __future__ import annotations

from . import _render

REP = "SELECT id, username FROM identity_user WHERE role = 'sales_rep' ORDER BY id"


def _pages(conn, user_id: int) -> _render.Pages:
    ev = conn.execute("SELECT id FROM mail_event WHERE organizer_id = ? AND recurrence = 'none' ORDER BY start DESC", (user_id,)).fetchone()[0]
    invite = conn.execute("SELECT m.id FROM mail_message m JOIN mail_mailbox b ON b.id = m.mailbox_id WHERE b.user_id = ? "
                          "AND m.meeting_type = 'request' ORDER BY m.id", (user_id,)).fetchone()
    mates = [r[0] for r in conn.execute("SELECT lower(email) FROM identity_user WHERE id != ? ORDER BY id LIMIT 3", (user_id,))]
    pages = [("work week", "/calendar/view/workweek"), ("day", "/calendar/view/day"), ("month", "/calendar/view/month"),
             ("event details", f"/calendar/item/{ev}"), ("new event", "/calendar/deeplink/compose"),
             ("scheduling assistant (4 people, a room)", "/calendar/scheduling?room=3&duration=60&attendees=" + ";".join(mates)),
             ("people", "/people"), ("person card", f"/people/{user_id}"), ("people search", "/people?q=sales"),
             ("api events (week)", "/api/events")]
    if invite:
        pages.append(("invitation in the inbox", f"/mail/inbox/id/{invite[0]}"))
    return pages


def main(repeat: int = 20, warmup: int = 3) -> None:
    _render.run("Calendar and People", "mail.localhost", REP, _pages, repeat=repeat, warmup=warmup)


if __name__ == "__main__":
    main()

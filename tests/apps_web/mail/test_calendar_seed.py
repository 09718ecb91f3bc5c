"""Calendar world generator: about 600 events at scale 1 around the clock, customer meetings tied to
the CRM's deals with the account's contacts, rooms never double-booked, responses that fit the
dates, invitations waiting in the inboxes of those who have not answered, appended after the mail."""

from __future__ import annotations

import sqlite3
from datetime import datetime

import pytest

from apps_web.mail.calendar.freebusy import busy
from apps_web.world import WorldStore
from apps_web.world.clock import DEFAULT_CLOCK


@pytest.fixture(scope="module")
def db(store: WorldStore):
    conn = sqlite3.connect(f"file:{store.template(0, 1)}?mode=ro", uri=True)
    yield conn
    conn.close()


def one(db, sql: str, *args):
    return db.execute(sql, args).fetchone()


def test_volume_kinds_and_crm_ties(db) -> None:
    assert 550 <= one(db, "SELECT count(*) FROM mail_event")[0] <= 650
    assert one(db, "SELECT count(*) FROM mail_event WHERE recurrence = 'weekly'")[0] >= 30  # 1:1s and team meetings, one row per series
    lo, hi = one(db, "SELECT min(start), max(start) FROM mail_event WHERE recurrence = 'none'")
    assert datetime.fromisoformat(lo) < DEFAULT_CLOCK < datetime.fromisoformat(hi)
    # customer meetings: the deal's account, the account's contacts as external attendees
    bad = one(db, """SELECT count(*) FROM mail_event e JOIN crm_opportunity o ON o.id = e.crm_opportunity_id
                     WHERE o.account_id != e.crm_account_id""")[0]
    assert bad == 0
    externals = db.execute("""SELECT a.address, e.crm_account_id FROM mail_attendee a JOIN mail_event e ON e.id = a.event_id
                              WHERE a.user_id IS NULL AND a.kind != 'resource'""").fetchall()
    assert len(externals) >= 200
    contacts = {(e.lower(), acc) for e, acc in db.execute("SELECT email, account_id FROM crm_contact WHERE email IS NOT NULL")}
    assert all(x in contacts for x in externals)
    assert one(db, "SELECT count(DISTINCT subject) FROM mail_event")[0] >= 300
    # rooms: the booked room is an accepted resource attendee, and no room holds two meetings at once
    assert one(db, "SELECT count(*) FROM mail_event e WHERE e.room_id IS NOT NULL AND NOT EXISTS "
                   "(SELECT 1 FROM mail_attendee a WHERE a.event_id = e.id AND a.room_id = e.room_id AND a.response = 'accepted')")[0] == 0
    for (address,) in db.execute("SELECT address FROM mail_room").fetchall():
        blocks = busy(db, address, datetime(2026, 2, 16), datetime(2026, 4, 20))
        assert all(a.end <= b.start for a, b in zip(blocks, blocks[1:])), address


def test_responses_and_invitations(db) -> None:
    counts = dict(db.execute("SELECT response, count(*) FROM mail_attendee WHERE kind != 'resource' GROUP BY response").fetchall())
    assert all(counts.get(r, 0) > 50 for r in ("accepted", "tentative", "declined", "none"))
    assert one(db, "SELECT count(*) FROM mail_attendee WHERE response != 'none' AND responded_at IS NULL")[0] == 0
    assert one(db, "SELECT count(*) FROM mail_attendee WHERE responded_at > ?", DEFAULT_CLOCK.isoformat(" "))[0] == 0
    # each pending internal attendee of a future meeting has the invitation, unread, in the inbox
    pending = db.execute("""SELECT a.event_id, b.id FROM mail_attendee a JOIN mail_event e ON e.id = a.event_id JOIN mail_mailbox b ON b.user_id = a.user_id
                            WHERE a.response = 'none' AND e.start >= ? AND e.recurrence = 'none'""", (DEFAULT_CLOCK.isoformat(" "),)).fetchall()
    assert len(pending) >= 50
    for event_id, box in pending:
        row = one(db, """SELECT m.is_read, f.kind FROM mail_message m JOIN mail_folder f ON f.id = m.folder_id
                         WHERE m.mailbox_id = ? AND m.event_id = ? AND m.meeting_type = 'request'""", box, event_id)
        assert row == (0, "inbox")
    # appended after the mail generator's messages: no existing message moved or changed id
    shared = "SELECT id FROM mail_mailbox WHERE kind = 'shared'"
    assert one(db, "SELECT min(id) FROM mail_message WHERE event_id IS NOT NULL")[0] > one(
        db, f"SELECT max(id) FROM mail_message WHERE event_id IS NULL AND mailbox_id NOT IN ({shared})")[0]
    # the shared mailboxes' mail comes after both
    assert one(db, f"SELECT min(id) FROM mail_message WHERE mailbox_id IN ({shared})")[0] > one(db, "SELECT max(id) FROM mail_message WHERE event_id IS NOT NULL")[0]
    assert one(db, "SELECT count(*) FROM mail_profile")[0] == one(db, "SELECT count(*) FROM identity_user")[0]

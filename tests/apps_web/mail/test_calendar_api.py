"""The calendar JSON API against the real host and a real world: the form's validation (422 with a
message per field), create with attendees and a room, respond, cancel, list and free/busy."""

from __future__ import annotations

from .test_api import client_for


def test_events_api_validation_create_respond_cancel(live_host, world, me) -> None:
    with client_for(live_host, world, me.username) as api:
        bad = api.post("/api/events", json={"subject": "", "start": "2026-03-20T10:00", "end": "2026-03-20T09:00", "required": ["not-an-address"],
                                            "room_id": 999, "recurrence": {"type": "weekly"}})
        assert bad.status_code == 422
        errors = bad.json()["errors"]
        assert errors["subject"] == "Add a title for the event."
        assert errors["end"] == "The end time you entered occurs before the start time."
        assert "isn't a valid email address" in errors["required"]
        assert errors["room"] == "This room doesn't exist. Choose a room from the list."
        assert errors["recurrence"] == "Choose at least one day of the week for a weekly series."
        domain = me.address.split("@")[1]
        unknown = api.post("/api/events", json={"subject": "X", "start": "2026-03-20T10:00", "end": "2026-03-20T11:00", "required": [f"ghost@{domain}"]})
        assert "couldn't find" in unknown.json()["errors"]["required"]
        assert world.one("SELECT count(*) FROM mail_event WHERE subject IN ('', 'X')")[0] == 0
        colleague, their_user = world.one("SELECT lower(u.email), u.username FROM identity_user u WHERE role = 'finance' ORDER BY id")
        room = api.get("/api/rooms").json()[0]
        made = api.post("/api/events", json={"subject": "Budget check", "start": "2026-03-20T07:00", "end": "2026-03-20T07:30", "required": [colleague],
                                             "room_id": room["id"], "body": "<p>Q2 numbers</p><script>x()</script>"})
        assert made.status_code == 201, made.text
        ev = made.json()
        assert ev["location"] == room["name"] and "<script>" not in ev["body_html"]
        assert {(a["address"], a["response"]) for a in ev["attendees"]} == {(colleague, "none"), (room["address"], "accepted")}
        listed = api.get("/api/events", params={"start": "2026-03-20", "end": "2026-03-21"}).json()
        assert any(e["id"] == ev["id"] and e["response"] == "organizer" for e in listed)
        fb = api.get("/api/freebusy", params={"day": "2026-03-20", "addresses": f"{me.address};{room['address']}", "duration": 30}).json()
        assert {"start": "2026-03-20T07:00:00", "end": "2026-03-20T07:30:00", "show_as": "busy"} in fb["busy"][room["address"]]
        assert api.post(f"/api/events/{ev['id']}/respond", json={"response": "accepted"}).json()["detail"].startswith("You're the organizer")
    with client_for(live_host, world, their_user) as them:
        assert them.post(f"/api/events/{ev['id']}/respond", json={"response": "maybe"}).status_code == 422
        ok = them.post(f"/api/events/{ev['id']}/respond", json={"response": "tentative", "comment": "Might be late"})
        assert ok.status_code == 200
        assert world.one("SELECT response, comment FROM mail_attendee WHERE event_id = ? AND address = ?", ev["id"], colleague) == ("tentative", "Might be late")
        assert them.post(f"/api/events/{ev['id']}/cancel", json={}).json()["detail"].startswith("Only the organizer")
    with client_for(live_host, world, me.username) as api:
        assert api.post(f"/api/events/{ev['id']}/cancel", json={"message": "Moved to email"}).json()["is_cancelled"] is True
        assert api.post(f"/api/events/{ev['id']}/cancel", json={}).status_code == 422
        assert world.one("SELECT count(*) FROM mail_message WHERE event_id = ? AND meeting_type = 'cancel'", ev["id"])[0] == 2  # sent copy and the inbox copy
        assert api.get("/api/events/999999").status_code == 404

"""The mail JSON API against the real host and a real world: list, search, get, send, move, flag,
the people type-ahead, and the same validation as the compose form."""

from __future__ import annotations

import httpx
import pytest

from apps_web.identity import SESSION_COOKIE, session_cookie


def client_for(live_host, world, username: str | None) -> httpx.Client:
    headers = {"Host": f"mail.localhost:{live_host.port}", "X-Sandbox-World": world.id, "Accept": "application/json"}
    if username:
        headers["Cookie"] = f"{SESSION_COOKIE}={session_cookie(live_host.secret, username, world.id)}"
    return httpx.Client(base_url=f"http://127.0.0.1:{live_host.port}", headers=headers)


@pytest.fixture()
def api(live_host, world, me):
    with client_for(live_host, world, me.username) as client:
        yield client


def colleague(world, me) -> tuple[str, int]:
    return world.one("SELECT b.address, b.id FROM mail_mailbox b JOIN identity_user u ON u.id = b.user_id WHERE u.role = 'finance' ORDER BY u.id")


def test_signed_out_gets_401(live_host, world) -> None:
    with client_for(live_host, world, None) as client:
        assert client.get("/api/messages").status_code == 401


def test_list_search_and_get(api, world, me) -> None:
    inbox = api.get("/api/messages").json()
    n = world.one("SELECT count(*) FROM mail_message WHERE folder_id = ?", me.folder(world, "inbox"))[0]
    assert inbox["total"] == n and len(inbox["items"]) == min(n, 50)
    assert all(m["folder"] == "inbox" for m in inbox["items"])
    found = api.get("/api/messages", params={"q": "from:servicedesk has:attachment"}).json()
    assert found["total"] == 0
    found = api.get("/api/messages", params={"q": "from:servicedesk"}).json()
    assert found["total"] > 0 and {m["from"]["name"] for m in found["items"]} == {"IT Service Desk"}
    bad = api.get("/api/messages", params={"q": "after:someday"})
    assert bad.status_code == 422 and "after: needs a date" in bad.json()["detail"]
    one = api.get(f"/api/messages/{inbox['items'][0]['id']}").json()
    assert one["recipients"] and "body_html" in one and one["subject"] == inbox["items"][0]["subject"]
    other_box = world.one("SELECT min(id) FROM mail_message WHERE mailbox_id != ?", me.id)[0]
    assert api.get(f"/api/messages/{other_box}").status_code == 404  # someone else's mail is not yours to read
    people = api.get("/api/people", params={"q": me.name.split()[1]}).json()
    assert any(p["address"] == me.address for p in people)


def test_send_validates_like_the_form(api, world, me) -> None:
    address, their_box = colleague(world, me)
    before = world.one("SELECT count(*) FROM mail_message")[0]
    r = api.post("/api/messages/send", json={"to": ["nobody"], "subject": "x"})
    assert r.status_code == 422 and "isn't a valid email address" in r.json()["errors"]["to"]
    r = api.post("/api/messages/send", json={"to": [], "subject": "x"})
    assert r.status_code == 422 and r.json()["errors"]["to"] == "This message must have at least one recipient."
    r = api.post("/api/messages/send", json={"to": [address], "subject": ""})
    assert r.status_code == 422 and "no subject" in r.json()["detail"]
    r = api.post("/api/messages/send", json={"to": [f"ghost@{me.address.split('@')[1]}"], "subject": "x"})
    assert r.status_code == 422 and "organization's directory" in r.json()["errors"]["to"]
    r = api.post("/api/messages/send", json={"to": address, "subject": "x", "colour": "red"})
    assert r.status_code == 422 and "Unknown fields: colour" in r.json()["detail"]
    assert world.one("SELECT count(*) FROM mail_message")[0] == before
    r = api.post("/api/messages/send", json={"to": [address], "cc": ["someone@outside.example.net"], "subject": "Forecast",
                                             "body": "<p>Numbers <b>attached</b><script>alert(1)</script></p>"})
    assert r.status_code == 201, r.text
    sent = r.json()
    assert sent["folder"] == "sentitems" and "<script" not in sent["unique_body_html"] and "<b>attached</b>" in sent["unique_body_html"]
    assert world.one("SELECT count(*) FROM mail_message WHERE mailbox_id = ? AND subject = 'Forecast' AND NOT is_read", their_box)[0] == 1
    assert world.one("SELECT count(*) FROM mail_message")[0] == before + 2


def test_reply_forward_move_and_flag(api, world, me) -> None:
    address, their_box = colleague(world, me)
    mid = world.one("SELECT id FROM mail_message WHERE mailbox_id = ? AND has_attachments AND from_address != ? ORDER BY id", me.id, me.address)[0]
    reply = api.post("/api/messages/send", json={"reply_to_id": mid, "to": [world.one("SELECT from_address FROM mail_message WHERE id = ?", mid)[0]],
                                                 "subject": "RE: thanks", "body": "Thanks"}).json()
    assert reply["conversation_id"] == world.one("SELECT conversation_id FROM mail_message WHERE id = ?", mid)[0]
    fw = api.post("/api/messages/send", json={"forward_of_id": mid, "to": [address], "subject": "FW: for you"})
    assert fw.status_code == 201 and len(fw.json()["attachments"]) == world.one("SELECT count(*) FROM mail_attachment WHERE message_id = ?", mid)[0]
    moved = api.post(f"/api/messages/{mid}/move", json={"folder": "archive"}).json()
    assert moved["folder"] == "archive"
    assert api.post(f"/api/messages/{mid}/move", json={"folder": "Nowhere"}).status_code == 422
    flagged = api.patch(f"/api/messages/{mid}", json={"is_flagged": True, "is_read": False}).json()
    assert flagged["is_flagged"] is True and flagged["is_read"] is False
    assert api.patch(f"/api/messages/{mid}", json={"subject": "x"}).status_code == 422
    assert world.one("SELECT is_flagged, is_read, folder_id FROM mail_message WHERE id = ?", mid) == (1, 0, me.folder(world, "archive"))

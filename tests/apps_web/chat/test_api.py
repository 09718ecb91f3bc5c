"""The chat JSON API and the chat generator: post, reply with a mention (Activity for the person
mentioned), react, edit, delete, validation shared with the pages, hostile HTML sanitised, access
refused to non-members; and the chat data, tied to the CRM and the desk."""

from __future__ import annotations

import sqlite3

import httpx
import pytest

from apps_web.identity import SESSION_COOKIE, session_cookie
from apps_web.world import WorldStore


def client_for(live_host, world, username: str | None) -> httpx.Client:
    headers = {"Host": f"chat.localhost:{live_host.port}", "X-Sandbox-World": world.id, "Accept": "application/json"}
    if username:
        headers["Cookie"] = f"{SESSION_COOKIE}={session_cookie(live_host.secret, username, world.id)}"
    return httpx.Client(base_url=f"http://127.0.0.1:{live_host.port}", headers=headers)


@pytest.fixture(scope="module")
def world(live_host):
    return live_host.world()


@pytest.fixture(scope="module")
def db(store: WorldStore):
    conn = sqlite3.connect(f"file:{store.template(0, 1)}?mode=ro", uri=True)
    yield conn
    conn.close()


def test_api_post_reply_mention_react_edit_delete(live_host, world) -> None:
    me, my_id = world.one("SELECT username, id FROM identity_user WHERE role = 'sales_rep' ORDER BY id")
    chan = world.one("SELECT c.id FROM chat_conversation c JOIN chat_member m ON m.conversation_id = c.id WHERE m.user_id = ? AND c.name = 'Deal Desk'", my_id)[0]
    other_id, other_name = world.one("SELECT u.id, u.first_name || ' ' || u.last_name FROM chat_member m JOIN identity_user u ON u.id = m.user_id "
                                     "WHERE m.conversation_id = ? AND u.id != ? ORDER BY u.id", chan, my_id)
    with client_for(live_host, world, me) as api:
        convs = api.get("/api/conversations").json()
        assert any(c["id"] == chan and c["kind"] == "channel" and c["team"]["name"] == "Sales" for c in convs)
        # post, with the validation of the compose box
        assert api.post(f"/api/conversations/{chan}/messages", json={"text": "   "}).json()["detail"].startswith("Type a message")
        assert "Unknown fields: colour" in api.post(f"/api/conversations/{chan}/messages", json={"text": "x", "colour": 1}).json()["detail"]
        r = api.post(f"/api/conversations/{chan}/messages", json={"body_html": '<p onclick="steal()">Quote <b>ready</b><script>alert(1)</script>'
                                                                             '<a href="javascript:alert(2)">x</a><img src=x onerror=alert(3)></p>'})
        assert r.status_code == 201, r.text
        post = r.json()
        stored = world.one("SELECT body_html, body_text, parent_id, author_id FROM chat_message WHERE id = ?", post["id"])
        assert "<b>ready</b>" in stored[0] and not any(bad in stored[0] for bad in ("script", "onclick", "javascript:", "onerror", "<img"))
        assert stored[1] == "Quote readyx" and stored[2] is None and stored[3] == my_id
        # reply with a mention: a mention row and an Activity notification for that person
        bad = api.post(f"/api/messages/{post['id']}/replies", json={"text": "no at-sign here", "mentions": [10_000]})
        assert bad.status_code == 422 and "no person with id 10000" in bad.json()["detail"]
        r = api.post(f"/api/messages/{post['id']}/replies", json={"text": f"@{other_name} can you approve 10%?", "mentions": [other_id]})
        assert r.status_code == 201, r.text
        reply = r.json()
        assert reply["parent_id"] == post["id"] and reply["mentions"] == [other_id]
        assert world.one("SELECT count(*) FROM chat_activity WHERE user_id = ? AND kind = 'mention' AND message_id = ?", other_id, reply["id"])[0] == 1
        assert 'data-user="%d"' % other_id in world.one("SELECT body_html FROM chat_message WHERE id = ?", reply["id"])[0]
        # react: toggle on, set off; unknown kinds refused
        assert api.post(f"/api/messages/{reply['id']}/reactions", json={"kind": "like"}).json()["reactions"] == [{"kind": "like", "user_id": my_id}]
        assert api.post(f"/api/messages/{reply['id']}/reactions", json={"kind": "like", "on": False}).json()["reactions"] == []
        assert "Unknown reaction" in api.post(f"/api/messages/{reply['id']}/reactions", json={"kind": "clap"}).json()["detail"]
        # edit own, not others'; delete
        edited = api.patch(f"/api/messages/{post['id']}", json={"text": "Quote is ready: $12,000"}).json()
        assert edited["text"] == "Quote is ready: $12,000" and edited["edited_at"]
        theirs = world.one("SELECT id FROM chat_message WHERE conversation_id = ? AND author_id != ? AND deleted_at IS NULL ORDER BY id DESC", chan, my_id)[0]
        assert api.patch(f"/api/messages/{theirs}", json={"text": "hijack"}).json()["detail"] == "You can only edit your own messages."
        assert api.delete(f"/api/messages/{theirs}").status_code == 422
        gone = api.delete(f"/api/messages/{post['id']}").json()
        assert gone["deleted"] and gone["text"] == "This message has been deleted."
        assert world.one("SELECT deleted_at IS NOT NULL FROM chat_message WHERE id = ?", post["id"])[0] == 1
        # a conversation the user is not in: 404, as for an unknown id
        foreign = world.one("SELECT id FROM chat_conversation c WHERE NOT EXISTS (SELECT 1 FROM chat_member m WHERE m.conversation_id = c.id AND m.user_id = ?) "
                            "ORDER BY id", my_id)[0]
        assert api.get(f"/api/conversations/{foreign}").status_code == 404
        assert api.post(f"/api/conversations/{foreign}/messages", json={"text": "hi"}).status_code == 404
        assert api.get("/api/messages/99999999").status_code == 404
        # a new group chat; a person who left the company cannot be added
        trio = [r[0] for r in world.query("SELECT id FROM identity_user WHERE role = 'support_agent' ORDER BY id LIMIT 2")]
        made = api.post("/api/conversations", json={"members": trio, "topic": "Renewal prep", "text": "Kick-off"})
        assert made.status_code == 201 and made.json()["kind"] == "group" and len(made.json()["members"]) == 3
        assert api.post("/api/conversations", json={"members": [], "text": "hi"}).status_code == 422
        # search finds messages by words and by author
        found = api.get("/api/search", params={"q": "Kick-off"}).json()["items"]
        assert [m["id"] for m in found] == [made.json()["message"]["id"]]
    with client_for(live_host, world, None) as anon:
        assert anon.get("/api/conversations").status_code == 401


def test_seed_volume_and_ties_to_the_crm_and_desk(db) -> None:
    channels = db.execute("SELECT count(*) FROM chat_conversation WHERE kind = 'channel'").fetchone()[0]
    assert 18 <= channels <= 26
    names = {r[0] for r in db.execute("SELECT name FROM chat_team")}
    assert {"Sales", "Sales - EMEA", "Customer Success", "IT Service Desk", "Engineering", "Marketing", "All Company"} <= names
    n, replies = db.execute("SELECT count(*), sum(parent_id IS NOT NULL) FROM chat_message").fetchone()
    assert 1700 <= n <= 2600 and replies >= 500
    assert db.execute("SELECT count(*) FROM chat_conversation WHERE kind IN ('oneonone', 'group')").fetchone()[0] >= 100
    # Deals quoted with their own amounts; incidents with their own numbers.
    quoted = db.execute("SELECT m.body_text, o.name, o.amount FROM chat_message m JOIN crm_opportunity o ON o.id = m.crm_opportunity_id "
                        "WHERE m.parent_id IS NULL AND m.body_text LIKE '%' || o.name || '%$%'").fetchall()
    assert len(quoted) >= 50 and sum(f"${a:,.0f}" in t for t, _, a in quoted) >= 50
    incidents = db.execute("SELECT count(*) FROM chat_message m JOIN desk_incident i ON i.id = m.desk_incident_id WHERE m.body_text LIKE '%' || i.number || '%'").fetchone()[0]
    assert incidents >= 40
    # Short replies ("Thanks!") repeat as in any chat; the substantive ones do not.
    long_, distinct = db.execute("SELECT count(*), count(DISTINCT body_text) FROM chat_message WHERE length(body_text) > 40").fetchone()
    assert long_ >= 900 and distinct >= 0.8 * long_, "text is varied, not a handful of sentences"
    # Mentions are rows with a notification; read state leaves some conversations unread.
    assert db.execute("SELECT count(*) FROM chat_mention").fetchone()[0] >= 150
    assert db.execute("SELECT count(*) FROM chat_activity WHERE kind = 'mention'").fetchone()[0] >= 100
    unread = db.execute("SELECT count(*) FROM chat_member me WHERE EXISTS (SELECT 1 FROM chat_message m WHERE m.conversation_id = me.conversation_id "
                        "AND m.id > me.last_read_id AND m.author_id != me.user_id)").fetchone()[0]
    assert unread >= 50
    assert db.execute("SELECT count(*) FROM chat_file WHERE size = length(content) AND size > 0").fetchone()[0] >= 6


def test_file_preview_by_type() -> None:
    from apps_web.chat.views import file_preview

    assert file_preview("q.csv", "text/csv", b'Item,Total\n"Licenses, 50",1000\n') == {
        "kind": "table", "header": ["Item", "Total"], "rows": [["Licenses, 50", "1000"]], "cut": 0}
    assert file_preview("notes.txt", "text/plain", "line 1\nline 2") == {"kind": "text", "text": "line 1\nline 2"}
    assert file_preview("deck.pptx", "application/vnd.ms-powerpoint", b"\x00\x01") == {"kind": "none"}

"""The chat app in real Chromium, each interaction checked in the world's database: a channel post
(Enter sends, Shift+Enter is a new line), a thread reply with an @mention picked from the
type-ahead, reactions, edit and delete, hostile text, an empty message refused, a new group chat
from the people picker, search to a message, unread markers and read state, files, and 404s."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Page, expect

from apps_web.identity import SESSION_COOKIE, session_cookie

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def world(live_host):
    return live_host.world()


@pytest.fixture(scope="module")
def me(world) -> tuple[int, str, str]:
    """(id, username, full name) of the first sales rep."""
    return world.one("SELECT id, username, first_name || ' ' || last_name FROM identity_user WHERE role = 'sales_rep' ORDER BY id")


@pytest.fixture(scope="module")
def page(browser, live_host, world, me):
    context = live_host.new_context(browser, world, me[1])
    page = context.new_page()
    yield page
    context.close()


def go(page: Page, live_host, path: str) -> None:
    page.goto(live_host.url("chat", path))


def channel(world, me, name: str) -> int:
    return world.one("SELECT c.id FROM chat_conversation c JOIN chat_member m ON m.conversation_id = c.id WHERE m.user_id = ? AND c.name = ?", me[0], name)[0]


def newest(world, author: int) -> tuple:
    return world.one("SELECT id, conversation_id, parent_id, body_html, body_text, edited_at, deleted_at FROM chat_message WHERE author_id = ? ORDER BY id DESC", author)


def test_post_thread_reply_with_mention_and_reactions(page: Page, live_host, world, me) -> None:
    chan = channel(world, me, "Pipeline Reviews")
    go(page, live_host, f"/channels/{chan}")
    expect(page.get_by_role("heading", name="Pipeline Reviews")).to_be_visible()
    box = page.get_by_role("textbox", name="Start a post")
    box.click()
    box.press_sequentially("Forecast updated for Friday")
    box.press("Shift+Enter")
    box.press_sequentially("Two deals moved to commit.")
    box.press("Enter")
    page.wait_for_url(re.compile(r"/channels/\d+#m-\d+"))
    mid, conv, parent, html, text, *_ = newest(world, me[0])
    assert (conv, parent) == (chan, None) and "Forecast updated for Friday<br>Two deals moved to commit." in html
    expect(page.locator(f"#m-{mid}")).to_contain_text("Two deals moved to commit.")
    # Reply in the thread of someone else's post, mentioning its author picked from the type-ahead
    root, author, first, full = world.one(
        "SELECT m.id, u.id, u.first_name, u.first_name || ' ' || u.last_name FROM chat_message m JOIN identity_user u ON u.id = m.author_id "
        "WHERE m.conversation_id = ? AND m.parent_id IS NULL AND m.author_id != ? AND m.deleted_at IS NULL ORDER BY m.id DESC", chan, me[0])
    post = page.locator(f"#m-{root}").locator("xpath=..")
    post.get_by_role("button", name="Reply").click()
    page.wait_for_url(re.compile(rf"\?open={root}#post-{root}$"))  # Reply opens the thread
    reply = post.get_by_role("textbox", name="Reply")
    reply.click()
    reply.press_sequentially(f"@{first}")
    page.get_by_role("option", name=full).click()
    reply.press_sequentially("can you confirm the close date?")
    reply.press("Enter")
    page.wait_for_url(re.compile(rf"\?open={root}#m-\d+"))
    rid, _, parent, html, text, *_ = newest(world, me[0])
    assert parent == root and text == f"{full} can you confirm the close date?"
    assert world.query("SELECT user_id FROM chat_mention WHERE message_id = ?", rid) == [(author,)]
    assert world.one("SELECT count(*) FROM chat_activity WHERE user_id = ? AND kind = 'mention' AND message_id = ?", author, rid)[0] == 1
    expect(page.locator(f"#thread-{root}")).to_be_visible()
    expect(page.locator(f"#m-{rid} .mention")).to_have_text(full)
    # React with a heart from the message's React menu, then take it back with the reaction button
    msg = page.locator(f"#m-{root}")
    msg.get_by_role("button", name="React").click()
    msg.get_by_role("menu", name="Reactions").get_by_role("menuitem", name="Heart").click()
    page.wait_for_load_state()
    expect(page.locator(f"#m-{root}").get_by_role("button", name=re.compile(r"^Heart: \d+\. .*You"))).to_have_attribute("aria-pressed", "true")
    assert world.one("SELECT count(*) FROM chat_reaction WHERE message_id = ? AND user_id = ? AND kind = 'heart'", root, me[0])[0] == 1
    assert world.one("SELECT count(*) FROM chat_activity WHERE user_id = ? AND kind = 'reaction' AND message_id = ? AND actor_id = ?", author, root, me[0])[0] == 1
    page.locator(f"#m-{root}").get_by_role("button", name=re.compile(r"^Heart: ")).click()
    expect(page.locator(f"#m-{root}").get_by_role("button", name=re.compile(r"^Heart: .*You"))).to_have_count(0)
    assert world.one("SELECT count(*) FROM chat_reaction WHERE message_id = ? AND user_id = ? AND kind = 'heart'", root, me[0])[0] == 0


def test_edit_delete_hostile_text_and_empty_message(page: Page, live_host, world, me) -> None:
    chat = world.one("SELECT c.id FROM chat_conversation c JOIN chat_member m ON m.conversation_id = c.id WHERE m.user_id = ? AND c.kind = 'oneonone' "
                     "AND NOT EXISTS (SELECT 1 FROM chat_message x WHERE x.conversation_id = c.id AND x.id > m.last_read_id) ORDER BY c.id", me[0])[0]
    go(page, live_host, f"/chat/{chat}")
    box = page.get_by_role("textbox", name="Type a message")
    box.click()
    box.press("Enter")  # empty: refused with a sentence, nothing stored
    expect(page.get_by_role("alert")).to_contain_text("Type a message before you send it")
    before = newest(world, me[0])[0]
    hostile = '<img src=x onerror="document.title=1"><script>document.title="pwned"</script> total is $9,000'
    page.get_by_role("textbox", name="Type a message").fill(hostile)
    page.get_by_role("textbox", name="Type a message").press("Enter")
    page.wait_for_url(re.compile(r"#m-\d+"))
    mid, conv, _, html, text, *_ = newest(world, me[0])
    assert mid > before and conv == chat and "<script" not in html and "<img" not in html and text == hostile
    expect(page.locator(f"#m-{mid} .msg-text")).to_have_text(hostile)
    assert "pwned" not in page.title() and page.locator(f"#m-{mid} img, #m-{mid} script").count() == 0
    # Edit: the figure corrected; "Edited" shows
    page.locator(f"#m-{mid}").get_by_role("button", name="Edit").click()
    edit = page.locator(f"#m-{mid}").get_by_role("textbox", name="Edit message")
    edit.fill("The total is $9,500")
    edit.press("Enter")
    expect(page.locator(f"#m-{mid} .msg-text")).to_have_text("The total is $9,500")
    expect(page.locator(f"#m-{mid}")).to_contain_text("Edited")
    row = newest(world, me[0])
    assert row[4] == "The total is $9,500" and row[5] is not None
    # Delete, then the placeholder (and Undo for the author)
    page.locator(f"#m-{mid}").get_by_role("button", name="Delete").click()
    expect(page.locator(f"#m-{mid}")).to_contain_text("This message has been deleted.")
    assert newest(world, me[0])[6] is not None
    # Someone else's messages offer neither Edit nor Delete
    theirs = world.one("SELECT id FROM chat_message WHERE conversation_id = ? AND author_id != ? ORDER BY id DESC", chat, me[0])[0]
    expect(page.locator(f"#m-{theirs}").get_by_role("button", name="Edit")).to_have_count(0)
    # A conversation the user is not in, and an unknown one: the app's 404 page
    foreign = world.one("SELECT id FROM chat_conversation c WHERE NOT EXISTS (SELECT 1 FROM chat_member m WHERE m.conversation_id = c.id AND m.user_id = ?) "
                        "ORDER BY id", me[0])[0]
    for path in (f"/chat/{foreign}", "/channels/999999"):
        response = page.goto(live_host.url("chat", path))
        assert response.status == 404
        expect(page.get_by_text("doesn't exist or you don't have access to it")).to_be_visible()


def test_new_group_chat_search_and_files(page: Page, live_host, world, me) -> None:
    people = world.query("SELECT id, first_name, last_name FROM identity_user u WHERE role = 'support_agent' "
                         "AND (SELECT count(*) FROM identity_user x WHERE x.last_name = u.last_name) = 1 ORDER BY id LIMIT 3")
    go(page, live_host, "/chat")
    page.get_by_role("link", name="New chat").first.click()
    to = page.get_by_role("combobox", name="To:")
    for _, first, last in people:
        to.press_sequentially(last)
        page.get_by_role("option", name=f"{first} {last}").click()
    page.get_by_label("Group name (optional)").fill("Escalation huddle")
    msg = page.get_by_role("textbox", name="Type your first message")
    msg.fill("Let's sort out the backlog today")
    msg.press("Enter")
    page.wait_for_url(re.compile(r"/chat/\d+#m-\d+"))
    conv = int(re.search(r"/chat/(\d+)", page.url).group(1))
    assert world.one("SELECT kind, name FROM chat_conversation WHERE id = ?", conv) == ("group", "Escalation huddle")
    members = {r[0] for r in world.query("SELECT user_id FROM chat_member WHERE conversation_id = ?", conv)}
    assert members == {me[0], *(p[0] for p in people)}
    expect(page.get_by_role("heading", name="Escalation huddle")).to_be_visible()
    # Files: share one into the chat, then download it
    page.get_by_role("link", name="Files").click()
    page.get_by_label("Choose a file to share").set_input_files({"name": "backlog.csv", "mimeType": "text/csv", "buffer": b"case,owner\n00001042,me\n"})
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_role("status")).to_contain_text("backlog.csv")
    fid, name, size, mime = world.one("SELECT id, name, size, mime FROM chat_file WHERE conversation_id = ?", conv)
    assert (name, size, mime) == ("backlog.csv", 23, "text/csv")
    # The name opens the viewer in the tab (a CSV as a table); Download gives the bytes back
    page.get_by_role("table", name="Files").get_by_role("link", name="backlog.csv", exact=True).click()
    page.wait_for_url(re.compile(rf"/chat/{conv}/files/{fid}$"))
    viewer = page.get_by_role("table", name="backlog.csv")
    expect(viewer.get_by_role("columnheader")).to_have_text(["case", "owner"])
    expect(viewer.get_by_role("cell")).to_have_text(["00001042", "me"])
    with page.expect_download() as dl:
        page.get_by_role("link", name="Download", exact=True).click()
    assert open(dl.value.path(), "rb").read() == b"case,owner\n00001042,me\n"
    # A file of another conversation is not found in this one; a message's file chip opens the viewer
    other = world.one("SELECT id FROM chat_file WHERE conversation_id != ? ORDER BY id", conv)[0]
    assert page.goto(live_host.url("chat", f"/chat/{conv}/files/{other}")).status == 404
    go(page, live_host, f"/files/{fid}/view")
    page.wait_for_url(re.compile(rf"/chat/{conv}/files/{fid}$"))
    expect(page.get_by_role("heading", name="backlog.csv")).to_be_visible()
    # Search: a seeded incident number, then the result opens its message in its thread
    mid, number = world.one("SELECT m.id, i.number FROM chat_message m JOIN desk_incident i ON i.id = m.desk_incident_id JOIN chat_member me "
                            "ON me.conversation_id = m.conversation_id AND me.user_id = ? WHERE m.parent_id IS NOT NULL AND m.body_text LIKE '%' || i.number || '%' "
                            "ORDER BY m.id", me[0]) or (None, None)
    if mid is None:  # a sales rep sees the major incidents channel only when a member; search an opportunity instead
        mid, number = world.one("SELECT m.id, o.name FROM chat_message m JOIN crm_opportunity o ON o.id = m.crm_opportunity_id JOIN chat_member me "
                                "ON me.conversation_id = m.conversation_id AND me.user_id = ? WHERE m.parent_id IS NOT NULL "
                                "AND m.body_text LIKE '%' || o.name || '%' ORDER BY m.id", me[0])
    search = page.get_by_role("searchbox", name="Search")
    search.fill(f'"{number}"')
    search.press("Enter")
    page.wait_for_url(re.compile(r"/search\?q="))
    page.locator(f"a[href='/messages/{mid}']").click()
    page.wait_for_url(re.compile(rf"#m-{mid}$"))
    expect(page.locator(f"#m-{mid}")).to_be_in_viewport()


def test_unread_markers_follow_read_state(page: Page, live_host, world, me) -> None:
    conv, unread = world.one("""
        SELECT me.conversation_id, count(*) FROM chat_member me JOIN chat_conversation c ON c.id = me.conversation_id AND c.kind = 'oneonone'
        JOIN chat_message m ON m.conversation_id = me.conversation_id AND m.id > me.last_read_id AND m.author_id != me.user_id AND m.deleted_at IS NULL
        WHERE me.user_id = ? GROUP BY me.conversation_id ORDER BY me.conversation_id""", me[0])
    go(page, live_host, "/chat")
    item = page.get_by_role("list", name="Chats").locator(f"a[href='/chat/{conv}']")
    expect(item).to_have_class(re.compile(r"\bunread\b"))
    expect(item.get_by_label(f"{unread} unread")).to_be_visible()
    item.click()
    expect(page.get_by_role("separator", name="New messages")).to_be_visible()
    newest_id = world.one("SELECT max(id) FROM chat_message WHERE conversation_id = ?", conv)[0]
    assert world.one("SELECT last_read_id FROM chat_member WHERE conversation_id = ? AND user_id = ?", conv, me[0])[0] == newest_id
    go(page, live_host, "/chat")
    expect(page.get_by_role("list", name="Chats").locator(f"a[href='/chat/{conv}']")).not_to_have_class(re.compile(r"\bunread\b"))
    # The colleague answers (through the API, in their own session): bold again, with the count
    other = world.one("SELECT u.username FROM chat_member m JOIN identity_user u ON u.id = m.user_id WHERE m.conversation_id = ? AND m.user_id != ?", conv, me[0])[0]
    headers = {"Host": f"chat.localhost:{live_host.port}", "X-Sandbox-World": world.id,
               "Cookie": f"{SESSION_COOKIE}={session_cookie(live_host.secret, other, world.id)}"}
    r = httpx.post(f"http://127.0.0.1:{live_host.port}/api/conversations/{conv}/messages", json={"text": "Any news?"}, headers=headers)
    assert r.status_code == 201
    go(page, live_host, "/chat")
    item = page.get_by_role("list", name="Chats").locator(f"a[href='/chat/{conv}']")
    expect(item).to_have_class(re.compile(r"\bunread\b"))
    expect(item).to_contain_text("Any news?")
    expect(page.get_by_role("navigation", name="App bar").get_by_role("link", name=re.compile(r"^Chat, \d+ unread"))).to_be_visible()

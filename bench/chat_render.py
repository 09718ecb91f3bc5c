"""Chat pages: server-side render time of every page at the default scale (target: median <= 20 ms
of CPU), measured as every app's pages are (bench/_render.py), signed in as a sales rep."""

from __future__ import annotations

from . import _render

REP = "SELECT id, username FROM identity_user WHERE role = 'sales_rep' ORDER BY id"


def _pages(conn, user_id: int) -> _render.Pages:
    """Every page, on the busiest conversations the user is in."""
    def busiest(kind: str) -> int:
        return conn.execute(
            "SELECT c.id FROM chat_conversation c JOIN chat_member m ON m.conversation_id = c.id AND m.user_id = ? "
            "WHERE c.kind = ? ORDER BY (SELECT count(*) FROM chat_message x WHERE x.conversation_id = c.id) DESC, c.id LIMIT 1",
            (user_id, kind)).fetchone()[0]
    channel, chat, group = busiest("channel"), busiest("oneonone"), busiest("group")
    post = conn.execute("SELECT max(id) FROM chat_message WHERE conversation_id = ? AND parent_id IS NULL", (channel,)).fetchone()[0]
    return [("activity", "/activity"), ("chat list", "/chat"), ("teams list", "/teams"), ("channel (busiest)", f"/channels/{channel}"),
            ("channel, all posts", f"/channels/{channel}?older=1"), ("channel, thread open", f"/channels/{channel}?open={post}"),
            ("channel files", f"/channels/{channel}/files"), ("channel people", f"/channels/{channel}/people"),
            ("1:1 chat", f"/chat/{chat}"), ("group chat", f"/chat/{group}"), ("new chat", "/chat/new"),
            ("search", "/search?q=renewal"), ("API conversations", "/api/conversations"),
            ("API messages", f"/api/conversations/{channel}/messages"), ("API people", "/api/people?q=a")]


def main(repeat: int = 20, warmup: int = 2) -> None:
    _render.run("Chat", "chat.localhost", REP, _pages, repeat=repeat, warmup=warmup)


if __name__ == "__main__":
    main()

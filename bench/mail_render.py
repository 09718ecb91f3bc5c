"""Mail pages (Outlook on the web): server-side render time at the default scale (target: CPU median
<= 20 ms), measured as every app's pages are (bench/_render.py), signed in as the person with the
largest mailbox who is also a member of a shared mailbox (the 3,000-odd messages of scale 1 are spread
over everyone's mailboxes; this one has the most)."""

from __future__ import annotations

from . import _render

# The member of a shared mailbox with the most messages of their own.
BUSIEST = """SELECT u.id, u.username FROM identity_user u JOIN mail_mailbox b ON b.user_id = u.id
             JOIN mail_message m ON m.mailbox_id = b.id
             WHERE u.id IN (SELECT user_id FROM mail_mailbox_member)
             GROUP BY u.id ORDER BY count(*) DESC, u.id"""


def _pages(conn, user_id: int) -> _render.Pages:
    box = conn.execute("SELECT id FROM mail_mailbox WHERE user_id = ?", (user_id,)).fetchone()[0]
    inbox = conn.execute("SELECT id FROM mail_folder WHERE mailbox_id = ? AND kind = 'inbox'", (box,)).fetchone()[0]
    # The longest conversation in the inbox, opened on its newest message.
    longest = conn.execute("""SELECT max(id) FROM mail_message WHERE mailbox_id = ? AND folder_id = ? GROUP BY conversation_id
                              ORDER BY count(*) DESC, max(id) LIMIT 1""", (box, inbox)).fetchone()[0]
    sender = conn.execute("SELECT from_address FROM mail_message WHERE id = ?", (longest,)).fetchone()[0]
    shared, shared_msg = conn.execute("""SELECT b.address, max(m.id) FROM mail_mailbox_member mm JOIN mail_mailbox b ON b.id = mm.mailbox_id
                                         JOIN mail_message m ON m.mailbox_id = b.id WHERE mm.user_id = ? GROUP BY b.id
                                         ORDER BY count(m.id) DESC LIMIT 1""", (user_id,)).fetchone()
    return [
        ("inbox", "/mail/inbox"),
        ("inbox, page 2", "/mail/inbox?page=2"),
        ("conversation (longest)", f"/mail/inbox/id/{longest}"),
        ("sent items", "/mail/sentitems"),
        ("archive", "/mail/archive"),
        ("search from:", f"/mail/search?q=from:{sender}"),
        ("search words", "/mail/search?q=renewal"),
        ("new mail", "/mail/compose"),
        ("reply all", f"/mail/compose?mode=replyall&source={longest}"),
        ("forward", f"/mail/compose?mode=forward&source={longest}"),
        ("shared mailbox inbox", f"/mail/{shared}/inbox"),
        ("shared mailbox message", f"/mail/{shared}/inbox/id/{shared_msg}"),
        ("settings: rules and automatic replies", "/mail/options"),
        ("API messages", "/api/messages"),
        ("API search", "/api/messages?q=renewal"),
    ]


def main(repeat: int = 20, warmup: int = 3) -> None:
    _render.run("Mail", "mail.localhost", BUSIEST, _pages, repeat=repeat, warmup=warmup)


if __name__ == "__main__":
    main()

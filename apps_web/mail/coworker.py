"""Mail's co-worker adapter: a mail the persona sends to colleagues is a request to each of them
(To and Cc); a reply is a real reply in the same thread (RE: subject, quoted history, the persona's
Inbox copy unread, the co-worker's copy in Sent Items), sent through mail's own send path."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import select

from ..identity.models import User
from ..messaging import Outbound, Reply, Request, session_on, usernames_of
from ..world.clock import WorldClock
from .compose import ComposeForm, prefill, send
from .delivery import html_to_text
from .mailbox import mailbox_for
from .models import Mailbox, Message


class MailCoworkers:
    app = "mail"

    def inbound(self, conn: Any, diff: Any, persona_id: int) -> list[Request]:
        box = conn.execute("SELECT id, address FROM mail_mailbox WHERE user_id = ?", (persona_id,)).fetchone()
        if box is None:
            return []
        t = diff.table("mail_message")
        sent = [r for r in t.added if not r.get("is_draft") and r.get("sent_at")]
        sent += [u.after for u in t.updated if u.before.get("is_draft") and not u.after.get("is_draft") and u.after.get("sent_at")]
        out: list[Request] = []
        sender = usernames_of(conn, [persona_id]).get(persona_id, "")
        for row in sorted(sent, key=lambda r: r["id"]):
            if row["mailbox_id"] != box[0]:
                continue
            rows = conn.execute(
                "SELECT b.user_id FROM mail_recipient r JOIN mail_mailbox b ON lower(b.address) = lower(r.address) "
                "WHERE r.message_id = ? AND r.kind IN ('to', 'cc') ORDER BY r.position, r.id", (row["id"],)).fetchall()
            ids = list(dict.fromkeys(r[0] for r in rows if r[0] != persona_id))
            names = usernames_of(conn, ids)
            to = tuple(names[i] for i in ids if i in names)
            if not to:
                continue
            out.append(Request(app="mail", kind="message", sender=sender, to=to, subject=row.get("subject") or "",
                               text=html_to_text(row.get("unique_body_html") or row.get("body_html") or ""),
                               at=_dt(row["sent_at"]), ref={"internet_message_id": row["internet_message_id"]}))
        return out

    def deliver(self, conn: Any, reply: Reply) -> dict[str, Any]:
        with session_on(conn) as session:
            user = session.exec(select(User).where(User.username == reply.actor)).one()
            box = mailbox_for(session, user)
            source = session.exec(select(Message).where(Message.mailbox_id == box.id,
                                                        Message.internet_message_id == reply.ref["internet_message_id"])
                                  .order_by(Message.id)).first()
            if source is None:  # the co-worker's copy is gone (deleted by a rule?): answer in a new mail
                form = ComposeForm(to=_address(session, reply.to[0]), subject="RE: " + reply.subject)
            else:
                form = prefill(session, box, source, "reply")
            form.body = "<p>" + _escape(reply.text) + "</p>"
            form.confirm_no_subject = True
            msg = send(session, box, user, form, WorldClock(reply.at), _domain(conn, box))
            return {"table": "mail_message", "id": msg.id}

    def send(self, conn: Any, message: Outbound) -> dict[str, Any]:
        with session_on(conn) as session:
            user = session.exec(select(User).where(User.username == message.sender)).one()
            box = mailbox_for(session, user)
            to = "; ".join(_address(session, u) for u in message.to)
            form = ComposeForm(to=to, subject=message.subject, body="<p>" + _escape(message.text) + "</p>", confirm_no_subject=True)
            msg = send(session, box, user, form, WorldClock(message.at), _domain(conn, box))
            return {"table": "mail_message", "id": msg.id}


def _address(session: Any, username: str) -> str:
    user = session.exec(select(User).where(User.username == username)).one()
    box = session.exec(select(Mailbox).where(Mailbox.user_id == user.id)).one()
    return f"{box.display_name} <{box.address}>"


def _domain(conn: Any, box: Mailbox) -> str:
    row = conn.execute("SELECT value FROM sandbox_meta WHERE key = 'domain'").fetchone()
    return (row[0] if row and row[0] else "") or box.address.split("@", 1)[1]


def _escape(text: str) -> str:
    from html import escape

    return escape(text).replace("\n", "<br>")


def _dt(value: Any) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


def adapter() -> MailCoworkers:
    return MailCoworkers()

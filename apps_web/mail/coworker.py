"""Mail's co-worker adapter: a mail the persona sends to colleagues is a request to each of them
(To and Cc); a reply is a real reply in the same thread (RE: subject, quoted history, the persona's
Inbox copy unread, the co-worker's copy in Sent Items), sent through mail's own send path.

Shared mailboxes: a mail to support@ is a request to its members (those with Full Access); a member
answers from the shared mailbox when they may send as it (as a support team does), else from their
own. A mail the persona sends from a shared mailbox they belong to is theirs too, so the answer
lands in that mailbox's Inbox."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import HTTPException
from sqlmodel import select

from ..identity.models import User
from ..messaging import Outbound, Reply, Request, session_on, usernames_of
from ..world.clock import WorldClock
from .compose import ComposeForm, prefill, send
from .delivery import html_to_text
from .mailbox import box_by_address, mailbox_for, shared_boxes
from .models import Mailbox, Message


class MailCoworkers:
    app = "mail"

    def inbound(self, conn: Any, diff: Any, persona_id: int) -> list[Request]:
        own = {r[0] for r in conn.execute(
            "SELECT id FROM mail_mailbox WHERE user_id = ? UNION SELECT mailbox_id FROM mail_mailbox_member "
            "WHERE user_id = ? AND full_access", (persona_id, persona_id)).fetchall()}
        if not own:
            return []
        t = diff.table("mail_message")
        sent = [r for r in t.added if not r.get("is_draft") and r.get("sent_at")]
        sent += [u.after for u in t.updated if u.before.get("is_draft") and not u.after.get("is_draft") and u.after.get("sent_at")]
        # A meeting invitation (or a response, or a cancellation) asks for an answer in the calendar, not a reply by mail.
        sent = [r for r in sent if not r.get("meeting_type")]
        out: list[Request] = []
        sender = usernames_of(conn, [persona_id]).get(persona_id, "")
        for row in sorted(sent, key=lambda r: r["id"]):
            if row["mailbox_id"] not in own:
                continue
            # A person's own mailbox stands for them; a shared one for its members, in their order.
            rows = conn.execute(
                "SELECT coalesce(b.user_id, m.user_id), CASE WHEN b.user_id IS NULL THEN b.address END "
                "FROM mail_recipient r JOIN mail_mailbox b ON lower(b.address) = lower(r.address) "
                "LEFT JOIN mail_mailbox_member m ON b.user_id IS NULL AND m.mailbox_id = b.id AND m.full_access "
                "WHERE r.message_id = ? AND r.kind IN ('to', 'cc') ORDER BY r.position, r.id, m.id", (row["id"],)).fetchall()
            via: dict[int, str] = {}
            for uid, shared in rows:
                if uid is not None and uid != persona_id and uid not in via:
                    via[uid] = shared or ""
            names = usernames_of(conn, list(via))
            to = tuple(names[i] for i in via if i in names)
            if not to:
                continue
            ref: dict[str, Any] = {"internet_message_id": row["internet_message_id"]}
            shared_of = {names[i]: a for i, a in via.items() if a and i in names}
            if shared_of:
                ref["shared"] = shared_of  # username -> the shared mailbox the request reached them through
            out.append(Request(app="mail", kind="message", sender=sender, to=to, subject=row.get("subject") or "",
                               text=html_to_text(row.get("unique_body_html") or row.get("body_html") or ""),
                               at=_dt(row["sent_at"]), ref=ref))
        return out

    def deliver(self, conn: Any, reply: Reply) -> dict[str, Any]:
        with session_on(conn) as session:
            user = session.exec(select(User).where(User.username == reply.actor)).one()
            own = mailbox_for(session, user)
            shared = (reply.ref.get("shared") or {}).get(reply.actor)
            inbox = _shared_box(session, user, shared) or own if shared else own
            box = inbox if inbox.kind != "shared" or inbox.id in {b.id for b in shared_boxes(session, user, send_as=True)} else own
            source = session.exec(select(Message).where(Message.mailbox_id == inbox.id,
                                                        Message.internet_message_id == reply.ref["internet_message_id"])
                                  .order_by(Message.id)).first()
            if source is None:  # the co-worker's copy is gone (deleted by a rule?): answer in a new mail
                form = ComposeForm(to=_address(session, reply.to[0]), subject="RE: " + reply.subject, from_address=box.address)
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


def _shared_box(session: Any, user: User, address: str) -> Mailbox | None:
    """The shared mailbox a request reached ``user`` through, unless they have lost access since."""
    try:
        return box_by_address(session, user, address)
    except HTTPException:
        return None


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

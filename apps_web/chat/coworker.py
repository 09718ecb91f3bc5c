"""Chat's co-worker adapter: the persona's messages to people (a 1:1 or group chat, or a channel
post that @mentions them) are requests; replies are messages in the same chat or thread."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from ..identity.models import User
from ..messaging import Outbound, Reply, Request, session_on, user_ids, usernames_of
from .models import Conversation
from .service import Draft, existing_oneonone, post, start_chat


class ChatCoworkers:
    app = "chat"

    def inbound(self, conn: Any, diff: Any, persona_id: int) -> list[Request]:
        out: list[Request] = []
        for row in sorted(diff.table("chat_message").added, key=lambda r: r["id"]):
            if row["author_id"] != persona_id or row.get("deleted_at"):
                continue
            conv = conn.execute("SELECT kind FROM chat_conversation WHERE id = ?", (row["conversation_id"],)).fetchone()
            if conv is None:
                continue
            mentioned = [r[0] for r in conn.execute("SELECT user_id FROM chat_mention WHERE message_id = ? ORDER BY id", (row["id"],))]
            if conv[0] == "channel":
                ids = list(mentioned)
                if row.get("parent_id"):  # a thread reply also reaches the post's author
                    parent = conn.execute("SELECT author_id FROM chat_message WHERE id = ?", (row["parent_id"],)).fetchone()
                    if parent and parent[0] not in ids:
                        ids.append(parent[0])
            elif conv[0] == "group" and mentioned:
                ids = mentioned
            else:
                ids = [r[0] for r in conn.execute("SELECT user_id FROM chat_member WHERE conversation_id = ? ORDER BY user_id", (row["conversation_id"],))]
            names = usernames_of(conn, [i for i in ids if i != persona_id])
            sender = usernames_of(conn, [persona_id]).get(persona_id, "")
            to = tuple(names[i] for i in ids if i in names)
            if not to:
                continue
            out.append(Request(app="chat", kind="message", sender=sender, to=to, text=row.get("body_text") or "",
                               subject=row.get("subject") or "", at=_dt(row["created_at"]),
                               ref={"conversation_id": row["conversation_id"], "message_id": row["id"],
                                    "thread_id": (row.get("parent_id") or row["id"]) if conv[0] == "channel" else None}))
        return out

    def deliver(self, conn: Any, reply: Reply) -> dict[str, Any]:
        with session_on(conn) as session:
            user = session.exec(select(User).where(User.username == reply.actor)).one()
            conv = session.get(Conversation, reply.ref["conversation_id"])
            msg = post(session, user, conv, Draft(text=reply.text), reply.at, parent_id=reply.ref.get("thread_id"))
            session.commit()
            return {"table": "chat_message", "id": msg.id}

    def send(self, conn: Any, message: Outbound) -> dict[str, Any]:
        with session_on(conn) as session:
            sender = session.exec(select(User).where(User.username == message.sender)).one()
            if message.conversation is not None:
                conv = _conversation(session, message.conversation)
                msg = post(session, sender, conv, Draft(text=message.text, subject=message.subject), message.at)
            else:
                ids = list(user_ids(conn, list(message.to)).values())
                conv = existing_oneonone(session, sender.id, ids[0]) if len(ids) == 1 else None
                if conv is not None:
                    msg = post(session, sender, conv, Draft(text=message.text), message.at)
                else:
                    conv, msg = start_chat(session, sender, ids, "", Draft(text=message.text), message.at)
            session.commit()
            return {"table": "chat_message", "id": msg.id}


def _conversation(session: Any, ref: str | int) -> Conversation:
    conv = session.get(Conversation, int(ref)) if str(ref).isdigit() else session.exec(
        select(Conversation).where(Conversation.name == str(ref)).order_by(Conversation.id)).first()
    if conv is None:
        raise ValueError(f"no chat conversation {ref!r} (give its id or its name)")
    return conv


def _dt(value: Any) -> Any:
    from datetime import datetime

    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


def adapter() -> ChatCoworkers:
    return ChatCoworkers()

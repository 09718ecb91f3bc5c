"""A task set-up hook (``python: apps_web.mail.taskthreads:insert_thread``): writes a conversation
between the persona and an outside contact into the persona's mailbox (their messages in the Inbox,
the persona's in Sent Items), so a task can hand an agent a long thread to read.

The task's parameter ``thread`` says what to write::

    {"box": 12, "me": "Ann Lee", "address": "ann@corp.example", "contact": "Bo Chan", "email": "bo@cust.example",
     "subject": "Renewal", "key": "renewal-42", "crm_account_id": 3, "crm_opportunity_id": 42,
     "messages": [{"out": True, "minutes": 2880, "body": "<p>...</p>"}, ...]}   # minutes before the clock

Every message answers the one before it (``in_reply_to``); they share one conversation.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta
from typing import Any

from .delivery import text_preview


def _db(t: datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M:%S.%f")


def insert_thread(conn: sqlite3.Connection, params: dict[str, Any]) -> int:
    """Write ``params["thread"]``; returns the number of messages written."""
    t = params["thread"]
    now = params["now"] if isinstance(params["now"], datetime) else datetime.fromisoformat(str(params["now"]))
    folders = dict(conn.execute("select kind, id from mail_folder where mailbox_id = ? and kind in ('inbox', 'sent')", (t["box"],)).fetchall())
    conversation = f"conv-{t['key']}"
    domain = t["email"].split("@", 1)[1]
    previous = None
    for i, m in enumerate(t["messages"]):
        at = _db(now - timedelta(minutes=int(m["minutes"])))
        out = bool(m["out"])
        imid = f"<{t['key']}-{i}@{t['address'].split('@', 1)[1] if out else domain}>"
        subject = t["subject"] if i == 0 else f"RE: {t['subject']}"
        sender = (t["address"], t["me"]) if out else (t["email"], t["contact"])
        to = (t["email"], t["contact"]) if out else (t["address"], t["me"])
        cur = conn.execute(
            """insert into mail_message (mailbox_id, folder_id, conversation_id, internet_message_id, in_reply_to, subject, body_html,
               unique_body_html, preview, from_address, from_name, sent_at, received_at, is_read, is_flagged, is_draft, importance,
               categories, has_attachments, crm_account_id, crm_opportunity_id, crm_case_id, created_at, updated_at)
               values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 0, 0, 'normal', '', 0, ?, ?, null, ?, ?)""",
            (t["box"], folders["sent" if out else "inbox"], conversation, imid, previous, subject, m["body"], m["body"],
             text_preview(m["body"]), sender[0], sender[1], at, at, t.get("crm_account_id"), t.get("crm_opportunity_id"), at, at))
        conn.execute("insert into mail_recipient (message_id, kind, address, name, position) values (?, 'to', ?, ?, 0)",
                     (cur.lastrowid, to[0], to[1]))
        previous = imid
    return len(t["messages"])

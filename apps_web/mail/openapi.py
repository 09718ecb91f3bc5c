"""The mail API's request bodies in OpenAPI (the routes read raw JSON to answer in the form's words)."""

from __future__ import annotations

from ..tools import json_body

ADDRESSES = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
             "description": "Addresses or names from the directory: a list, or one string separated by ;"}



SEND = json_body("SendMessage", {
    "to": ADDRESSES, "cc": ADDRESSES, "bcc": ADDRESSES,
    "subject": {"type": "string"},
    "body": {"type": "string", "description": "The message text (HTML allowed: formatting is kept, scripts dropped)"},
    "reply_to_id": {"type": "integer", "description": "id of the message this replies to"},
    "reply_all": {"type": "boolean", "description": "reply to everyone on the message (with reply_to_id)"},
    "forward_of_id": {"type": "integer", "description": "id of the message this forwards (its attachments go along)"},
    "attachment_ids": {"type": "array", "items": {"type": "integer"}, "description": "ids of attachments to include"},
    "confirm_no_subject": {"type": "boolean", "description": "send even though the subject is empty"},
    "draft_id": {"type": "integer", "description": "id of the draft this sends (the draft is removed)"},
    "from": {"type": "string", "description": "send from this address: your own (the default) or a shared mailbox you have Send As on"},
})
MOVE = json_body("MoveMessage", {"folder": {"type": "string", "description": "a folder's slug (inbox, archive, deleteditems...), id or name"}}, ["folder"])
UPDATE = json_body("UpdateMessage", {"is_read": {"type": "boolean"}, "is_flagged": {"type": "boolean"}})

EVENT = json_body("NewEvent", {
    "subject": {"type": "string"},
    "start": {"type": "string", "description": "ISO date and time, e.g. 2026-03-18T14:30"},
    "end": {"type": "string", "description": "ISO date and time"},
    "required": ADDRESSES, "optional": ADDRESSES,
    "room_id": {"type": "integer", "description": "id of a room (see mail_rooms)"},
    "location": {"type": "string"},
    "all_day": {"type": "boolean"},
    "is_online": {"type": "boolean", "description": "a Teams meeting"},
    "show_as": {"type": "string", "enum": ["free", "tentative", "busy", "oof", "elsewhere"]},
    "recurrence": {"type": "object", "description": "{type: daily|weekly, days: [mon, ...], interval, until (date) or count}",
                   "properties": {"type": {"type": "string", "enum": ["none", "daily", "weekly"]}, "days": {"type": "array", "items": {"type": "string"}},
                                  "interval": {"type": "integer", "minimum": 1}, "until": {"type": "string"}, "count": {"type": "integer", "minimum": 1}}},
    "body": {"type": "string"},
}, ["subject", "start", "end"])
RESPOND = json_body("EventResponse", {
    "response": {"type": "string", "enum": ["accepted", "tentative", "declined"]},
    "comment": {"type": "string"},
    "send_response": {"type": "boolean", "description": "tell the organiser (default true)"},
}, ["response"])
CANCEL = json_body("CancelEvent", {"message": {"type": "string", "description": "the note sent to the attendees"}})

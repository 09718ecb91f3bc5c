"""The chat API's request bodies in OpenAPI (the routes read raw JSON to answer in the page's words)."""

from __future__ import annotations

from ..tools import json_body
from .models import REACTIONS

MENTIONS = {"type": "array", "items": {"type": "integer"}, "description": "ids of the people @mentioned (they get an Activity notification)"}



MESSAGE = {
    "text": {"type": "string", "description": "the message (plain text; @Name mentions need their ids in mentions)"},
    "body_html": {"type": "string", "description": "instead of text: formatted HTML (sanitised)"},
    "mentions": MENTIONS,
}
POST = json_body("NewPost", {**MESSAGE, "subject": {"type": "string", "description": "a channel post's subject line"}})
REPLY = json_body("Reply", MESSAGE)
EDIT = json_body("EditMessage", MESSAGE)
NEW_CHAT = json_body("NewChat", {
    "members": {"type": "array", "items": {"type": "integer"}, "description": "ids of the people to chat with (a 1:1 chat is reused)"},
    "topic": {"type": "string", "description": "a group chat's name"},
    **MESSAGE,
}, ["members"])
REACT = json_body("Reaction", {
    "kind": {"type": "string", "enum": list(REACTIONS)},
    "on": {"type": "boolean", "description": "set (true) or remove (false); without it the reaction toggles"},
}, ["kind"])

"""The chat API's request bodies in OpenAPI (the routes read raw JSON to answer in the page's words)."""

from __future__ import annotations

from typing import Any

from .models import REACTIONS

MENTIONS = {"type": "array", "items": {"type": "integer"}, "description": "ids of the people @mentioned (they get an Activity notification)"}


def _body(title: str, properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "title": title, "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


MESSAGE = {
    "text": {"type": "string", "description": "the message (plain text; @Name mentions need their ids in mentions)"},
    "body_html": {"type": "string", "description": "instead of text: formatted HTML (sanitised)"},
    "mentions": MENTIONS,
}
POST = _body("NewPost", {**MESSAGE, "subject": {"type": "string", "description": "a channel post's subject line"}})
REPLY = _body("Reply", MESSAGE)
EDIT = _body("EditMessage", MESSAGE)
NEW_CHAT = _body("NewChat", {
    "members": {"type": "array", "items": {"type": "integer"}, "description": "ids of the people to chat with (a 1:1 chat is reused)"},
    "topic": {"type": "string", "description": "a group chat's name"},
    **MESSAGE,
}, ["members"])
REACT = _body("Reaction", {
    "kind": {"type": "string", "enum": list(REACTIONS)},
    "on": {"type": "boolean", "description": "set (true) or remove (false); without it the reaction toggles"},
}, ["kind"])

"""The drive API's request bodies in OpenAPI (the routes read raw JSON to answer in the page's words)."""

from __future__ import annotations

from ..tools import json_body

CREATE = json_body("NewItem", {
    "parent_id": {"type": "integer", "description": "id of the folder to create it in"},
    "kind": {"type": "string", "enum": ["folder", "document", "sheet"]},
    "name": {"type": "string"},
}, ["parent_id", "kind", "name"])
UPDATE = json_body("UpdateItem", {
    "name": {"type": "string", "description": "a new name (rename)"},
    "parent_id": {"type": "integer", "description": "id of the folder to move it to"},
})
SHARE = json_body("Share", {
    "role": {"type": "string", "enum": ["view", "edit"]},
    "user_ids": {"type": "array", "items": {"type": "integer"}, "description": "ids of people"},
    "groups": {"type": "array", "items": {"type": "string"}, "description": "departments, by name"},
}, ["role"])
RUN = {"type": "object", "properties": {"text": {"type": "string"}, "bold": {"type": "boolean"}, "italic": {"type": "boolean"},
                                        "underline": {"type": "boolean"}, "link": {"type": "string"}}, "required": ["text"]}
DOCUMENT = json_body("DocumentContent", {
    "blocks": {"type": "array", "description": "the whole document, one block a paragraph",
               "items": {"type": "object", "properties": {"style": {"type": "string", "description": "Normal, Title, Heading 1-3, List Bullet, List Number"},
                                                          "runs": {"type": "array", "items": RUN}}, "required": ["runs"]}},
}, ["blocks"])
CELLS = json_body("CellEdits", {
    "edits": {"type": "array", "items": {"type": "object", "properties": {
        "sheet": {"type": "string", "description": "the sheet's name"},
        "ref": {"type": "string", "description": "a cell reference such as B3"},
        "input": {"type": "string", "description": "what is typed: a value, or a formula starting with ="}},
        "required": ["ref", "input"]}},
}, ["edits"])

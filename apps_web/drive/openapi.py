"""The drive API's request bodies in OpenAPI (the routes read raw JSON to answer in the page's words)."""

from __future__ import annotations

from ..tools import json_body
from .documents import MAX_TABLE_COLS, MAX_TABLE_ROWS, STYLES

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
CELL = {"type": "array", "items": RUN, "description": "a cell: its line of text as runs ([] for an empty cell)"}
# A block is a paragraph (style and runs) or a table (style "Table" and rows): the editor's and the
# .docx's tables are stored this way, so a tool reads and writes them as the editor does.
BLOCK = {"type": "object", "properties": {
    "style": {"type": "string", "enum": list(STYLES), "description": "Normal, Title, Heading 1-3, List Bullet, List Number; Table for a table (give rows, not runs)"},
    "runs": {"type": "array", "items": RUN, "description": "a paragraph's text, as formatted runs"},
    "rows": {"type": "array", "items": {"type": "array", "items": CELL, "description": "a row: its cells, left to right"},
             "description": f"a table's rows, top to bottom; the first is the header row (at most {MAX_TABLE_ROWS} rows of {MAX_TABLE_COLS} cells; "
                            "shorter rows are padded with empty cells)"},
}}
DOCUMENT = json_body("DocumentContent", {
    "blocks": {"type": "array", "description": "the whole document in order: one block a paragraph or a table; what is left out is deleted",
               "items": BLOCK},
}, ["blocks"])
_ITEM = {"id": {"type": "integer"}, "name": {"type": "string"}, "kind": {"type": "string"}, "parent_id": {"type": ["integer", "null"]},
         "version": {"type": "integer"}}
_DOC_OUT = {"type": "object", "title": "Document", "properties": {
    **_ITEM,
    "blocks": {"type": "array", "items": BLOCK, "description": "the document's paragraphs and tables in order (a table: style Table with rows of cells of runs)"},
    "comments": {"type": "array", "items": {"type": "object"}, "description": "comments: id, parent_id, anchor, body, author_id, resolved"},
    "suggestions": {"type": "array", "items": {"type": "object"}, "description": "tracked changes: id, block, offset, anchor, text, author_id, status"},
}}
DOCUMENT_OUT = {"responses": {"200": {"description": "The document", "content": {"application/json": {"schema": _DOC_OUT}}}}}
DOCUMENT_PUT = {**DOCUMENT, **DOCUMENT_OUT}
CELLS = json_body("CellEdits", {
    "edits": {"type": "array", "items": {"type": "object", "properties": {
        "sheet": {"type": "string", "description": "the sheet's name"},
        "ref": {"type": "string", "description": "a cell reference such as B3"},
        "input": {"type": "string", "description": "what is typed: a value, or a formula starting with ="}},
        "required": ["ref", "input"]}},
}, ["edits"])

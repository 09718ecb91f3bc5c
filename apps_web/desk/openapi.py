"""The desk API's request side in OpenAPI: which tables each Table API route serves, and the fields
of the bodies it accepts, from the forms' own field list and choices.

``x-bodies`` maps a table to its body schema where one route serves several tables; the tools built
from the OpenAPI document give each table its own tool with its own arguments.
"""

from __future__ import annotations

from typing import Any

from . import choices as C
from .tables import TABLES
from .validation import FIELDS, JOURNAL_FIELDS

REFERENCE_OF = {"caller_id": "sys_user", "cmdb_ci": "cmdb_ci", "assignment_group": "sys_user_group", "assigned_to": "sys_user"}
ENUMS: dict[str, list[Any]] = {
    "state": C.INCIDENT_STATES, "hold_reason": C.HOLD_REASONS, "close_code": C.CLOSE_CODES,
    "contact_type": C.CHANNELS, "impact": list(C.IMPACT), "urgency": list(C.URGENCY), "category": list(C.CATEGORIES),
}


def _incident_field(name: str, label: str) -> dict[str, Any]:
    if name in REFERENCE_OF:
        return {"type": "integer", "description": f"{label}: sys_id of a {REFERENCE_OF[name]} record (see desk_lookup)"}
    if name == "company":
        return {"type": "integer", "description": f"{label}: id of the customer's CRM account"}
    if name in ("impact", "urgency"):
        return {"type": "integer", "enum": ENUMS[name], "description": f"{label}: 1 = High, 2 = Medium, 3 = Low"}
    schema: dict[str, Any] = {"type": "string", "description": label}
    if name in ENUMS:
        schema["enum"] = ENUMS[name]
    return schema


INCIDENT_BODY: dict[str, Any] = {
    "type": "object",
    "title": "IncidentFields",
    "properties": {
        **{name: _incident_field(name, label) for name, (_attr, label) in FIELDS.items()},
        **{name: {"type": "string", "description": f"{label} (a journal entry added to the activity stream)"} for name, label in JOURNAL_FIELDS.items()},
    },
    "additionalProperties": False,
}
APPROVAL_BODY: dict[str, Any] = {
    "type": "object",
    "title": "ApprovalDecision",
    "properties": {
        "state": {"type": "string", "enum": list(C.APPROVAL_STATES)[1:], "description": "approved or rejected"},
        "comments": {"type": "string", "description": "Comments (required to reject)"},
    },
    "required": ["state"],
    "additionalProperties": False,
}
ORDER_BODY: dict[str, Any] = {"requestBody": {"required": False, "content": {"application/json": {"schema": {
    "type": "object",
    "title": "CatalogOrder",
    "properties": {
        "sysparm_quantity": {"type": "integer", "minimum": 1, "default": 1, "description": "Quantity"},
        "variables": {"type": "object", "description": "The item's variables by name (see the item's form), e.g. {\"ram\": \"16 GB\"}"},
        "requested_for": {"type": "integer", "description": "sys_id of the user the order is for (default: you)"},
    },
    "additionalProperties": False,
}}}}}


def _form_field(f) -> dict[str, Any]:  # noqa: ANN001 - a forms.F
    """A problem or change form field as JSON schema (the same rules the form checks)."""
    if f.kind == "reference":
        return {"type": "integer", "description": f"{f.label}: sys_id of a {f.ref} record (see desk_lookup)"}
    if f.kind == "number":
        return {"type": "integer", "enum": list(f.choices), "description": f"{f.label}: 1 is the highest"}
    if f.kind == "datetime":
        return {"type": "string", "description": f"{f.label}: YYYY-MM-DD HH:MM:SS"}
    schema: dict[str, Any] = {"type": "string", "description": f.label}
    if f.kind == "choice":
        schema["enum"] = list(f.choices)
    return schema


def _form_body(title: str, fields: dict, notes: bool = True) -> dict[str, Any]:
    properties = {name: _form_field(f) for name, f in fields.items()}
    if notes:
        properties["work_notes"] = {"type": "string", "description": "Work notes (a journal entry added to the activity stream)"}
    return {"type": "object", "title": title, "additionalProperties": False, "properties": properties}


def _task_bodies() -> dict[str, dict[str, Any]]:
    from .articles import FIELDS as ARTICLE_FIELDS
    from .changes import FIELDS as CHANGE_FIELDS
    from .problems import FIELDS as PROBLEM_FIELDS

    return {"problem": _form_body("ProblemFields", PROBLEM_FIELDS), "change_request": _form_body("ChangeRequestFields", CHANGE_FIELDS),
            "kb_knowledge": _form_body("KnowledgeArticleFields", ARTICLE_FIELDS, notes=False)}


BODIES = {"incident": INCIDENT_BODY, "sysapproval_approver": APPROVAL_BODY, **_task_bodies()}


def table_param(tables: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """``json_schema_extra`` of a ``table_key`` path parameter: the tables the route serves."""
    return {"enum": list(tables)}


def bodies(tables: list[str] | tuple[str, ...], *, create: bool = False) -> dict[str, Any]:
    """``openapi_extra`` of a write route: one body schema per table."""
    out = {}
    for t in tables:
        schema = dict(BODIES[t])
        if create and t in ("incident", "problem", "change_request"):  # an incident's caller: the form's rule (a self-service user is the caller)
            schema["required"] = ["short_description"]
        out[t] = schema
    return {"x-bodies": out}


ALL_TABLES = tuple(TABLES)

"""The CRM API's request side in OpenAPI: body fields and list filters, from the forms' own rules.

The routes read raw JSON and query strings (so field errors come back in the forms' words), so
FastAPI cannot infer these; they are declared here from ``validation.RULES`` and the list query's
operators, and every interface built on the OpenAPI document (tools, MCP, CLI, fuzzing) sees them.
"""

from __future__ import annotations

from typing import Any

from ..objects import OBJECTS
from ..validation import DEFAULTS, RULES, Rule
from .query import API_OBJECTS, DEFAULT_LIMIT, MAX_LIMIT

KIND_TYPES = {"int": "integer", "float": "number", "lookup": "integer"}
RANGE_KINDS = ("int", "float", "date", "datetime")


def _field_schema(rule: Rule) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": KIND_TYPES.get(rule.kind, "string")}
    if rule.kind == "picklist":
        schema["enum"] = list(rule.choices)
    elif rule.kind == "email":
        schema["format"] = "email"
    elif rule.kind == "date":
        schema["format"] = "date"
    elif rule.kind == "datetime":
        schema["format"] = "date-time"
    elif rule.kind == "lookup":
        target = OBJECTS[rule.lookup].label.lower() if rule.lookup in OBJECTS else str(rule.lookup).replace("_", " ")
        schema["description"] = f"id of {'an' if target[0] in 'aeiou' else 'a'} {target}"
    if rule.min is not None:
        schema["minimum"] = rule.min
    if rule.max is not None:
        schema["maximum"] = rule.max
    if not rule.required:
        schema = {"anyOf": [schema, {"type": "null"}], **({"description": schema["description"]} if "description" in schema else {})}
    return schema


def body(object_key: str, *, partial: bool) -> dict[str, Any]:
    """``openapi_extra`` for a create (``partial=False``) or update body of ``object_key``."""
    rules = RULES[object_key]
    label = OBJECTS[object_key].label.lower()
    schema: dict[str, Any] = {
        "type": "object",
        "title": f"{OBJECTS[object_key].label}{'Update' if partial else 'Create'}",
        "properties": {name: _field_schema(rule) for name, rule in rules.items()},
        "additionalProperties": False,
    }
    if not partial:
        required = [n for n, r in rules.items() if r.required and DEFAULTS.get(object_key, {}).get(n) is None]
        if required:
            schema["required"] = required
    what = "the fields to change" if partial else f"the new {label}'s fields"
    return {"requestBody": {"required": True, "description": f"A JSON object of {what}.", "content": {"application/json": {"schema": schema}}}}


def list_parameters(object_key: str) -> dict[str, Any]:
    """``openapi_extra`` for a list: free text, sort, paging, and filters on the writable fields."""
    params: list[dict[str, Any]] = [
        {"name": "q", "in": "query", "required": False, "schema": {"type": "string"}, "description": "Free text, searched in " + ", ".join(API_OBJECTS[object_key].search)},
        {"name": "order", "in": "query", "required": False, "schema": {"type": "string"}, "description": "Sort field(s), comma-separated; a leading - sorts descending"},
        {"name": "limit", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT}},
        {"name": "offset", "in": "query", "required": False, "schema": {"type": "integer", "minimum": 0, "default": 0}},
    ]
    for name, rule in RULES[object_key].items():
        base = _field_schema(Rule(rule.kind, choices=rule.choices, lookup=rule.lookup, required=True))
        params.append({"name": name, "in": "query", "required": False, "schema": base, "description": f"{name} equals"})
        if rule.kind in RANGE_KINDS:
            for op, word in (("gte", "at least"), ("lte", "at most")):
                params.append({"name": f"{name}__{op}", "in": "query", "required": False, "schema": base, "description": f"{name} {word}"})
        elif rule.kind in ("picklist", "lookup"):
            params.append({"name": f"{name}__ne", "in": "query", "required": False, "schema": base, "description": f"{name} is not"})
            params.append({"name": f"{name}__in", "in": "query", "required": False, "schema": {"type": "string"}, "description": f"{name} is one of (comma-separated)"})
        elif rule.kind in ("text", "email"):
            params.append({"name": f"{name}__contains", "in": "query", "required": False, "schema": {"type": "string"}, "description": f"{name} contains (any case)"})
    return {"parameters": params}

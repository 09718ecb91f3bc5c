"""Turning untrusted input into a validated action, with messages an agent can act on.

Every error says which argument was wrong, how, and shows the action's signature and an example, so
an agent that reads ``last_action_error`` can fix its next action.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from pydantic import ValidationError

from .errors import ActionError
from .model import ACTION_TYPES, BaseAction


def _schema_type(prop: dict[str, Any], defs: dict[str, Any]) -> str:
    if "$ref" in prop:
        target = defs[prop["$ref"].rsplit("/", 1)[-1]]
        return "{" + ", ".join(target.get("properties", {})) + "}"
    if "anyOf" in prop:
        kinds = [_schema_type(p, defs) for p in prop["anyOf"] if p.get("type") != "null"]
        return " or ".join(kinds)
    if "enum" in prop:
        return "|".join(str(v) for v in prop["enum"])
    if "const" in prop:
        return json.dumps(prop["const"])
    kind = prop.get("type")
    if kind == "array":
        return f"list[{_schema_type(prop.get('items', {}), defs)}]"
    text = {"integer": "int", "number": "number", "string": "str", "boolean": "bool"}.get(kind, kind or "any")
    bounds = []
    if "minimum" in prop:
        bounds.append(f">={prop['minimum']:g}")
    if "maximum" in prop:
        bounds.append(f"<={prop['maximum']:g}")
    return text + (" " + " ".join(bounds) if bounds else "")


def arguments(name: str) -> list[tuple[str, str, bool, str]]:
    """(argument, type text, required, description) for each argument of an action."""
    schema = ACTION_TYPES[name].model_json_schema()
    defs = schema.get("$defs", {})
    required = set(schema.get("required", []))
    out = []
    for arg, prop in schema.get("properties", {}).items():
        if arg == "action":
            continue
        out.append((arg, _schema_type(prop, defs), arg in required, prop.get("description", "")))
    return out


def signature(name: str) -> str:
    """``left_click(x?: int >=0, y?: int >=0, modifiers?: list[str])``; ``?`` marks optional arguments."""
    args = ", ".join(f"{arg}{'' if req else '?'}: {kind}" for arg, kind, req, _ in arguments(name))
    return f"{name}({args})"


def _short(value: Any, limit: int = 60) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**limit:
        return f"a number of more than {limit} digits"  # repr of a huge int is slow, or refused by Python
    if isinstance(value, str) and len(value) > limit:
        value = value[:limit]  # repr only what is shown
    try:
        text = repr(value)
    except Exception:  # a value whose repr fails (e.g. an int with more digits than Python prints)
        text = f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _explain(name: str, error: ValidationError) -> str:
    problems = []
    for err in error.errors(include_url=False):
        # Drop union-branch tags ('constrained-str', 'tuple[...]') from the location: noise to an agent.
        loc = ".".join(str(p) for p in err["loc"] if isinstance(p, int) or str(p).isidentifier())
        kind = err["type"]
        if kind == "missing":
            problems.append(f"missing required argument '{loc}'")
        elif kind == "extra_forbidden":
            problems.append(f"unexpected argument '{loc}'")
        elif kind in ("value_error", "assertion_error"):
            text = str(err.get("ctx", {}).get("error", err["msg"]))
            text = text.rstrip(".")
            problems.append(f"{loc}: {text}" if loc else text)
        else:
            msg = err["msg"][0].lower() + err["msg"][1:]
            problems.append(f"{loc}: {msg} (got {_short(err['input'])})")
    example = json.dumps(ACTION_TYPES[name].examples[0])
    return f"invalid {name} action: {'; '.join(problems)}. Expected {signature(name)}, e.g. {example}"


def _unknown_action(name: Any) -> ActionError:
    close = difflib.get_close_matches(str(name), list(ACTION_TYPES), n=3, cutoff=0.5)
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return ActionError(f"unknown action {name!r}.{hint} Supported actions: {', '.join(ACTION_TYPES)}.")


def parse_action(obj: Any) -> BaseAction:
    """An Action, a dict or a JSON string -> a validated Action; raises ActionError saying what to fix."""
    if isinstance(obj, BaseAction):
        return obj
    if isinstance(obj, (str, bytes, bytearray)):
        try:
            obj = json.loads(obj)
        except json.JSONDecodeError as exc:
            raise ActionError(
                f"the action is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
                'send one object such as {"action": "left_click", "x": 640, "y": 360}'
            ) from None
        except (ValueError, RecursionError):  # bad UTF-8, a number too long to read, nesting too deep
            raise ActionError(
                "the action could not be read as JSON (invalid UTF-8, a number with thousands of digits "
                'or nesting too deep); send one object such as {"action": "left_click", "x": 640, "y": 360}'
            ) from None
    if not isinstance(obj, dict):
        raise ActionError(
            f"an action must be an object with an 'action' field, got {type(obj).__name__} {_short(obj)}"
        )
    if "action" not in obj:
        raise ActionError(f"missing field 'action'; it names what to do, one of: {', '.join(ACTION_TYPES)}")
    name = obj["action"]
    if not isinstance(name, str) or name not in ACTION_TYPES:
        raise _unknown_action(name)
    try:
        return ACTION_TYPES[name].model_validate(obj)
    except ValidationError as exc:
        raise ActionError(_explain(name, exc)) from None


def build(name: str, /, **arguments: Any) -> BaseAction:
    """Construct an action by name, with the same checks and messages as :func:`parse_action`."""
    return parse_action({"action": name, **arguments})

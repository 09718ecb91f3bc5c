"""OpenAI computer-use ``computer_call`` actions <-> canonical actions.

A ``computer_call`` output item carries one ``action`` or a batch in ``actions``; each action is
``{"type": "click" | "double_click" | "drag" | "keypress" | "move" | "scroll" | "type" | "wait" |
"screenshot", ...}`` with integer pixel ``x``/``y``, ``keys`` held during pointer actions, and scroll
distances in pixels. A ``function_call`` item naming a canonical action (``goto``, ``answer``...)
with JSON ``arguments`` is read too, so agents can reach the actions the computer tool lacks.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .errors import ActionError
from .keys import from_openai_keys, to_openai_keys
from .model import (
    ACTION_TYPES,
    MAX_COORDINATE,
    MAX_DRAG_POINTS,
    MAX_SCROLL_AMOUNT,
    SCROLL_PIXELS_PER_CLICK,
    Back,
    BaseAction,
    ToolCall,
    DoubleClick,
    Forward,
    Key,
    LeftClick,
    LeftClickDrag,
    MiddleClick,
    MouseMove,
    RightClick,
    Screenshot,
    Scroll,
    Type,
    Wait,
)
from .parse import _short, parse_action
from .scale import check_on_screen

OPENAI_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "click": ("button", "x", "y", "keys"),
    "double_click": ("x", "y", "keys"),
    "drag": ("path", "keys"),
    "keypress": ("keys",),
    "move": ("x", "y", "keys"),
    "scroll": ("x", "y", "scroll_x", "scroll_y", "keys"),
    "type": ("text",),
    "wait": (),
    "screenshot": (),
}
OPENAI_ACTIONS = tuple(OPENAI_ARGUMENTS)
MAX_SCROLL_PIXELS = MAX_SCROLL_AMOUNT * SCROLL_PIXELS_PER_CLICK
_BUTTONS = {"left": "left_click", "right": "right_click", "wheel": "middle_click"}


def from_openai(call_or_action: dict[str, Any], *, screen: tuple[int, int] | None = None) -> list[BaseAction]:
    """A ``computer_call`` item, a bare computer action, or a ``function_call`` item -> canonical actions.

    With ``screen`` (width, height of the screenshot the agent saw), coordinates are checked against it.
    """
    out = _from_openai(call_or_action)
    check_on_screen(out, screen)
    return out


def _from_openai(call_or_action: dict[str, Any]) -> list[BaseAction]:
    if not isinstance(call_or_action, dict):
        raise ActionError(f"expected a computer_call item or an action object, got {type(call_or_action).__name__}")
    kind = call_or_action.get("type")
    if kind == "computer_call":
        batch = call_or_action.get("actions")
        if batch is None:
            if call_or_action.get("action") is None:
                raise ActionError("the computer_call has neither 'action' nor 'actions'")
            batch = [call_or_action["action"]]
        if not isinstance(batch, list) or not batch:
            raise ActionError(f"'actions' must be a non-empty list of actions, got {_short(batch)}")
        if len(batch) == 1:  # one action: its error is the action's own, not "actions[0]: ..."
            return _from_action(batch[0])
        out: list[BaseAction] = []
        for index, item in enumerate(batch):
            try:
                out.extend(_from_action(item))
            except ActionError as exc:
                raise ActionError(f"actions[{index}]: {exc}") from None
        return out
    if kind == "function_call":
        return [_from_function_call(call_or_action)]
    return _from_action(call_or_action)


def _from_function_call(item: dict[str, Any]) -> BaseAction:
    name, raw = item.get("name"), item.get("arguments", "{}")
    if not isinstance(name, str) or not name:
        raise ActionError(f"a function call needs a name, got {_short(name)}; callable actions: {', '.join(ACTION_TYPES)} or an app's tool")
    try:
        args = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError as exc:
        raise ActionError(f"arguments of {name} are not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(args, dict):
        raise ActionError(f"arguments of {name} must be a JSON object, got {args!r}")
    if name not in ACTION_TYPES:  # one of the apps' tools (the episode says if it is unknown)
        return parse_action({"action": "tool_call", "name": name, "arguments": args})
    return parse_action({**args, "action": name})


def _int(action: dict[str, Any], field: str, kind: str, *, signed: bool = False) -> int:
    if field not in action:
        raise ActionError(f"{kind} needs {field}")
    value = action[field]
    if not isinstance(value, int) or isinstance(value, bool):
        raise ActionError(f"{kind}.{field} must be an integer number of pixels, got {_short(value)}")
    if signed:
        if abs(value) > MAX_SCROLL_PIXELS:
            raise ActionError(f"{kind}.{field} must be from -{MAX_SCROLL_PIXELS} to {MAX_SCROLL_PIXELS} pixels, got {_short(value)}")
        return value
    if not 0 <= value <= MAX_COORDINATE:
        raise ActionError(f"{kind}.{field} must be from 0 to {MAX_COORDINATE} (pixels from the top-left corner), got {_short(value)}")
    return value


def _held(action: dict[str, Any]) -> list[str]:
    keys = action.get("keys") or []
    return from_openai_keys(keys).split("+") if keys else []


def _clicks(px: int) -> int:
    return max(1, int(math.floor(abs(px) / SCROLL_PIXELS_PER_CLICK + 0.5)))


def _from_action(action: Any) -> list[BaseAction]:
    if not isinstance(action, dict):
        raise ActionError(f"an OpenAI computer action must be an object, got {type(action).__name__} {action!r}")
    action = {k: v for k, v in action.items() if v is not None}
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in OPENAI_ARGUMENTS:
        what = "missing 'type'" if kind is None else f"unknown OpenAI computer action type {_short(kind)}"
        raise ActionError(f"{what}; supported: {', '.join(OPENAI_ACTIONS)}")
    unexpected = sorted(map(str, set(action) - {"type", *OPENAI_ARGUMENTS[kind]}))
    if unexpected:
        allowed = ", ".join(OPENAI_ARGUMENTS[kind]) or "no arguments"
        raise ActionError(f"unexpected field(s) {', '.join(unexpected)} for {kind}; it takes {allowed}")
    if kind == "click":
        button = action.get("button")
        if button in ("back", "forward"):
            return [Back() if button == "back" else Forward()]
        if button not in _BUTTONS:
            raise ActionError(f"click.button must be one of left, right, wheel, back, forward; got {button!r}")
        x, y = _int(action, "x", kind), _int(action, "y", kind)
        return [_build(_BUTTONS[button], x=x, y=y, modifiers=_held(action))]
    if kind in ("double_click", "move"):
        x, y = _int(action, "x", kind), _int(action, "y", kind)
        return [_build("double_click" if kind == "double_click" else "mouse_move", x=x, y=y, modifiers=_held(action))]
    if kind == "drag":
        path = action.get("path")
        if not isinstance(path, list) or len(path) < 2:
            raise ActionError(f"drag.path must list at least two points {{x, y}} (start and end), got {_short(path)}")
        if len(path) > MAX_DRAG_POINTS + 2:
            raise ActionError(f"drag.path has {len(path)} points; the limit is {MAX_DRAG_POINTS + 2} (start, end and {MAX_DRAG_POINTS} between)")
        points = []
        for i, point in enumerate(path):
            if not isinstance(point, dict) or set(point) != {"x", "y"}:
                raise ActionError(f"drag.path[{i}] must be an object {{x, y}}, got {_short(point)}")
            points.append({"x": _int(point, "x", f"drag.path[{i}]"), "y": _int(point, "y", f"drag.path[{i}]")})
        start, *middle, end = points
        return [_build("left_click_drag", start_x=start["x"], start_y=start["y"], end_x=end["x"], end_y=end["y"],
                       path=middle, modifiers=_held(action))]  # fmt: skip
    if kind == "scroll":
        x, y = _int(action, "x", kind), _int(action, "y", kind)
        dx, dy = _int(action, "scroll_x", kind, signed=True), _int(action, "scroll_y", kind, signed=True)
        if dx == 0 and dy == 0:
            raise ActionError("scroll has scroll_x = scroll_y = 0; give a distance in pixels (positive = right/down)")
        mods = _held(action)
        steps = []
        if dy:
            steps.append(_build("scroll", x=x, y=y, direction="down" if dy > 0 else "up", amount=_clicks(dy), modifiers=mods))
        if dx:
            steps.append(_build("scroll", x=x, y=y, direction="right" if dx > 0 else "left", amount=_clicks(dx), modifiers=mods))
        return steps
    if kind == "keypress":
        if "keys" not in action:
            raise ActionError("keypress needs keys, e.g. ['CTRL', 'A']")
        return [_build("key", key=from_openai_keys(action["keys"]))]
    if kind == "type":
        if "text" not in action:
            raise ActionError("type needs text")
        return [_build("type", text=action["text"])]
    return [Wait() if kind == "wait" else Screenshot()]


def _build(name: str, **fields: Any) -> BaseAction:
    return parse_action({"action": name, **{k: v for k, v in fields.items() if v not in (None, [], ())}})


def to_openai(action: BaseAction) -> dict[str, Any]:
    """A canonical action -> an OpenAI computer action. Raises ActionError where OpenAI has no form
    (OpenAI pointer actions always need x and y; ``wait`` carries no duration)."""
    action = parse_action(action)
    name = action.action
    out: dict[str, Any]
    if isinstance(action, (LeftClick, RightClick, MiddleClick, DoubleClick, MouseMove, Scroll)) and action.x is None:
        raise ActionError(f"OpenAI's {name} needs x and y; give the coordinates explicitly")
    if isinstance(action, (LeftClick, RightClick, MiddleClick)):
        button = {"left_click": "left", "right_click": "right", "middle_click": "wheel"}[name]
        out = {"type": "click", "button": button, "x": action.x, "y": action.y}
    elif isinstance(action, (DoubleClick, MouseMove)):
        out = {"type": "double_click" if name == "double_click" else "move", "x": action.x, "y": action.y}
    elif isinstance(action, LeftClickDrag):
        points = [(action.start_x, action.start_y), *((p.x, p.y) for p in action.path), (action.end_x, action.end_y)]
        out = {"type": "drag", "path": [{"x": x, "y": y} for x, y in points]}
    elif isinstance(action, Scroll):
        pixels = action.amount * SCROLL_PIXELS_PER_CLICK
        sx = {"left": -pixels, "right": pixels}.get(action.direction, 0)
        sy = {"up": -pixels, "down": pixels}.get(action.direction, 0)
        out = {"type": "scroll", "x": action.x, "y": action.y, "scroll_x": sx, "scroll_y": sy}
    elif isinstance(action, Key):
        if action.repeat != 1:
            raise ActionError("OpenAI's keypress has no repeat; send one keypress per press")
        out = {"type": "keypress", "keys": to_openai_keys(action.key)}
    elif isinstance(action, Type):
        out = {"type": "type", "text": action.text}
    elif isinstance(action, (Wait, Screenshot)):
        out = {"type": name}
    else:
        raise ActionError(f"{name} has no form among OpenAI computer actions; offer it as a function tool")
    mods = getattr(action, "modifiers", ())
    if mods:
        out["keys"] = to_openai_keys("+".join(mods))
    return out


def to_openai_function_call(action: BaseAction, call_id: str = "call_0") -> dict[str, Any]:
    """A canonical action as a ``function_call`` item (for the actions OpenAI's computer tool lacks)."""
    action = parse_action(action)
    if isinstance(action, ToolCall):  # an app's tool is a function of its own name
        return {"type": "function_call", "call_id": call_id, "name": action.name, "arguments": json.dumps(action.arguments)}
    args = action.model_dump(mode="json", exclude_defaults=True)
    return {"type": "function_call", "call_id": call_id, "name": action.action, "arguments": json.dumps(args)}

"""Anthropic ``computer`` tool inputs (``computer_20250124`` and ``computer_20251124``) <-> canonical actions.

The tool input is ``{"action": ..., **arguments}`` with ``coordinate: [x, y]``, ``start_coordinate``,
``text`` (typed text, the key combo for ``key``/``hold_key``, or the modifiers held during a click or
scroll), ``scroll_direction``/``scroll_amount``, ``duration`` (seconds) and, for ``zoom``,
``region: [x0, y0, x1, y1]``. The "member tools" form exposes each action as its own tool named after
it, with the same arguments; :func:`from_anthropic_tool` reads both forms, and also accepts the
canonical browser/element/episode actions (``goto``, ``click_element``, ``answer``...) as extra tools.
"""

from __future__ import annotations

from typing import Any

from .errors import ActionError
from .keys import parse_keys
from .model import (
    ACTION_TYPES,
    MAX_COORDINATE,
    MAX_SCROLL_AMOUNT,
    BaseAction,
    ToolCall,
    CursorPosition,
    DoubleClick,
    HoldKey,
    Key,
    LeftClick,
    LeftClickDrag,
    LeftMouseDown,
    LeftMouseUp,
    MiddleClick,
    MouseMove,
    RightClick,
    Screenshot,
    Scroll,
    TripleClick,
    Type,
    Wait,
    Zoom,
)
from .parse import _short, parse_action
from .scale import check_on_screen

_CLICKS = ("left_click", "right_click", "middle_click", "double_click", "triple_click")

# Arguments each Anthropic action accepts. ``key`` beside ``text`` and ``end_coordinate`` beside
# ``coordinate`` are spellings some client libraries use; ``repeat`` is accepted for ``key``.
ANTHROPIC_ARGUMENTS: dict[str, tuple[str, ...]] = {
    **{name: ("coordinate", "text", "key") for name in _CLICKS},
    "mouse_move": ("coordinate",),
    "left_click_drag": ("start_coordinate", "coordinate", "end_coordinate"),
    "left_mouse_down": ("coordinate",),
    "left_mouse_up": ("coordinate",),
    "scroll": ("coordinate", "scroll_direction", "scroll_amount", "text"),
    "type": ("text",),
    "key": ("text", "key", "repeat"),
    "hold_key": ("text", "key", "duration"),
    "wait": ("duration",),
    "screenshot": (),
    "cursor_position": (),
    "zoom": ("region",),
}
ANTHROPIC_ACTIONS = tuple(ANTHROPIC_ARGUMENTS)


def _ints(value: Any, field: str, count: int, shape: str) -> list[int]:
    if (
        not isinstance(value, (list, tuple))
        or len(value) != count
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise ActionError(f"{field} must be {shape} with integer pixel values, got {_short(value)}")
    if any(v < 0 for v in value):
        raise ActionError(f"{field} must be {shape} with non-negative pixel values, got {_short(list(value))}")
    if any(v > MAX_COORDINATE for v in value):
        raise ActionError(f"{field} must be {shape} with pixel values of at most {MAX_COORDINATE}, got {_short(list(value))}")
    return list(value)


def _point(args: dict[str, Any], field: str, *, required: bool, action: str) -> tuple[int, int] | tuple[None, None]:
    if field not in args:
        if required:
            raise ActionError(f"{action} needs {field} [x, y] in screenshot pixels")
        return None, None
    x, y = _ints(args[field], field, 2, "[x, y]")
    return x, y


def _text(args: dict[str, Any], *names: str) -> str | None:
    for name in names:
        if name in args:
            value = args[name]
            if not isinstance(value, str):
                raise ActionError(f"{name} must be a string, got {type(value).__name__} {value!r}")
            return value
    return None


def _modifiers(args: dict[str, Any]) -> list[str]:
    held = _text(args, "text", "key")
    return [k for combo in parse_keys(held) for k in combo] if held and held.strip() else []


def from_anthropic(input: dict[str, Any], *, screen: tuple[int, int] | None = None) -> BaseAction | list[BaseAction]:
    """One ``computer`` tool input (or a whole ``tool_use`` block) -> a canonical action.

    Returns a list only for a ``left_click_drag`` without ``start_coordinate`` (the 2024 form, which
    drags from the mouse position): ``[left_mouse_down, left_mouse_up at coordinate]``. With
    ``screen`` (width, height of the screenshot the agent saw), coordinates are checked against it.
    """
    if not isinstance(input, dict):
        raise ActionError(f"the computer tool input must be an object, got {type(input).__name__}")
    if input.get("type") == "tool_use":
        return from_anthropic_tool(input.get("name", ""), input.get("input"), screen=screen)
    args = {k: v for k, v in input.items() if v is not None}  # some clients send unused arguments as null
    name = args.pop("action", None)
    if not isinstance(name, str) or name not in ANTHROPIC_ARGUMENTS:
        what = "missing 'action'" if name is None else f"unknown computer action {_short(name)}"
        raise ActionError(f"{what}; the computer tool supports: {', '.join(ANTHROPIC_ACTIONS)}")
    unexpected = sorted(map(str, set(args) - set(ANTHROPIC_ARGUMENTS[name])))
    if unexpected:
        allowed = ", ".join(ANTHROPIC_ARGUMENTS[name]) or "no arguments"
        raise ActionError(f"unexpected argument(s) {', '.join(unexpected)} for {name}; it takes {allowed}")
    try:
        out = _convert(name, args)
        check_on_screen(out, screen)
        return out
    except ActionError as exc:
        raise ActionError(f"computer action {name}: {exc}") from None


def _convert(name: str, args: dict[str, Any]) -> BaseAction | list[BaseAction]:
    if name in _CLICKS:
        x, y = _point(args, "coordinate", required=False, action=name)
        cls = {"left_click": LeftClick, "right_click": RightClick, "middle_click": MiddleClick,
               "double_click": DoubleClick, "triple_click": TripleClick}[name]  # fmt: skip
        return _build(cls, x=x, y=y, modifiers=_modifiers(args))
    if name == "mouse_move":
        x, y = _point(args, "coordinate", required=True, action=name)
        return _build(MouseMove, x=x, y=y)
    if name == "left_click_drag":
        end_field = "end_coordinate" if "end_coordinate" in args and "coordinate" not in args else "coordinate"
        ex, ey = _point(args, end_field, required=True, action=name)
        if "start_coordinate" not in args:
            return [LeftMouseDown(), _build(LeftMouseUp, x=ex, y=ey)]
        sx, sy = _point(args, "start_coordinate", required=True, action=name)
        return _build(LeftClickDrag, start_x=sx, start_y=sy, end_x=ex, end_y=ey)
    if name in ("left_mouse_down", "left_mouse_up"):
        x, y = _point(args, "coordinate", required=False, action=name)
        return _build(LeftMouseDown if name == "left_mouse_down" else LeftMouseUp, x=x, y=y)
    if name == "scroll":
        x, y = _point(args, "coordinate", required=False, action=name)
        for field in ("scroll_direction", "scroll_amount"):
            if field not in args:
                raise ActionError(f"scroll needs {field}")
        amount = args["scroll_amount"]
        if not isinstance(amount, int) or isinstance(amount, bool) or not 1 <= amount <= MAX_SCROLL_AMOUNT:
            raise ActionError(
                f"scroll_amount must be an integer number of wheel clicks from 1 to {MAX_SCROLL_AMOUNT}, got {_short(amount)}"
            )
        return _build(Scroll, x=x, y=y, direction=args["scroll_direction"], amount=amount, modifiers=_modifiers(args))
    if name == "type":
        if "text" not in args:
            raise ActionError("type needs text, the string to type")
        return _build(Type, text=args["text"])
    if name in ("key", "hold_key"):
        combo = _text(args, "text", "key")
        if combo is None:
            raise ActionError(f"{name} needs text, the key or combo such as 'ctrl+a'")
        if name == "key":
            return _build(Key, key=combo, repeat=args.get("repeat", 1))
        if "duration" not in args:
            raise ActionError("hold_key needs duration, in seconds")
        return _build(HoldKey, key=combo, duration=args["duration"])
    if name == "wait":
        return _build(Wait, **({"duration": args["duration"]} if "duration" in args else {}))
    if name == "zoom":
        if "region" not in args:
            raise ActionError("zoom needs region [x0, y0, x1, y1]")
        x0, y0, x1, y1 = _ints(args["region"], "region", 4, "[x0, y0, x1, y1]")
        return _build(Zoom, x0=x0, y0=y0, x1=x1, y1=y1)
    return Screenshot() if name == "screenshot" else CursorPosition()


def _build(cls: type[BaseAction], **fields: Any) -> BaseAction:
    name = cls.model_fields["action"].default
    return parse_action({"action": name, **{k: v for k, v in fields.items() if v is not None}})


def from_anthropic_tool(
    name: str, input: dict[str, Any], *, screen: tuple[int, int] | None = None,
) -> BaseAction | list[BaseAction]:
    """A tool call by name: ``computer``, one member tool per computer action (``left_click`` with
    ``{"coordinate": [x, y]}``), a canonical extra action (``goto`` with ``{"url": ...}``), or else one
    of the apps' tools (``crm_update_opportunity``: a ``tool_call``; the episode says if it is unknown)."""
    if not isinstance(name, str):
        raise ActionError(f"a tool name must be a string, got {_short(name)}")
    if not isinstance(input, dict):
        raise ActionError(f"the input of tool {name!r} must be an object, got {type(input).__name__}")
    if name == "computer":
        return from_anthropic(input, screen=screen)
    if "action" in input and input["action"] != name:
        raise ActionError(f"tool {name!r} was called with action {input['action']!r}; drop 'action' or make them match")
    if name in ANTHROPIC_ARGUMENTS:
        return from_anthropic({**input, "action": name}, screen=screen)
    if name == "tool_call":
        return parse_action({**input, "action": name})
    if name in ACTION_TYPES:
        return parse_action({**input, "action": name})
    return parse_action({"action": "tool_call", "name": name, "arguments": input})


def to_anthropic(action: BaseAction) -> dict[str, Any]:
    """A canonical action -> ``computer`` tool input. Raises ActionError for actions the tool cannot express."""
    action = parse_action(action)
    name = action.action
    out: dict[str, Any] = {"action": name}
    if name not in ANTHROPIC_ARGUMENTS:
        raise ActionError(f"{name} has no form in Anthropic's computer tool; offer it as its own tool (to_anthropic_tool)")
    if getattr(action, "x", None) is not None:
        out["coordinate"] = [action.x, action.y]  # type: ignore[attr-defined]
    mods = getattr(action, "modifiers", ())
    if isinstance(action, (MouseMove, LeftClickDrag)) and mods:
        raise ActionError(f"Anthropic's {name} cannot hold modifier keys; send hold_key or key actions instead")
    if mods:
        out["text"] = "+".join(mods)
    if isinstance(action, LeftClickDrag):
        if action.path:
            raise ActionError("Anthropic's left_click_drag has no waypoints; split the path into several drags")
        out.update(start_coordinate=[action.start_x, action.start_y], coordinate=[action.end_x, action.end_y])
    elif isinstance(action, Scroll):
        out.update(scroll_direction=action.direction, scroll_amount=action.amount)
    elif isinstance(action, Type):
        out["text"] = action.text
    elif isinstance(action, Key):
        out["text"] = " ".join([action.key] * action.repeat)  # xdotool presses space-separated steps in turn
    elif isinstance(action, HoldKey):
        out.update(text=action.key, duration=action.duration)
    elif isinstance(action, Wait):
        out["duration"] = action.duration
    elif isinstance(action, Zoom):
        out["region"] = [action.x0, action.y0, action.x1, action.y1]
    return out


def to_anthropic_tool(action: BaseAction) -> tuple[str, dict[str, Any]]:
    """(tool name, input): ``("computer", {...})`` when the computer tool can express it, else the
    canonical action as its own tool, e.g. ``("goto", {"url": ...})``."""
    action = parse_action(action)
    if action.action in ANTHROPIC_ARGUMENTS:
        return "computer", to_anthropic(action)
    if isinstance(action, ToolCall):  # an app's tool is offered to the model under its own name
        return action.name, dict(action.arguments)
    args = action.model_dump(mode="json", exclude_defaults=True)
    return action.action, args

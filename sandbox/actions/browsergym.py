"""BrowserGym high-level action strings -> canonical actions.

Agents built for BrowserGym answer with Python-like calls, one per line, e.g. ``click('a51')`` or
``fill('237', 'Acme')``. The text is parsed with :mod:`ast` and only literal arguments are accepted:
nothing is ever evaluated. Arguments bind to the same signatures BrowserGym documents, so keyword
arguments, defaults and wrong arities behave as they do there.
"""

from __future__ import annotations

import ast
import inspect
import math
import re
from collections.abc import Callable
from typing import Any

from .errors import ActionError
from .model import MAX_COORDINATE, MAX_SCROLL_AMOUNT, MAX_TEXT_CHARS, MAX_WAIT_SECONDS, SCROLL_PIXELS_PER_CLICK, BaseAction
from .parse import _short, parse_action
from .scale import check_on_screen

Spec = tuple[Callable[..., Any], str, str]  # (signature stub, example call, what it does)


# Signature stubs: only their parameters matter (bound with inspect); bodies never run.
def _xy(x: float, y: float): ...
def _xy_button(x: float, y: float, button: str = "left"): ...
def _drag(from_x: float, from_y: float, to_x: float, to_y: float): ...
def _scroll(delta_x: float, delta_y: float): ...
def _key(key: str): ...
def _text(text: str): ...
def _noop(wait_ms: float = 1000): ...
def _bid(bid: str): ...
def _click(bid: str, button: str = "left", modifiers: list | None = None): ...
def _fill(bid: str, value: str): ...
def _select(bid: str, options: str | list): ...
def _press(bid: str, key_comb: str): ...
def _url(url: str): ...
def _none(): ...
def _reason(reason: str): ...
def _upload(bid: str, file: str | list): ...


SUPPORTED: dict[str, Spec] = {
    "mouse_move": (_xy, "mouse_move(65, 158)", "Move the mouse to (x, y) without clicking."),
    "mouse_click": (_xy_button, "mouse_click(887, 68, button='left')", "Click at (x, y) with button left, middle or right."),
    "mouse_dblclick": (_xy_button, "mouse_dblclick(5, 236)", "Double-click at (x, y) (left button only)."),
    "mouse_down": (_xy_button, "mouse_down(140, 580)", "Move to (x, y) and press the left button."),
    "mouse_up": (_xy_button, "mouse_up(250, 120)", "Move to (x, y) and release the left button."),
    "mouse_drag_and_drop": (_drag, "mouse_drag_and_drop(10, 325, 235, 24)", "Drag with the left button from one point to another."),
    "scroll": (_scroll, "scroll(0, 300)", f"Scroll by pixels, positive for right/down, rounded to {SCROLL_PIXELS_PER_CLICK} px wheel clicks."),
    "keyboard_press": (_key, "keyboard_press('Control+a')", "Press a key or combo."),
    "keyboard_type": (_text, "keyboard_type('Hello world!')", "Type text into the focused element."),
    "keyboard_insert_text": (_text, "keyboard_insert_text('Hello')", "Type text into the focused element."),
    "noop": (_noop, "noop(500)", f"Wait wait_ms milliseconds (at most {MAX_WAIT_SECONDS * 1000:g})."),
    "click": (_click, "click('a51', button='left', modifiers=['Shift'])", "Click an element, optionally holding modifiers."),
    "dblclick": (_click, "dblclick('12')", "Double-click an element."),
    "hover": (_bid, "hover('b8')", "Move the mouse over an element."),
    "fill": (_fill, "fill('237', 'example value')", "Replace the text of an input or textarea."),
    "select_option": (_select, "select_option('a48', 'blue')", "Choose option(s) of a <select> by visible label."),
    "press": (_press, "press('88', 'Enter')", "Focus an element, then press a key or combo."),
    "focus": (_bid, "focus('b455')", "Give an element keyboard focus."),
    "clear": (_bid, "clear('996')", "Empty an input or textarea."),
    "upload_file": (_upload, "upload_file('572', 'data.csv')", "Click a file field or upload button, then choose file(s) of the episode by name."),
    "goto": (_url, "goto('http://crm.localhost/')", "Open a URL."),
    "go_back": (_none, "go_back()", "Go back one page."),
    "go_forward": (_none, "go_forward()", "Go forward one page."),
    "send_msg_to_user": (_text, "send_msg_to_user('The city was built in 1751.')", "Finish with the final answer."),
    "report_infeasible": (_reason, "report_infeasible('There is no email field in this form.')", "Finish saying the task cannot be done, and why."),
}
# Known BrowserGym functions we do not map, and why (the error says so).
UNSUPPORTED: dict[str, str] = {
    "tab_focus": "the sandbox drives a single tab",
    "tab_close": "the sandbox drives a single tab",
    "new_tab": "the sandbox drives a single tab",
    "mouse_upload_file": "click at the point, then upload_file",
    "keyboard_down": "keys cannot stay held between steps; use keyboard_press",
    "keyboard_up": "keys cannot stay held between steps; use keyboard_press",
    "check": "use click on the checkbox",
    "uncheck": "use click on the checkbox",
    "drag_and_drop": "use mouse_drag_and_drop with coordinates",
}

_CLICK_EXAMPLE = SUPPORTED["click"][1]
_FENCE = re.compile(r"^\s*```[\w-]*\s*$", re.MULTILINE)


MAX_SOURCE_CHARS = 2 * MAX_TEXT_CHARS


def from_browsergym(text: str, *, screen: tuple[int, int] | None = None) -> list[BaseAction]:
    """BrowserGym action text (one call per line) -> canonical actions, in order.

    With ``screen`` (width, height of the screenshot the agent saw), coordinates are checked against it.
    """
    actions = _from_browsergym(text)
    check_on_screen(actions, screen)
    return actions


def _from_browsergym(text: str) -> list[BaseAction]:
    if not isinstance(text, str):
        raise ActionError(f"a BrowserGym action must be a string, got {type(text).__name__}")
    if len(text) > MAX_SOURCE_CHARS:
        raise ActionError(f"the BrowserGym action has {len(text)} characters; the limit is {MAX_SOURCE_CHARS}")
    source = _FENCE.sub("", text).strip()  # agents often wrap the call in a ``` code fence
    if not source:
        raise ActionError(f"empty BrowserGym action; send a call such as {_CLICK_EXAMPLE}")
    try:
        tree = ast.parse(source, mode="exec")
    except SyntaxError as exc:
        raise ActionError(f"BrowserGym action is not a valid call (line {exc.lineno}: {exc.msg}); e.g. {_CLICK_EXAMPLE}") from None
    except (ValueError, RecursionError, MemoryError):  # null bytes, numbers too long, nesting too deep
        raise ActionError(f"BrowserGym action could not be read; send plain calls such as {_CLICK_EXAMPLE}") from None
    actions: list[BaseAction] = []
    for stmt in tree.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            raise ActionError(f"line {stmt.lineno}: expected a function call such as {_CLICK_EXAMPLE}, got {_clip(ast.unparse(stmt))}")
        try:
            actions.extend(_convert(call))
        except ActionError as exc:
            raise ActionError(f"line {stmt.lineno} ({_clip(ast.unparse(call))}): {exc}") from None
    return actions


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _supported_list() -> str:
    return ", ".join(SUPPORTED)


def _literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        raise ActionError(f"arguments must be literals (strings, numbers, lists), got {_clip(ast.unparse(node))}") from None


def _convert(call: ast.Call) -> list[BaseAction]:
    name = call.func.id  # type: ignore[attr-defined]
    if name in UNSUPPORTED:
        raise ActionError(f"{name} is not supported ({UNSUPPORTED[name]}). Supported: {_supported_list()}")
    if name not in SUPPORTED:
        raise ActionError(f"unknown function {name!r}. Supported: {_supported_list()}")
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        raise ActionError("*args and **kwargs are not accepted; write the arguments out")
    stub, example, _ = SUPPORTED[name]
    try:
        bound = inspect.signature(stub).bind(
            *[_literal(a) for a in call.args], **{k.arg: _literal(k.value) for k in call.keywords}  # type: ignore[misc]
        )
    except TypeError as exc:
        raise ActionError(f"{exc}; e.g. {example}") from None
    bound.apply_defaults()
    return _MAPPERS[name](*bound.arguments.values())  # positional, in signature order


def _px(value: Any, name: str, limit: int = MAX_COORDINATE, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ActionError(f"{name} must be a number of pixels, got {_short(value)}")
    if not low <= value <= limit:
        raise ActionError(f"{name} must be from {low} to {limit} pixels, got {_short(value)}")
    return int(math.floor(value + 0.5))


def _bid_str(bid: Any) -> str:
    if isinstance(bid, bool) or not isinstance(bid, (str, int)):
        raise ActionError(f"bid must be an element id string such as 'a51', got {bid!r}")
    return str(bid)


def _files(file: Any) -> list[Any]:
    """upload_file's ``file``: a path or a list of paths (each checked by the action's own model)."""
    if isinstance(file, str):
        return [file]
    if isinstance(file, (list, tuple)):
        return list(file)
    raise ActionError(f"file must be a path or a list of paths, got {_short(file)}")


def _a(name: str, **fields: Any) -> BaseAction:
    return parse_action({"action": name, **fields})


def _button_click(x: Any, y: Any, button: str) -> list[BaseAction]:
    names = {"left": "left_click", "right": "right_click", "middle": "middle_click"}
    if button not in names:
        raise ActionError(f"button must be 'left', 'middle' or 'right', got {button!r}")
    return [_a(names[button], x=_px(x, "x"), y=_px(y, "y"))]


def _left_button(function: str, action: str) -> Callable[..., list[BaseAction]]:
    # The canonical model has left-button double-click/down/up only, like Anthropic's tool.
    def convert(x: Any, y: Any, button: str) -> list[BaseAction]:
        if button != "left":
            raise ActionError(f"{function} supports only button='left', got {button!r}")
        return [_a(action, x=_px(x, "x"), y=_px(y, "y"))]

    return convert


def _pixels_to_scroll(dx: Any, dy: Any) -> list[BaseAction]:
    limit = MAX_SCROLL_AMOUNT * SCROLL_PIXELS_PER_CLICK
    dx, dy = _px(dx, "delta_x", limit, -limit), _px(dy, "delta_y", limit, -limit)
    if dx == 0 and dy == 0:
        raise ActionError("scroll(0, 0) scrolls nothing; give pixels, positive for right/down, e.g. scroll(0, 300)")
    clicks = lambda px: max(1, int(math.floor(abs(px) / SCROLL_PIXELS_PER_CLICK + 0.5)))  # noqa: E731
    out = []
    if dy:
        out.append(_a("scroll", direction="down" if dy > 0 else "up", amount=clicks(dy)))
    if dx:
        out.append(_a("scroll", direction="right" if dx > 0 else "left", amount=clicks(dx)))
    return out


def _element_click(bid: Any, button: str, modifiers: Any, count: int) -> list[BaseAction]:
    return [_a("click_element", element_id=_bid_str(bid), button=button, count=count, modifiers=modifiers or [])]


def _select(bid: Any, options: Any) -> list[BaseAction]:
    # BrowserGym matches an option's value or label; agents read labels in the AXTree, so use label.
    if isinstance(options, list):
        options = tuple(options)
    return [_a("select_option", element_id=_bid_str(bid), label=options)]


def _wait(wait_ms: Any) -> list[BaseAction]:
    if isinstance(wait_ms, bool) or not isinstance(wait_ms, (int, float)) or not 0 <= wait_ms <= MAX_WAIT_SECONDS * 1000:
        raise ActionError(f"wait_ms must be a number of milliseconds from 0 to {MAX_WAIT_SECONDS * 1000:g}, got {_short(wait_ms)}")
    return [_a("wait", duration=float(wait_ms) / 1000)]


_MAPPERS: dict[str, Callable[..., list[BaseAction]]] = {
    "mouse_move": lambda x, y: [_a("mouse_move", x=_px(x, "x"), y=_px(y, "y"))],
    "mouse_click": _button_click,
    "mouse_dblclick": _left_button("mouse_dblclick", "double_click"),
    "mouse_down": _left_button("mouse_down", "left_mouse_down"),
    "mouse_up": _left_button("mouse_up", "left_mouse_up"),
    "mouse_drag_and_drop": lambda from_x, from_y, to_x, to_y: [
        _a("left_click_drag", start_x=_px(from_x, "from_x"), start_y=_px(from_y, "from_y"), end_x=_px(to_x, "to_x"), end_y=_px(to_y, "to_y"))
    ],
    "scroll": _pixels_to_scroll,
    "keyboard_press": lambda key: [_a("key", key=key)],
    "keyboard_type": lambda text: [_a("type", text=text)],
    "keyboard_insert_text": lambda text: [_a("type", text=text)],
    "noop": _wait,
    "click": lambda bid, button, modifiers: _element_click(bid, button, modifiers, 1),
    "dblclick": lambda bid, button, modifiers: _element_click(bid, button, modifiers, 2),
    "hover": lambda bid: [_a("hover_element", element_id=_bid_str(bid))],
    "fill": lambda bid, value: [_a("fill_element", element_id=_bid_str(bid), text=value)],
    "select_option": _select,
    "press": lambda bid, key_comb: [_a("focus_element", element_id=_bid_str(bid)), _a("key", key=key_comb)],
    "focus": lambda bid: [_a("focus_element", element_id=_bid_str(bid))],
    "clear": lambda bid: [_a("fill_element", element_id=_bid_str(bid), text="")],
    "upload_file": lambda bid, file: [_a("click_element", element_id=_bid_str(bid)),
                                      _a("upload_file", files=_files(file))],
    "goto": lambda url: [_a("goto", url=url)],
    "go_back": lambda: [_a("back")],
    "go_forward": lambda: [_a("forward")],
    "send_msg_to_user": lambda text: [_a("answer", text=text)],
    "report_infeasible": lambda reason: [_a("report_infeasible", reason=reason)],
}

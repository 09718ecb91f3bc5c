"""Prompt text describing the action space, generated from the models and adapters so it cannot drift.

Each style lists every action the agent can send in that dialect, its arguments and one example that
the matching adapter is tested to accept.
"""

from __future__ import annotations

import inspect
import json
from typing import Literal

from . import browsergym as _bg
from .anthropic import to_anthropic
from .errors import ActionError
from .keys import MODIFIERS
from .model import ACTION_TYPES, ELEMENT_ACTIONS, LIMITS, SCROLL_PIXELS_PER_CLICK, BaseAction
from .parse import parse_action, signature
from .openai import to_openai

Style = Literal["canonical", "anthropic", "openai", "browsergym"]

_GROUPS = (
    ("Mouse, keyboard and screen", None),
    ("Browser", {"goto", "back", "forward"}),
    ("Elements (by id from the accessibility tree or set-of-marks list)", ELEMENT_ACTIONS),
    ("Files (the episode's downloads, listed in info['files'], go into the file chooser a page opened)", {"upload_file"}),
    ("Finishing the episode", {"answer", "report_infeasible"}),
    ("The apps' tools (where the task allows them; the tools are listed separately)", {"tool_call"}),
)
TOOL_ACTIONS = frozenset({"tool_call"})
_KEYS_NOTE = (
    "Keys use xdotool names (Return, Tab, Escape, BackSpace, Delete, Page_Down, Up, F5, space, minus) or "
    f"single characters, joined with '+' for combos (ctrl+a, shift+Tab); modifiers are {', '.join(MODIFIERS)}."
)


def limits_text() -> str:
    """The bounds every action is checked against, as one prompt line."""
    return "Limits of one action: " + "; ".join(f"{what} {bound}" for what, bound in LIMITS.items()) + "."


def _doc(cls: type[BaseAction]) -> str:
    return (cls.__doc__ or "").strip().splitlines()[0]


def _group_of(name: str) -> str:
    for title, names in _GROUPS[1:]:
        if name in names:
            return title
    return _GROUPS[0][0]


def _example(cls: type[BaseAction]) -> BaseAction:
    return parse_action(cls.examples[0])


def _canonical(elements: bool, tools: bool) -> str:
    lines = [
        'Reply with one JSON object per action; its "action" field names the action. Coordinates are '
        "integer pixels of the screenshot, (0, 0) at the top-left; omit x and y to act at the mouse position. "
        + _KEYS_NOTE
        + f" A scroll amount counts wheel clicks of {SCROLL_PIXELS_PER_CLICK} px."
    ]
    for title, _ in _GROUPS:
        entries = [
            f"- {signature(name)}: {_doc(cls)}\n  e.g. {json.dumps(cls.examples[0])}"
            for name, cls in ACTION_TYPES.items()
            if _group_of(name) == title and (elements or name not in ELEMENT_ACTIONS) and (tools or name not in TOOL_ACTIONS)
        ]
        if entries:
            lines += ["", f"{title}:", *entries]
    return "\n".join(lines)


def _extras(names: list[str], how: str) -> list[str]:
    if not names:
        return []
    out = ["", how]
    for name in names:
        cls = ACTION_TYPES[name]
        args = {k: v for k, v in cls.examples[0].items() if k != "action"}
        out.append(f"- {signature(name)}: {_doc(cls)}\n  e.g. {name} {json.dumps(args)}")
    return out


def _provider(style: str, elements: bool) -> str:
    convert = to_anthropic if style == "anthropic" else to_openai
    if style == "anthropic":
        head = (
            'Use the computer tool: input {"action": ..., ...} with coordinate [x, y] in screenshot pixels; '
            "text holds typed text, the key combo for key/hold_key, or modifiers held during a click or scroll. "
            + _KEYS_NOTE
        )
    else:
        head = (
            "Use the computer tool: each action is {\"type\": ..., ...} with x, y in screenshot pixels, scroll "
            "distances in pixels (positive = right/down), keypress keys as a list such as [\"CTRL\", \"A\"], "
            "and keys held during pointer actions in keys."
        )
    lines, extra = [head, ""], []
    for name, cls in ACTION_TYPES.items():
        if name in ELEMENT_ACTIONS and not elements or name in TOOL_ACTIONS:  # app tools are offered under their own names
            continue
        try:
            native = convert(_example(cls))
        except ActionError:
            extra.append(name)
            continue
        lines.append(f"- {name}: {_doc(cls)}\n  e.g. {json.dumps(native)}")
    how = (
        "Other tools (call each by name; the arguments are the fields shown):"
        if style == "anthropic"
        else "Function tools (function_call with this name and JSON arguments):"
    )
    return "\n".join(lines + _extras(extra, how))


def _call_signature(function: str) -> str:
    params = []
    for p in inspect.signature(_bg.SUPPORTED[function][0]).parameters.values():
        params.append(p.name if p.default is inspect.Parameter.empty else f"{p.name}={p.default!r}")
    return f"{function}({', '.join(params)})"


def _browsergym(elements: bool) -> str:
    bid = "bid is the element id shown in the accessibility tree; " if elements else ""
    lines = [
        f"Reply with one or more calls, one per line. Coordinates are pixels of the screenshot; {bid}"
        "scroll distances are pixels (positive = right/down); keys use Playwright names such as Enter, "
        "Control+a, ArrowDown.",
        "",
    ]
    for function, (_, example, doc) in _bg.SUPPORTED.items():
        if not elements and any(a.action in ELEMENT_ACTIONS for a in _bg.from_browsergym(example)):
            continue
        lines.append(f"- {_call_signature(function)}: {doc}\n  e.g. {example}")
    return "\n".join(lines)


def describe_action_space(style: Style = "canonical", elements: bool = True, tools: bool = False) -> str:
    """Prompt text listing every action of the given dialect, its arguments and an example.

    ``elements=False`` leaves out the element-id actions, for agents that see only screenshots;
    ``tools=True`` adds the canonical ``tool_call`` (in the vendors' dialects an app's tool is a tool
    of its own name, defined from ``apps_web.tools``).
    """
    if style == "canonical":
        text = _canonical(elements, tools)
    elif style in ("anthropic", "openai"):
        text = _provider(style, elements)
    elif style == "browsergym":
        text = _browsergym(elements)
    else:
        raise ActionError(f"unknown style {style!r}; use canonical, anthropic, openai or browsergym")
    return text + "\n\n" + limits_text()


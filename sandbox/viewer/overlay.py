"""What to draw over a step's screenshot so a person sees the action: markers, paths, arrows, labels."""

from __future__ import annotations

import math
from typing import Any

CLICKS = {"left_click": "click", "right_click": "right click", "middle_click": "middle click",
          "double_click": "double click", "triple_click": "triple click", "mouse_move": "move",
          "left_mouse_down": "mouse down", "left_mouse_up": "mouse up"}  # fmt: skip


def _label(action: dict[str, Any]) -> str:
    name = action.get("action", "?")
    if name == "type":
        return f"type “{_short(action.get('text', ''), 60)}”"
    if name == "key":
        rep = action.get("repeat", 1)
        return f"key {action.get('key')}" + (f" ×{rep}" if rep and rep > 1 else "")
    if name == "hold_key":
        return f"hold {action.get('key')} {action.get('duration')}s"
    if name == "goto":
        return f"go to {_short(action.get('url', ''), 70)}"
    if name == "answer":
        return f"answer “{_short(action.get('text', ''), 70)}”"
    if name == "report_infeasible":
        return f"infeasible: {_short(action.get('reason', ''), 70)}"
    if name == "wait":
        return f"wait {action.get('duration', 1)}s"
    if name in ("click_element", "fill_element", "select_option", "hover_element", "focus_element"):
        extra = action.get("text") or action.get("label") or action.get("value") or ""
        return f"{name.replace('_', ' ')} #{action.get('element_id')}" + (f" “{_short(str(extra), 40)}”" if extra else "")
    return name.replace("_", " ")


def _short(text: str, n: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def shapes(action: dict[str, Any] | None, width: int, height: int, cursor: tuple[int, int] | None = None) -> dict[str, Any]:
    """A drawing for the action in screenshot pixels: ``{"kind", "label", ...geometry}``.

    ``cursor`` is the mouse position before the action (for clicks without coordinates and typing).
    """
    if not action:
        return {"kind": "none", "label": "unparsed action"}
    name = action.get("action")
    label = _label(action)
    mods = action.get("modifiers") or []
    if mods:
        label = "+".join(mods) + " " + label
    if name in CLICKS:
        x, y = action.get("x"), action.get("y")
        if x is None and cursor:
            x, y = cursor
        if x is None:
            return {"kind": "banner", "label": label + " (at the mouse)"}
        return {"kind": "click", "x": x, "y": y, "label": label, "rings": 2 if name == "double_click" else 3 if name == "triple_click" else 1,
                "move": name == "mouse_move", **_label_pos(x, y, width, height)}  # fmt: skip
    if name == "left_click_drag":
        pts = [(action["start_x"], action["start_y"]), *((p["x"], p["y"]) for p in action.get("path") or []), (action["end_x"], action["end_y"])]
        ex, ey = pts[-1]
        return {"kind": "drag", "points": " ".join(f"{x},{y}" for x, y in pts), "x": pts[0][0], "y": pts[0][1], "ex": ex, "ey": ey,
                "label": label, **_label_pos(ex, ey, width, height)}  # fmt: skip
    if name == "scroll":
        x, y = action.get("x"), action.get("y")
        if x is None:
            x, y = cursor or (width // 2, height // 2)
        length = min(40 + 18 * int(action.get("amount", 1)), 220)
        dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[action.get("direction", "down")]
        label = f"scroll {action.get('direction')} {action.get('amount')}"
        return {"kind": "scroll", "x": x, "y": y, "ex": x + dx * length, "ey": y + dy * length, "label": label, **_label_pos(x, y, width, height)}
    if name == "zoom":
        return {"kind": "zoom", "x": action["x0"], "y": action["y0"], "w": action["x1"] - action["x0"], "h": action["y1"] - action["y0"], "label": label,
                **_label_pos(action["x0"], action["y0"], width, height)}  # fmt: skip
    if name in ("type", "key", "hold_key") and cursor:
        return {"kind": "text", "x": cursor[0], "y": cursor[1], "label": label, **_label_pos(cursor[0], cursor[1], width, height)}
    return {"kind": "banner", "label": label}


def _label_pos(x: int, y: int, width: int, height: int) -> dict[str, Any]:
    """Where the label goes: right of the point unless too close to the right edge, below unless at the bottom."""
    right = x < width * 0.7
    return {"lx": x + 22 if right else x - 22, "ly": y + 34 if y < height - 60 else y - 24, "anchor": "start" if right else "end"}


def cursor_after(action: dict[str, Any] | None, cursor: tuple[int, int] | None) -> tuple[int, int] | None:
    """The mouse position after an action (for drawing the next one)."""
    if not action:
        return cursor
    if action.get("x") is not None and action.get("y") is not None:
        return int(action["x"]), int(action["y"])
    if action.get("action") == "left_click_drag":
        return int(action["end_x"]), int(action["end_y"])
    return cursor


def distance(a: tuple[int, int], b: tuple[int, int]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])

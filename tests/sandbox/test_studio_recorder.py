"""The studio's recorder: raw input events in, canonical actions out (no browser needed)."""

from __future__ import annotations

from sandbox.studio.inputs import parse_input
from sandbox.studio.recorder import Recorder, key_combo

import pytest


def play(events: list[dict]) -> list[dict]:
    rec = Recorder()
    out = []
    for ev in events:
        out += [a.to_dict() for a in rec.feed(parse_input(ev))]
    out += [a.to_dict() for a in rec.flush()]
    return out


def keys(text: str, mods=()) -> list[dict]:
    return [{"type": "key", "key": ch, "code": "", "mods": list(mods)} for ch in text]


def click(x, y, count=1, button="left", mods=()) -> list[dict]:
    return [
        {"type": "down", "x": x, "y": y, "button": button, "count": count, "mods": list(mods)},
        {"type": "up", "x": x, "y": y, "button": button, "mods": list(mods)},
    ]


def test_typing_coalesces_and_named_keys_split_it():
    events = click(100, 50) + keys("Hello W") + [{"type": "key", "key": "Shift", "mods": ["shift"]}]
    events += keys("O", ["shift"]) + keys("rld") + [{"type": "key", "key": "Enter"}]
    assert play(events) == [
        {"action": "left_click", "x": 100, "y": 50},
        {"action": "type", "text": "Hello WOrld"},
        {"action": "key", "key": "Return"},
    ]


def test_combos_repeat_and_use_the_physical_key():
    events = [
        {"type": "key", "key": "a", "code": "KeyA", "mods": ["ctrl"]},
        {"type": "key", "key": "Backspace", "code": "Backspace"},
        {"type": "key", "key": "Backspace", "code": "Backspace"},
        {"type": "key", "key": "Backspace", "code": "Backspace"},
        {"type": "key", "key": "T", "code": "KeyT", "mods": ["ctrl", "shift"]},
        {"type": "key", "key": "Tab", "code": "Tab", "mods": ["shift"]},
        {"type": "paste", "text": "pasted text"},
        {"type": "key", "key": "!", "code": "Digit1", "mods": ["shift"]},
    ]
    assert play(events) == [
        {"action": "key", "key": "ctrl+a"},
        {"action": "key", "key": "BackSpace", "repeat": 3},
        {"action": "key", "key": "ctrl+shift+t"},
        {"action": "key", "key": "shift+Tab"},
        {"action": "type", "text": "pasted text!"},
    ]


@pytest.mark.parametrize(
    ("key", "code", "mods", "combo"),
    [
        ("ArrowDown", "ArrowDown", [], "Down"),
        ("Escape", "Escape", [], "Escape"),
        ("-", "Minus", ["ctrl"], "ctrl+minus"),
        ("Shift", "ShiftLeft", ["shift"], None),
        ("Dead", "Quote", [], None),
        ("PageDown", "PageDown", [], "Page_Down"),
        ("z", "KeyZ", ["super"], "super+z"),
    ],
)
def test_key_combo_names(key, code, mods, combo):
    assert key_combo(parse_input({"type": "key", "key": key, "code": code, "mods": mods})) == combo


def test_double_and_triple_clicks_from_the_browsers_click_count():
    events = click(10, 10) + click(11, 10, count=2) + click(300, 300) + click(300, 301, count=2) + click(300, 301, count=3)
    events += click(500, 500) + click(500, 500)  # two single clicks (the browser counted no double click)
    assert play(events) == [
        {"action": "double_click", "x": 10, "y": 10},
        {"action": "triple_click", "x": 300, "y": 300},
        {"action": "left_click", "x": 500, "y": 500},
        {"action": "left_click", "x": 500, "y": 500},
    ]


def test_buttons_and_modifiers():
    events = click(5, 6, button="right") + click(7, 8, button="middle") + click(9, 9, mods=["shift", "ctrl"])
    assert play(events) == [
        {"action": "right_click", "x": 5, "y": 6},
        {"action": "middle_click", "x": 7, "y": 8},
        {"action": "left_click", "x": 9, "y": 9, "modifiers": ["ctrl", "shift"]},
    ]


def test_drag_with_waypoints():
    moves = [{"type": "move", "x": 100 + 10 * i, "y": 200 + i} for i in range(1, 30)]
    events = [{"type": "down", "x": 100, "y": 200}, *moves, {"type": "up", "x": 400, "y": 230}]
    (drag,) = play(events)
    assert drag["action"] == "left_click_drag"
    assert (drag["start_x"], drag["start_y"], drag["end_x"], drag["end_y"]) == (100, 200, 400, 230)
    assert 1 <= len(drag["path"]) <= 8 and drag["path"][0] == {"x": 110, "y": 201}


def test_jitter_is_still_a_click():
    events = [{"type": "down", "x": 100, "y": 200}, {"type": "move", "x": 102, "y": 201}, {"type": "up", "x": 102, "y": 202}]
    assert play(events) == [{"action": "left_click", "x": 100, "y": 200}]


def test_wheel_clicks_add_up_per_place_and_direction():
    w = lambda x, d, n=1: {"type": "wheel", "x": x, "y": 300, "direction": d, "clicks": n}  # noqa: E731
    events = [w(400, "down"), w(402, "down", 2), w(402, "up"), w(900, "up")]
    assert play(events) == [
        {"action": "scroll", "x": 400, "y": 300, "direction": "down", "amount": 3},
        {"action": "scroll", "x": 402, "y": 300, "direction": "up", "amount": 1},
        {"action": "scroll", "x": 900, "y": 300, "direction": "up", "amount": 1},
    ]


def test_a_rest_is_a_hover_step_unless_the_next_press_is_there():
    events = [{"type": "rest", "x": 50, "y": 60}] + click(52, 61)  # moved there and clicked: no hover step
    events += [{"type": "rest", "x": 200, "y": 20}] + click(220, 90)  # hovered a menu, clicked an item
    events += [{"type": "rest", "x": 700, "y": 700}]  # a trailing hover changes nothing: dropped
    assert play(events) == [
        {"action": "left_click", "x": 52, "y": 61},
        {"action": "mouse_move", "x": 200, "y": 20},
        {"action": "left_click", "x": 220, "y": 90},
    ]


def test_typing_is_committed_before_the_next_click_not_after():
    rec = Recorder()
    for ev in click(1, 1) + keys("ab"):
        rec.feed(parse_input(ev))
    (typed,) = rec.feed(parse_input(click(5, 5)[0]))  # the press commits the text (screenshot taken now)
    assert typed.to_dict() == {"action": "type", "text": "ab"}
    assert rec.feed(parse_input(click(5, 5)[1])) == []
    assert rec.describe_pending() == {"action": "left_click", "x": 5, "y": 5}


def test_a_rest_where_the_last_action_happened_splits_nothing():
    w = {"type": "wheel", "x": 170, "y": 275, "direction": "down", "clicks": 1}
    events = [w, {"type": "rest", "x": 171, "y": 275}, {**w, "clicks": 2}] + click(9, 9) + [{"type": "rest", "x": 10, "y": 9}]
    events += click(9, 9, count=2)
    assert play(events) == [
        {"action": "scroll", "x": 170, "y": 275, "direction": "down", "amount": 3},
        {"action": "double_click", "x": 9, "y": 9},
    ]

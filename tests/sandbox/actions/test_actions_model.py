"""The canonical action model: every type round-trips, bad actions fail with a useful message."""

import json
import typing

import pytest
from pydantic import TypeAdapter

from sandbox.actions import (
    ACTION_TYPES,
    Action,
    ActionError,
    Key,
    LeftClick,
    LeftClickDrag,
    Point,
    Scroll,
    Type,
    Wait,
    Zoom,
    action_json_schema,
    build,
    parse_action,
    scale_action,
)

EXAMPLES = [(name, example) for name, cls in ACTION_TYPES.items() for example in cls.examples]

REQUIRED_NAMES = {
    "left_click", "right_click", "middle_click", "double_click", "triple_click", "mouse_move",
    "left_click_drag", "left_mouse_down", "left_mouse_up", "scroll", "type", "key", "hold_key", "wait",
    "screenshot", "cursor_position", "zoom", "goto", "back", "forward", "click_element", "fill_element",
    "select_option", "answer", "report_infeasible",
}  # fmt: skip


def test_vocabulary_covers_the_contract():
    assert REQUIRED_NAMES <= set(ACTION_TYPES)
    union_members = typing.get_args(typing.get_args(Action)[0])
    assert set(union_members) == set(ACTION_TYPES.values())
    assert all(cls.examples for cls in ACTION_TYPES.values()), "every action documents an example"


@pytest.mark.parametrize(("name", "example"), EXAMPLES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(EXAMPLES)])
def test_every_action_round_trips(name, example):
    action = parse_action(example)
    assert type(action) is ACTION_TYPES[name]
    assert action.action == name
    assert parse_action(action.to_dict()) == action
    assert parse_action(action.model_dump_json()) == action
    assert parse_action(json.dumps(example)) == action
    assert TypeAdapter(Action).validate_python(action.model_dump()) == action
    assert parse_action(action) is action
    assert build(name, **{k: v for k, v in example.items() if k != "action"}) == action


def test_defaults_and_normalisation():
    click = parse_action({"action": "left_click"})
    assert (click.x, click.y, click.modifiers) == (None, None, ())
    assert parse_action({"action": "left_click", "x": 1, "y": 2, "modifiers": ["Control", "SHIFT", "ctrl"]}).modifiers == ("ctrl", "shift")
    assert parse_action({"action": "key", "key": "CONTROL+a"}).key == "ctrl+a"
    assert parse_action({"action": "key", "key": "ctrl+A"}).key == "ctrl+A"  # a single character keeps its case
    assert parse_action({"action": "key", "key": "enter"}).key == "Return"
    assert parse_action({"action": "wait"}).duration == 1.0
    assert parse_action({"action": "hold_key", "key": "Shift_L", "duration": 2}).key == "shift"
    drag = parse_action(LeftClickDrag.examples[1])
    assert drag.path == (Point(x=50, y=20),)
    assert LeftClick(x=3, y=4).to_dict() == {"action": "left_click", "x": 3, "y": 4}


def test_json_schema_is_a_discriminated_union():
    schema = action_json_schema()
    assert schema["discriminator"]["propertyName"] == "action"
    assert set(schema["discriminator"]["mapping"]) == set(ACTION_TYPES)


@pytest.mark.parametrize(
    ("payload", "needles"),
    [
        ({"action": "clik", "x": 1, "y": 2}, ["unknown action 'clik'", "left_click"]),
        ({"x": 1, "y": 2}, ["missing field 'action'"]),
        ({"action": "mouse_move", "x": 5}, ["missing required argument 'y'", "mouse_move(x"]),
        ({"action": "left_click", "x": 5}, ["both x and y"]),
        ({"action": "left_click", "x": -5, "y": 3}, ["x:", "greater than or equal to 0", "-5"]),
        ({"action": "left_click_drag", "start_x": 0, "start_y": 0, "end_x": -1, "end_y": 0}, ["end_x"]),
        ({"action": "left_click", "x": "5", "y": 3}, ["x:", "valid integer", "'5'"]),
        ({"action": "left_click", "x": 5.5, "y": 3}, ["x:"]),
        ({"action": "left_click", "x": True, "y": 3}, ["x:"]),
        ({"action": "left_click", "x": 5, "y": 3, "button": "left"}, ["unexpected argument 'button'"]),
        ({"action": "left_click", "modifiers": ["a"]}, ["'a' is not a modifier"]),
        ({"action": "left_click", "modifiers": "shift"}, ["modifiers", "list"]),
        ({"action": "key", "key": ""}, ["key", "empty"]),
        ({"action": "key", "key": "ctrl+Retrun"}, ["unknown key 'Retrun'", "'Return'"]),
        ({"action": "key", "key": 5}, ["key"]),
        ({"action": "key", "key": "a", "repeat": 0}, ["repeat"]),
        ({"action": "hold_key", "key": "shift a", "duration": 1}, ["one key or combo"]),
        ({"action": "type", "text": ""}, ["text"]),
        ({"action": "type"}, ["missing required argument 'text'"]),
        ({"action": "wait", "duration": 21}, ["duration", "20"]),
        ({"action": "hold_key", "key": "shift", "duration": 1e300}, ["duration", "20"]),
        # sane bounds: each error names the limit
        ({"action": "left_click", "x": 99999, "y": 3}, ["x:", "9999"]),
        ({"action": "left_click", "x": 10**5000, "y": 3}, ["x:", "9999", "more than 60 digits"]),
        ({"action": "scroll", "direction": "down", "amount": 10**37}, ["amount", "less than or equal to 100"]),
        ({"action": "type", "text": "a" * 2001}, ["2001 characters", "limit is 2000", "fill_element"]),
        ({"action": "key", "key": " ".join(["Tab"] * 100), "repeat": 10}, ["1000", "limit is 100 presses"]),
        ({"action": "key", "key": "Tab", "repeat": 101}, ["repeat", "100"]),
        ({"action": "key", "key": "ctrl+shift+alt+meta+F13"}, ["unknown key 'F13'", "F1-F12"]),
        ({"action": "key", "key": "ctrl+F24"}, ["unknown key 'F24'"]),
        ({"action": "key", "key": "ctrl+\U0001F680"}, ["unknown key"]),
        ({"action": "key", "key": "+".join("abcdefg")}, ["7 keys", "limit is 6"]),
        ({"action": "left_click_drag", "start_x": 0, "start_y": 0, "end_x": 1, "end_y": 1, "path": [{"x": 1, "y": 1}] * 21},
         ["path has 21 waypoints", "limit is 20"]),
        ({"action": "fill_element", "element_id": "a1", "text": "x" * 65537}, ["limit is 65536"]),
        ({"action": "click_element", "element_id": "e" * 65}, ["element_id", "limit is 64"]),
        ({"action": "goto", "url": "http://crm.localhost/" + "a" * 8192}, ["limit is 8192"]),
        ({"action": "wait", "duration": -1}, ["duration"]),
        ({"action": "wait", "duration": float("nan")}, ["duration"]),
        ({"action": "scroll", "direction": "sideways", "amount": 3}, ["direction", "'up'"]),
        ({"action": "scroll", "direction": "down", "amount": 0}, ["amount", "greater than or equal to 1"]),
        ({"action": "zoom", "x0": 10, "y0": 10, "x1": 5, "y1": 20}, ["region", "empty"]),
        ({"action": "goto", "url": "javascript:alert(1)"}, ["not allowed"]),
        ({"action": "goto", "url": "ftp://example.com/"}, ["not allowed"]),
        ({"action": "goto", "url": "java\tscript:alert(1)"}, ["'javascript:alert(1)' is not allowed"]),
        ({"action": "goto", "url": " \x00JAVASCRIPT:alert(1)"}, ["not allowed"]),
        ({"action": "goto", "url": "http://[::1"}, ["not a valid URL"]),
        ({"action": "goto", "url": "http://a b"}, ["without spaces"]),
        ({"action": "click_element", "element_id": ""}, ["element_id"]),
        ({"action": "click_element", "element_id": "a1", "count": 4}, ["count"]),
        ({"action": "select_option", "element_id": "s1"}, ["exactly one of value"]),
        ({"action": "select_option", "element_id": "s1", "value": "a", "label": "A"}, ["exactly one of value"]),
        ({"action": "select_option", "element_id": "s1", "label": []}, ["empty"]),
        ({"action": "answer", "text": ""}, ["text"]),
        ({"action": "report_infeasible"}, ["reason"]),
    ],
)
def test_invalid_actions_say_what_is_wrong(payload, needles):
    with pytest.raises(ActionError) as err:
        parse_action(payload)
    message = str(err.value)
    for needle in needles:
        assert needle in message, message
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        ('{"action": "left_click", "x": 1,', "not valid JSON"),
        ("left_click(1, 2)", "not valid JSON"),
        ("[1, 2]", "must be an object"),
        (42, "must be an object"),
        (None, "must be an object"),
    ],
)
def test_bad_json_and_wrong_types(raw, needle):
    with pytest.raises(ActionError, match=needle):
        parse_action(raw)


def test_error_message_teaches_the_fix():
    with pytest.raises(ActionError) as err:
        parse_action({"action": "scroll", "direction": "down"})
    message = str(err.value)
    assert "amount" in message and "scroll(" in message and '"amount": 5' in message  # signature + example


def test_models_are_frozen():
    click = LeftClick(x=1, y=2)
    with pytest.raises(Exception):
        click.x = 5  # type: ignore[misc]


def test_scale_action_maps_and_rounds():
    assert scale_action(LeftClick(x=100, y=50), 1.25, 1.6) == LeftClick(x=125, y=80)
    assert scale_action(LeftClick(x=1, y=3), 0.5) == LeftClick(x=1, y=2)  # 0.5 -> 1, 1.5 -> 2: half up
    assert scale_action(LeftClick(x=101, y=99), 2 / 3, 2 / 3) == LeftClick(x=67, y=66)
    drag = LeftClickDrag(start_x=10, start_y=20, end_x=30, end_y=40, path=[Point(x=15, y=25)])
    scaled = scale_action(drag, 2, 0.5)
    assert (scaled.start_x, scaled.start_y, scaled.end_x, scaled.end_y) == (20, 10, 60, 20)
    assert scaled.path == (Point(x=30, y=13),)  # 25 * 0.5 = 12.5 rounds half up
    assert scale_action(Zoom(x0=0, y0=0, x1=640, y1=360), 2) == Zoom(x0=0, y0=0, x1=1280, y1=720)
    assert scale_action(Zoom(x0=10, y0=10, x1=11, y1=11), 0.1).x1 == 2  # never squeezed to nothing
    scroll = Scroll(x=10, y=10, direction="down", amount=3)
    assert scale_action(scroll, 2).amount == 3  # wheel clicks are not pixels
    untouched = Type(text="hi")
    assert scale_action(untouched, 3) is untouched
    assert scale_action(LeftClick(), 2) == LeftClick()


@pytest.mark.parametrize("factor", [0, -1, float("inf"), "2", True])
def test_scale_action_rejects_bad_factors(factor):
    with pytest.raises(ActionError, match="positive"):
        scale_action(LeftClick(x=1, y=1), factor)


def test_constructors_validate_too():
    with pytest.raises(ValueError):
        Key(key="nonsense_key")
    with pytest.raises(ValueError):
        Wait(duration=600)

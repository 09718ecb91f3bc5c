"""OpenAI computer_call items, as the Responses API returns them."""

import json

import pytest

from sandbox.actions import (
    ToolCall,
    ACTION_TYPES,
    ActionError,
    Answer,
    Back,
    DoubleClick,
    Forward,
    Goto,
    Key,
    LeftClick,
    LeftClickDrag,
    MiddleClick,
    MouseMove,
    Point,
    RightClick,
    Screenshot,
    Scroll,
    Type,
    Wait,
    from_openai,
    parse_action,
    to_openai,
    to_openai_function_call,
)


def computer_call(action=None, actions=None):
    item = {
        "type": "computer_call",
        "id": "cu_67cc9a6a1a6c8190a6b7c44b6f8e4a6c",
        "call_id": "call_zw3kFq0pJzR8t4mVx1qB9dLs",
        "pending_safety_checks": [],
        "status": "completed",
    }
    if action is not None:
        item["action"] = action
    if actions is not None:
        item["actions"] = actions
    return item


REAL_ACTIONS = [
    ({"type": "click", "button": "left", "x": 156, "y": 50}, [LeftClick(x=156, y=50)]),
    ({"type": "click", "button": "right", "x": 10, "y": 20}, [RightClick(x=10, y=20)]),
    ({"type": "click", "button": "wheel", "x": 10, "y": 20}, [MiddleClick(x=10, y=20)]),
    ({"type": "click", "button": "back", "x": 10, "y": 20}, [Back()]),
    ({"type": "click", "button": "forward", "x": 10, "y": 20}, [Forward()]),
    ({"type": "click", "button": "left", "x": 5, "y": 6, "keys": ["SHIFT"]}, [LeftClick(x=5, y=6, modifiers=["shift"])]),
    ({"type": "click", "button": "left", "x": 5, "y": 6, "keys": None}, [LeftClick(x=5, y=6)]),
    ({"type": "double_click", "x": 300, "y": 200}, [DoubleClick(x=300, y=200)]),
    (
        {"type": "drag", "path": [{"x": 100, "y": 200}, {"x": 150, "y": 250}, {"x": 200, "y": 300}]},
        [LeftClickDrag(start_x=100, start_y=200, end_x=200, end_y=300, path=[Point(x=150, y=250)])],
    ),
    (
        {"type": "drag", "path": [{"x": 1, "y": 2}, {"x": 3, "y": 4}], "keys": ["CTRL"]},
        [LeftClickDrag(start_x=1, start_y=2, end_x=3, end_y=4, modifiers=["ctrl"])],
    ),
    ({"type": "keypress", "keys": ["CTRL", "A"]}, [Key(key="ctrl+a")]),
    ({"type": "keypress", "keys": ["ENTER"]}, [Key(key="Return")]),
    ({"type": "keypress", "keys": ["ARROWLEFT"]}, [Key(key="Left")]),
    ({"type": "keypress", "keys": ["ESC"]}, [Key(key="Escape")]),
    ({"type": "keypress", "keys": ["SPACE"]}, [Key(key="space")]),
    ({"type": "keypress", "keys": ["CMD", "L"]}, [Key(key="super+l")]),
    ({"type": "move", "x": 400, "y": 300}, [MouseMove(x=400, y=300)]),
    ({"type": "scroll", "x": 640, "y": 400, "scroll_x": 0, "scroll_y": 300}, [Scroll(x=640, y=400, direction="down", amount=3)]),
    ({"type": "scroll", "x": 640, "y": 400, "scroll_x": 0, "scroll_y": -250}, [Scroll(x=640, y=400, direction="up", amount=3)]),
    ({"type": "scroll", "x": 1, "y": 1, "scroll_x": 0, "scroll_y": 30}, [Scroll(x=1, y=1, direction="down", amount=1)]),
    ({"type": "scroll", "x": 1, "y": 1, "scroll_x": -149, "scroll_y": 0}, [Scroll(x=1, y=1, direction="left", amount=1)]),
    (
        {"type": "scroll", "x": 1, "y": 1, "scroll_x": 200, "scroll_y": 400},
        [Scroll(x=1, y=1, direction="down", amount=4), Scroll(x=1, y=1, direction="right", amount=2)],
    ),
    ({"type": "type", "text": "hello world"}, [Type(text="hello world")]),
    ({"type": "wait"}, [Wait()]),
    ({"type": "screenshot"}, [Screenshot()]),
]


@pytest.mark.parametrize(("action", "expected"), REAL_ACTIONS, ids=[a["type"] for a, _ in REAL_ACTIONS])
def test_real_computer_call_items(action, expected):
    assert from_openai(computer_call(action=action)) == expected
    assert from_openai(action) == expected  # a bare action works too


def test_batched_actions():
    item = computer_call(
        actions=[
            {"type": "click", "button": "left", "x": 10, "y": 20},
            {"type": "type", "text": "Acme"},
            {"type": "keypress", "keys": ["ENTER"]},
        ]
    )
    assert from_openai(item) == [LeftClick(x=10, y=20), Type(text="Acme"), Key(key="Return")]


def test_batch_errors_name_the_failing_action():
    item = computer_call(actions=[{"type": "screenshot"}, {"type": "click", "button": "left", "x": -1, "y": 0}])
    with pytest.raises(ActionError, match=r"actions\[1\].*from 0 to 9999"):
        from_openai(item)


def test_function_call_items_reach_the_extra_actions():
    goto = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "goto", "arguments": '{"url": "http://crm.localhost:8765/"}'}
    assert from_openai(goto) == [Goto(url="http://crm.localhost:8765/")]
    assert from_openai(to_openai_function_call(Answer(text="done"))) == [Answer(text="done")]
    with pytest.raises(ActionError, match="not valid JSON"):
        from_openai({"type": "function_call", "name": "goto", "arguments": "{url"})
    call = {"type": "function_call", "name": "desk_get_incident", "arguments": '{"sys_id": 4}'}
    assert from_openai(call) == [ToolCall(name="desk_get_incident", arguments={"sys_id": 4})]  # an app's tool


NO_OPENAI_FORM = {
    "triple_click", "left_mouse_down", "left_mouse_up", "hold_key", "cursor_position", "zoom", "goto",
    "back", "forward", "click_element", "fill_element", "select_option", "hover_element", "focus_element",
    "answer", "report_infeasible", "tool_call", "upload_file",
}  # fmt: skip
EXAMPLES = [parse_action(e) for cls in ACTION_TYPES.values() for e in cls.examples]


@pytest.mark.parametrize("action", EXAMPLES, ids=[a.action for a in EXAMPLES])
def test_to_openai_round_trips(action):
    if action.action in NO_OPENAI_FORM or (isinstance(action, Key) and action.repeat > 1):
        with pytest.raises(ActionError):
            to_openai(action)
        assert from_openai(to_openai_function_call(action)) == [action]
        return
    payload = to_openai(action)
    back = from_openai(computer_call(action=payload))
    if isinstance(action, Wait):  # OpenAI's wait has no duration
        assert back == [Wait()]
    else:
        assert back == [action]


def test_to_openai_shapes():
    assert to_openai(Scroll(x=3, y=4, direction="up", amount=2)) == {"type": "scroll", "x": 3, "y": 4, "scroll_x": 0, "scroll_y": -200}
    assert to_openai(LeftClick(x=1, y=2, modifiers=["ctrl"])) == {"type": "click", "button": "left", "x": 1, "y": 2, "keys": ["CTRL"]}
    assert to_openai(Key(key="ctrl+shift+t")) == {"type": "keypress", "keys": ["CTRL", "SHIFT", "T"]}
    with pytest.raises(ActionError, match="needs x and y"):
        to_openai(LeftClick())
    with pytest.raises(ActionError, match="one combo"):
        to_openai(Key(key="ctrl+a BackSpace"))


@pytest.mark.parametrize(
    ("payload", "needle"),
    [
        ({"type": "tap", "x": 1, "y": 2}, "unknown OpenAI computer action type 'tap'"),
        ({"x": 1, "y": 2}, "missing 'type'"),
        ({"type": "click", "button": "left", "x": 5}, "click needs y"),
        ({"type": "click", "x": 5, "y": 5}, "button"),
        ({"type": "click", "button": "middle", "x": 5, "y": 5}, "button"),
        ({"type": "click", "button": "left", "x": -5, "y": 5}, "from 0 to 9999"),
        ({"type": "click", "button": "left", "x": 5.5, "y": 5}, "integer"),
        ({"type": "click", "button": "left", "x": "5", "y": 5}, "integer"),
        ({"type": "click", "button": "left", "x": 5, "y": 5, "keys": ["A"]}, "not a modifier"),
        ({"type": "click", "button": "left", "x": 5, "y": 5, "z": 1}, "unexpected field(s) z"),
        ({"type": "keypress", "keys": []}, "non-empty list"),
        ({"type": "keypress", "keys": [""]}, "empty"),
        ({"type": "keypress", "keys": ["CTRL", "NOPE"]}, "unknown key 'NOPE'"),
        ({"type": "keypress", "keys": "CTRL+A"}, "list"),
        ({"type": "keypress"}, "needs keys"),
        ({"type": "drag", "path": [{"x": 1, "y": 1}]}, "at least two points"),
        ({"type": "drag", "path": [[1, 1], [2, 2]]}, "{x, y}"),
        ({"type": "scroll", "x": 1, "y": 1, "scroll_x": 0, "scroll_y": 0}, "scroll_x = scroll_y = 0"),
        ({"type": "scroll", "x": 1, "y": 1, "scroll_y": 100}, "needs scroll_x"),
        ({"type": "type", "text": ""}, "text"),
        ({"type": "type"}, "needs text"),
        ({"type": "wait", "ms": 500}, "unexpected field"),
        ("click", "object"),
    ],
)
def test_malformed_actions(payload, needle):
    with pytest.raises(ActionError) as err:
        from_openai(payload)
    assert needle in str(err.value)


@pytest.mark.parametrize(
    ("item", "needle"),
    [
        (computer_call(), "neither 'action' nor 'actions'"),
        (computer_call(actions=[]), "non-empty list"),
        (computer_call(action={"type": "screenshot"}, actions="oops"), "non-empty list"),
    ],
)
def test_malformed_computer_calls(item, needle):
    with pytest.raises(ActionError, match=needle):
        from_openai(item)


def test_real_item_survives_json():
    raw = json.dumps(computer_call(action={"type": "click", "button": "left", "x": 1, "y": 2}))
    assert from_openai(json.loads(raw)) == [LeftClick(x=1, y=2)]

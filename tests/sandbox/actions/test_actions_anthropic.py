"""Anthropic computer tool (computer_20250124 / computer_20251124) payloads, as Claude sends them."""

import pytest

from sandbox.actions import (
    ToolCall,
    ACTION_TYPES,
    ActionError,
    Answer,
    CursorPosition,
    DoubleClick,
    Goto,
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
    from_anthropic,
    from_anthropic_tool,
    parse_action,
    to_anthropic,
    to_anthropic_tool,
)

# (tool input exactly as it appears in a tool_use block, expected canonical action)
REAL_INPUTS = [
    ({"action": "screenshot"}, Screenshot()),
    ({"action": "left_click", "coordinate": [500, 300]}, LeftClick(x=500, y=300)),
    ({"action": "left_click"}, LeftClick()),
    ({"action": "left_click", "coordinate": [420, 88], "text": "shift"}, LeftClick(x=420, y=88, modifiers=["shift"])),
    ({"action": "left_click", "coordinate": [420, 88], "text": "ctrl+shift"}, LeftClick(x=420, y=88, modifiers=["ctrl", "shift"])),
    ({"action": "left_click", "coordinate": [420, 88], "key": "ctrl"}, LeftClick(x=420, y=88, modifiers=["ctrl"])),
    ({"action": "right_click", "coordinate": [10, 20]}, RightClick(x=10, y=20)),
    ({"action": "middle_click", "coordinate": [10, 20]}, MiddleClick(x=10, y=20)),
    ({"action": "double_click", "coordinate": [10, 20]}, DoubleClick(x=10, y=20)),
    ({"action": "triple_click", "coordinate": [10, 20]}, TripleClick(x=10, y=20)),
    ({"action": "mouse_move", "coordinate": [0, 0]}, MouseMove(x=0, y=0)),
    (
        {"action": "left_click_drag", "start_coordinate": [400, 300], "coordinate": [600, 500]},
        LeftClickDrag(start_x=400, start_y=300, end_x=600, end_y=500),
    ),
    ({"action": "left_mouse_down"}, LeftMouseDown()),
    ({"action": "left_mouse_down", "coordinate": [5, 6]}, LeftMouseDown(x=5, y=6)),
    ({"action": "left_mouse_up", "coordinate": [600, 500]}, LeftMouseUp(x=600, y=500)),
    (
        {"action": "scroll", "coordinate": [640, 400], "scroll_direction": "down", "scroll_amount": 3},
        Scroll(x=640, y=400, direction="down", amount=3),
    ),
    (
        {"action": "scroll", "coordinate": [640, 400], "scroll_direction": "up", "scroll_amount": 5, "text": "ctrl"},
        Scroll(x=640, y=400, direction="up", amount=5, modifiers=["ctrl"]),
    ),
    ({"action": "scroll", "scroll_direction": "right", "scroll_amount": 1}, Scroll(direction="right", amount=1)),
    ({"action": "type", "text": "Hello, world!\n"}, Type(text="Hello, world!\n")),
    ({"action": "key", "text": "ctrl+s"}, Key(key="ctrl+s")),
    ({"action": "key", "text": "Return"}, Key(key="Return")),
    ({"action": "key", "text": "KP_Enter"}, Key(key="Return")),
    ({"action": "key", "text": "alt+Tab"}, Key(key="alt+Tab")),
    ({"action": "key", "text": "ctrl+a BackSpace"}, Key(key="ctrl+a BackSpace")),
    ({"action": "key", "text": "Down", "repeat": 3}, Key(key="Down", repeat=3)),
    ({"action": "hold_key", "text": "shift", "duration": 1}, HoldKey(key="shift", duration=1)),
    ({"action": "wait", "duration": 2}, Wait(duration=2)),
    ({"action": "wait"}, Wait()),
    ({"action": "cursor_position"}, CursorPosition()),
    ({"action": "zoom", "region": [0, 0, 640, 400]}, Zoom(x0=0, y0=0, x1=640, y1=400)),  # computer_20251124
]


@pytest.mark.parametrize(("payload", "expected"), REAL_INPUTS, ids=[p["action"] for p, _ in REAL_INPUTS])
def test_real_computer_inputs(payload, expected):
    assert from_anthropic(payload) == expected


def test_a_whole_tool_use_block():
    block = {
        "type": "tool_use",
        "id": "toolu_01A09q90qw90lq917835lq9",
        "name": "computer",
        "input": {"action": "left_click", "coordinate": [512, 384]},
    }
    assert from_anthropic(block) == LeftClick(x=512, y=384)


def test_null_arguments_are_ignored():
    assert from_anthropic({"action": "left_click", "coordinate": [1, 2], "text": None}) == LeftClick(x=1, y=2)


def test_drag_without_start_drags_from_the_mouse():
    assert from_anthropic({"action": "left_click_drag", "coordinate": [70, 80]}) == [LeftMouseDown(), LeftMouseUp(x=70, y=80)]


def test_member_tools_and_extra_tools():
    assert from_anthropic_tool("left_click", {"coordinate": [3, 4]}) == LeftClick(x=3, y=4)
    assert from_anthropic_tool("scroll", {"scroll_direction": "down", "scroll_amount": 2}) == Scroll(direction="down", amount=2)
    assert from_anthropic_tool("screenshot", {}) == Screenshot()
    assert from_anthropic_tool("computer", {"action": "key", "text": "Escape"}) == Key(key="Escape")
    assert from_anthropic_tool("goto", {"url": "http://crm.localhost:8765/"}) == Goto(url="http://crm.localhost:8765/")
    assert from_anthropic_tool("answer", {"text": "42"}) == Answer(text="42")
    # Any other name is one of the apps' tools (the episode answers if there is no such tool).
    assert from_anthropic_tool("crm_get_account", {"record_id": 3}) == ToolCall(name="crm_get_account", arguments={"record_id": 3})
    with pytest.raises(ActionError, match="called with action"):
        from_anthropic_tool("left_click", {"action": "right_click"})


NOT_IN_COMPUTER_TOOL = {
    "goto", "back", "forward", "click_element", "fill_element", "select_option", "hover_element",
    "focus_element", "answer", "report_infeasible", "tool_call", "upload_file",
}  # fmt: skip
EXAMPLES = [parse_action(e) for cls in ACTION_TYPES.values() for e in cls.examples]


@pytest.mark.parametrize("action", EXAMPLES, ids=[a.action for a in EXAMPLES])
def test_to_anthropic_round_trips(action):
    if action.action in NOT_IN_COMPUTER_TOOL:
        with pytest.raises(ActionError, match="no form in Anthropic"):
            to_anthropic(action)
        name, args = to_anthropic_tool(action)
        assert name == (action.name if action.action == "tool_call" else action.action)  # an app's tool keeps its own name
        assert from_anthropic_tool(name, args) == action
        return
    if isinstance(action, LeftClickDrag) and action.path:
        with pytest.raises(ActionError, match="waypoints"):
            to_anthropic(action)
        return
    payload = to_anthropic(action)
    assert to_anthropic_tool(action) == ("computer", payload)
    back = from_anthropic(payload)
    if isinstance(action, Key) and action.repeat > 1:  # repeat is spelled as an xdotool sequence
        assert back == Key(key=" ".join([action.key] * action.repeat))
    else:
        assert back == action


def test_to_anthropic_shapes():
    assert to_anthropic(LeftClick(x=1, y=2, modifiers=["shift"])) == {"action": "left_click", "coordinate": [1, 2], "text": "shift"}
    assert to_anthropic(Scroll(direction="down", amount=3)) == {"action": "scroll", "scroll_direction": "down", "scroll_amount": 3}
    assert to_anthropic(Key(key="Tab", repeat=3)) == {"action": "key", "text": "Tab Tab Tab"}
    assert to_anthropic(Zoom(x0=1, y0=2, x1=3, y1=4)) == {"action": "zoom", "region": [1, 2, 3, 4]}


def test_to_anthropic_refuses_what_it_cannot_express():
    drag = LeftClickDrag(start_x=1, start_y=1, end_x=9, end_y=9, path=[{"x": 5, "y": 2}])
    with pytest.raises(ActionError, match="waypoints"):
        to_anthropic(drag)
    with pytest.raises(ActionError, match="modifier"):
        to_anthropic(MouseMove(x=1, y=1, modifiers=["shift"]))


@pytest.mark.parametrize(
    ("payload", "needle"),
    [
        ({"action": "click", "coordinate": [1, 2]}, "unknown computer action 'click'"),
        ({"coordinate": [1, 2]}, "missing 'action'"),
        ({"action": "mouse_move"}, "needs coordinate"),
        ({"action": "left_click", "coordinate": [-1, 5]}, "non-negative"),
        ({"action": "left_click", "coordinate": [1, 2, 3]}, "[x, y]"),
        ({"action": "left_click", "coordinate": [1.5, 2]}, "integer"),
        ({"action": "left_click", "coordinate": "1,2"}, "[x, y]"),
        ({"action": "left_click", "coordinate": [1, 2], "text": "a"}, "not a modifier"),
        ({"action": "key", "text": ""}, "empty"),
        ({"action": "key"}, "needs text"),
        ({"action": "key", "text": "Retrun"}, "unknown key 'Retrun'"),
        ({"action": "key", "text": 5}, "must be a string"),
        ({"action": "type", "text": 5}, "text"),
        ({"action": "scroll", "coordinate": [1, 1], "scroll_amount": 3}, "needs scroll_direction"),
        ({"action": "scroll", "coordinate": [1, 1], "scroll_direction": "down", "scroll_amount": 0}, "scroll_amount"),
        ({"action": "scroll", "scroll_direction": "diagonal", "scroll_amount": 1}, "direction"),
        ({"action": "hold_key", "text": "shift"}, "needs duration"),
        ({"action": "wait", "duration": 1000}, "duration"),
        ({"action": "zoom", "region": [0, 0, 10]}, "region"),
        ({"action": "zoom"}, "needs region"),
        ({"action": "screenshot", "coordinate": [1, 2]}, "unexpected argument"),
        ({"action": "left_click_drag", "start_coordinate": [1, 2]}, "needs coordinate"),
    ],
)
def test_malformed_inputs(payload, needle):
    with pytest.raises(ActionError) as err:
        from_anthropic(payload)
    assert needle in str(err.value)


def test_input_must_be_an_object():
    with pytest.raises(ActionError, match="object"):
        from_anthropic('{"action": "screenshot"}')  # type: ignore[arg-type]

"""Real-shaped agent payloads (Anthropic computer tool, OpenAI computer_call, BrowserGym strings) run in Chromium."""

from __future__ import annotations

import pytest

from sandbox.actions import from_anthropic, from_browsergym, from_openai

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def pg(sbx_runtime):  # noqa: ANN001
    from sandbox.gym_env import SandboxEnv

    env = SandboxEnv("playground", "/", "play", runtime=sbx_runtime, marks=True)
    yield env
    env.close()


@pytest.fixture
def env(pg):  # noqa: ANN001
    pg.reset(seed=0)
    return pg


def run(env, actions):  # noqa: ANN001
    actions = actions if isinstance(actions, list) else [actions]
    out = None
    for action in actions:
        out = env.step(action)
        assert out[0]["last_action_error"] == "", (action, out[0]["last_action_error"])
    return out


def value(env, helpers, element_id: str):  # noqa: ANN001
    return helpers.js(env, f"document.getElementById('{element_id}').value")


def test_anthropic_computer_tool_inputs(env, helpers):  # noqa: ANN001
    run(env, from_anthropic({"action": "left_click", "coordinate": [100, 75], "text": "shift"}))
    assert helpers.events(env, "click")[-1]["mods"] == ["shift"]
    run(env, from_anthropic({"action": "right_click", "coordinate": [100, 75]}))
    run(env, from_anthropic({"action": "double_click", "coordinate": [100, 75]}))
    run(env, from_anthropic({"action": "triple_click", "coordinate": [100, 75]}))
    assert helpers.events(env, "click")[-1]["detail"] == 3 and helpers.events(env, "contextmenu")
    run(env, from_anthropic({"action": "mouse_move", "coordinate": [60, 395]}))
    *_, info = run(env, from_anthropic({"action": "cursor_position"}))
    assert info["cursor"] == (60, 395)
    run(env, from_anthropic({"action": "left_click_drag", "start_coordinate": [50, 150], "coordinate": [650, 550]}))
    assert helpers.events(env, "drop")[-1]["x"] == 620
    run(env, from_anthropic({"action": "left_mouse_down", "coordinate": [650, 550]}))
    run(env, from_anthropic({"action": "mouse_move", "coordinate": [700, 560]}))
    run(env, from_anthropic({"action": "left_mouse_up", "coordinate": [700, 560]}))
    assert helpers.events(env, "drop")[-1]["x"] == 670
    run(env, from_anthropic({"action": "scroll", "coordinate": [150, 270], "scroll_direction": "down", "scroll_amount": 2}))
    assert helpers.js(env, "document.getElementById('scroller').scrollTop") == 200
    run(env, from_anthropic({"action": "left_click", "coordinate": [560, 212]}))
    run(env, from_anthropic({"action": "type", "text": "Grüße 🚀"}))
    run(env, from_anthropic({"action": "key", "text": "ctrl+a"}))
    run(env, from_anthropic({"action": "key", "text": "BackSpace"}))
    assert value(env, helpers, "text") == ""
    run(env, from_anthropic({"action": "hold_key", "text": "shift", "duration": 0.1}))
    *_, info = run(env, from_anthropic({"action": "zoom", "region": [0, 0, 400, 200]}))
    assert info["zoom"].shape == (200, 400, 3)
    run(env, from_anthropic({"action": "wait", "duration": 0.05}))
    run(env, from_anthropic({"action": "screenshot"}))
    # the whole tool_use block, as the Messages API returns it
    block = {"type": "tool_use", "id": "toolu_01", "name": "computer", "input": {"action": "left_click", "coordinate": [100, 75]}}
    run(env, from_anthropic(block))
    assert helpers.events(env, "click")[-1]["mods"] == []


def test_openai_computer_call_batch(env, helpers):  # noqa: ANN001
    call = {
        "type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed",
        "pending_safety_checks": [],
        "actions": [
            {"type": "click", "button": "left", "x": 100, "y": 75, "keys": ["SHIFT"]},
            {"type": "click", "button": "right", "x": 100, "y": 75},
            {"type": "click", "button": "wheel", "x": 100, "y": 75},
            {"type": "double_click", "x": 100, "y": 75},
            {"type": "move", "x": 60, "y": 395},
            {"type": "drag", "path": [{"x": 50, "y": 150}, {"x": 300, "y": 500}, {"x": 650, "y": 550}]},
            {"type": "scroll", "x": 150, "y": 270, "scroll_x": 0, "scroll_y": 300},
            {"type": "click", "button": "left", "x": 560, "y": 212},
            {"type": "type", "text": "héllo wörld"},
            {"type": "keypress", "keys": ["CTRL", "A"]},
            {"type": "type", "text": "new"},
            {"type": "wait"},
            {"type": "screenshot"},
        ],
    }
    actions = from_openai(call)
    run(env, actions)
    kinds = [e["kind"] for e in helpers.events(env)]
    assert helpers.events(env, "click")[0]["mods"] == ["shift"]
    assert "contextmenu" in kinds and "auxclick" in kinds and "dblclick" in kinds and "hover" in kinds
    assert helpers.events(env, "drop")[-1]["x"] == 620
    assert helpers.js(env, "document.getElementById('scroller').scrollTop") == 300
    assert value(env, helpers, "text") == "new"
    # a single action, as the older single-action computer_call carries it
    run(env, from_openai({"type": "computer_call", "call_id": "c2", "action": {"type": "keypress", "keys": ["ENTER"]}}))
    assert "Enter" in helpers.js(env, "document.getElementById('keys').textContent")


def test_browsergym_strings(env, helpers):  # noqa: ANN001
    obs, reward, terminated, truncated, info = env.step({"action": "screenshot"})
    name = helpers.element(info, "Name", "textbox")["id"]
    colour = helpers.element(info, "Colour", "combobox")["id"]
    button = helpers.element(info, "Click me", "button")["id"]
    run(env, from_browsergym(f"fill('{name}', 'Ada')"))
    run(env, from_browsergym(f"select_option('{colour}', 'Green')"))
    run(env, from_browsergym(f"click('{button}', modifiers=['Shift'])"))
    assert value(env, helpers, "text") == "Ada" and value(env, helpers, "color") == "g"
    assert helpers.events(env, "click")[-1]["mods"] == ["shift"]
    run(env, from_browsergym("mouse_click(100, 75)\nkeyboard_press('Control+a')\nscroll(0, 200)"))
    assert helpers.js(env, "window.scrollY") == 200
    run(env, from_browsergym("goto('/page2')"))
    obs, *_ = run(env, from_browsergym("go_back()"))
    assert obs["title"] == "Playground"

"""Every canonical action, executed in real Chromium on the playground, has an effect the test observes."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def pg(sbx_runtime):  # noqa: ANN001
    from sandbox.gym_env import SandboxEnv

    env = SandboxEnv("playground", "/", "play", runtime=sbx_runtime, marks=True)
    yield env
    env.close()


@pytest.fixture
def env(pg):  # noqa: ANN001 - a fresh episode (world, context, page) per test
    pg.reset(seed=0)
    return pg


def step(env, action):  # noqa: ANN001
    obs, reward, terminated, truncated, info = env.step(action)
    assert obs["last_action_error"] == "", obs["last_action_error"]
    return obs, info


@pytest.mark.parametrize("modifiers", [[], ["shift"], ["ctrl"], ["alt"], ["shift", "ctrl"]])
def test_left_click_holds_modifiers(env, helpers, modifiers):  # noqa: ANN001
    obs, info = step(env, {"action": "left_click", "x": 100, "y": 75, "modifiers": modifiers})
    clicks = helpers.events(env, "click")
    assert len(clicks) == 1
    assert clicks[0]["mods"] == modifiers and clicks[0]["button"] == 0
    # modifiers are released afterwards
    step(env, {"action": "left_click", "x": 100, "y": 75})
    assert helpers.events(env, "click")[-1]["mods"] == []


def test_other_buttons_and_multi_clicks(env, helpers):  # noqa: ANN001
    step(env, {"action": "right_click", "x": 100, "y": 75})
    assert helpers.events(env, "contextmenu")
    step(env, {"action": "middle_click", "x": 100, "y": 75, "modifiers": ["shift"]})
    assert helpers.events(env, "auxclick")[-1] == {"kind": "auxclick", "button": 1, "mods": ["shift"]}
    step(env, {"action": "double_click", "x": 100, "y": 75})
    assert helpers.events(env, "dblclick")
    step(env, {"action": "triple_click", "x": 100, "y": 75})
    assert helpers.events(env, "click")[-1]["detail"] == 3


def test_mouse_move_down_up_and_cursor(env, helpers):  # noqa: ANN001
    obs, _ = step(env, {"action": "mouse_move", "x": 60, "y": 395})
    assert helpers.js(env, "document.getElementById('hover').textContent") == "Hovered"
    _, info = step(env, {"action": "cursor_position"})
    assert info["cursor"] == (60, 395)
    step(env, {"action": "left_mouse_down", "x": 30, "y": 60})
    step(env, {"action": "left_mouse_up", "x": 40, "y": 70})
    assert helpers.events(env, "mousedown")[-1]["x"] == 30
    assert helpers.events(env, "mouseup")[-1]["x"] == 40
    obs, reward, terminated, truncated, info = env.step({"action": "left_mouse_up"})
    assert "not down" in obs["last_action_error"]


def test_pointer_drag_moves_the_handle(env, helpers):  # noqa: ANN001
    before, _ = step(env, {"action": "screenshot"})
    obs, _ = step(env, {"action": "left_click_drag", "start_x": 50, "start_y": 150, "end_x": 650, "end_y": 550,
                        "path": [{"x": 300, "y": 500}]})
    drop = helpers.events(env, "drop")[-1]
    assert (drop["x"], drop["y"]) == (620, 520)  # grabbed 30 px into the handle
    assert drop["moves"] >= 4  # intermediate moves reached the page
    assert helpers.pixel(obs, 650, 550) == (51, 102, 204)  # the handle (#36c) is drawn where it was dropped
    assert helpers.pixel(before, 650, 550) != (51, 102, 204)


def test_html5_drag_and_drop(env, helpers):  # noqa: ANN001
    step(env, {"action": "left_click_drag", "start_x": 170, "start_y": 150, "end_x": 360, "end_y": 150})
    assert helpers.js(env, "document.getElementById('dnd-target').textContent") == "Dropped card"


def test_scroll_by_wheel(env, helpers):  # noqa: ANN001
    before, _ = step(env, {"action": "screenshot"})
    obs, _ = step(env, {"action": "scroll", "x": 150, "y": 270, "direction": "down", "amount": 3})
    assert helpers.js(env, "document.getElementById('scroller').scrollTop") == 300
    assert not np.array_equal(before["screenshot"][200:350, 20:320], obs["screenshot"][200:350, 20:320])
    step(env, {"action": "scroll", "x": 150, "y": 270, "direction": "right", "amount": 2})
    assert helpers.js(env, "document.getElementById('scroller').scrollLeft") == 200
    step(env, {"action": "scroll", "x": 900, "y": 600, "direction": "down", "amount": 5})
    assert helpers.js(env, "window.scrollY") == 500
    step(env, {"action": "scroll", "direction": "up", "amount": 2})  # at the mouse position
    assert helpers.js(env, "window.scrollY") == 300


def test_typing_unicode_and_key_combos(env, helpers):  # noqa: ANN001
    step(env, {"action": "left_click", "x": 560, "y": 212})
    text = "Zoë — 東京 🚀 «ok»"
    step(env, {"action": "type", "text": text})
    assert helpers.js(env, "document.getElementById('text').value") == text
    step(env, {"action": "key", "key": "ctrl+a"})
    step(env, {"action": "type", "text": "replaced"})
    assert helpers.js(env, "document.getElementById('text').value") == "replaced"
    step(env, {"action": "key", "key": "BackSpace", "repeat": 3})
    assert helpers.js(env, "document.getElementById('text').value") == "repla"
    step(env, {"action": "key", "key": "shift+Home Delete"})
    assert helpers.js(env, "document.getElementById('text').value") == ""
    keys = helpers.js(env, "document.getElementById('keys').textContent")
    assert "ctrl+Control" in keys or "ctrl+a" in keys
    assert "shift+Home" in keys and "Delete" in keys


def test_hold_key_and_wait(env, helpers):  # noqa: ANN001
    step(env, {"action": "hold_key", "key": "shift", "duration": 0.2})
    log = [e for e in helpers.events(env) if e["kind"] in ("keydown", "keyup")]
    assert log[0]["kind"] == "keydown" and log[0]["key"] == "Shift"
    assert log[-1] == {"kind": "keyup", "key": "Shift"}
    obs, info = step(env, {"action": "wait", "duration": 0.05})
    assert info["error"] is None


def test_zoom_returns_the_region_at_full_resolution(env):  # noqa: ANN001
    obs, info = step(env, {"action": "zoom", "x0": 10, "y0": 40, "x1": 330, "y1": 200})
    zoom = info["zoom"]
    assert zoom.shape == (160, 320, 3)
    region = obs["screenshot"][40:200, 10:330].astype(int)
    assert np.abs(zoom.astype(int) - region).mean() < 2.0


def test_goto_back_forward(env):  # noqa: ANN001
    obs, _ = step(env, {"action": "goto", "url": "/page2"})
    assert obs["url"].endswith("/page2") and obs["title"] == "Page two"
    obs, _ = step(env, {"action": "back"})
    assert obs["title"] == "Playground"
    obs, _ = step(env, {"action": "forward"})
    assert obs["title"] == "Page two"
    obs, *_ = env.step({"action": "forward"})
    assert "no next page" in obs["last_action_error"]
    obs, *_ = env.step({"action": "goto", "url": "https://example.com/"})
    assert "only the apps of this sandbox" in obs["last_action_error"]
    assert obs["title"] == "Page two"


def test_link_click_and_form_submit_navigate(env):  # noqa: ANN001
    obs, info = step(env, {"action": "left_click", "x": 250, "y": 398})
    assert obs["title"] == "Page two"
    step(env, {"action": "back"})
    step(env, {"action": "left_click", "x": 470, "y": 392})
    step(env, {"action": "type", "text": "Quarterly plan"})
    obs, info = step(env, {"action": "key", "key": "Return"})
    assert obs["title"] == "Saved" and obs["url"].endswith("/done?title=Quarterly%20plan")


def test_element_actions_by_id(env, helpers):  # noqa: ANN001
    obs, info = step(env, {"action": "screenshot"})
    name = helpers.element(info, "Name", "textbox")
    step(env, {"action": "fill_element", "element_id": name["id"], "text": "Ada Lovelace"})
    assert helpers.js(env, "document.getElementById('text').value") == "Ada Lovelace"
    colour = helpers.element(info, "Colour", "combobox")
    step(env, {"action": "select_option", "element_id": colour["id"], "label": "Blue"})
    assert helpers.js(env, "document.getElementById('color').value") == "b"
    step(env, {"action": "select_option", "element_id": colour["id"], "value": "g"})
    assert helpers.js(env, "document.getElementById('color').value") == "g"
    button = helpers.element(info, "Click me", "button")
    step(env, {"action": "click_element", "element_id": button["id"], "modifiers": ["shift"]})
    assert helpers.events(env, "click")[-1]["mods"] == ["shift"]
    step(env, {"action": "click_element", "element_id": button["id"], "button": "right"})
    assert helpers.events(env, "contextmenu")
    notes = helpers.element(info, "Notes", "textbox")
    step(env, {"action": "focus_element", "element_id": notes["id"]})
    assert helpers.js(env, "document.activeElement.id") == "area"
    agree = helpers.element(info, "I agree", "checkbox")
    step(env, {"action": "click_element", "element_id": agree["id"]})
    assert helpers.js(env, "document.getElementById('agree').checked") is True
    link = helpers.element(info, "Go to page two", "link")
    step(env, {"action": "hover_element", "element_id": link["id"]})
    obs, _ = step(env, {"action": "click_element", "element_id": link["id"]})
    assert obs["title"] == "Page two"
    # ids of the old document are gone: a clear error, and the episode goes on
    obs, *_ = env.step({"action": "click_element", "element_id": button["id"]})
    assert "unknown element id" in obs["last_action_error"]


def test_marks_match_the_page(env):  # noqa: ANN001
    obs, info = step(env, {"action": "screenshot"})
    names = {(e["role"], e["name"]) for e in info["elements"]}
    assert {("button", "Click me"), ("textbox", "Name"), ("combobox", "Colour"), ("link", "Go to page two"),
            ("button", "Save"), ("checkbox", "I agree")} <= names
    click_me = next(e for e in info["elements"] if e["name"] == "Click me")
    assert click_me["bbox"] == [20, 50, 160, 50]


def test_answer_and_infeasible_end_the_episode(env):  # noqa: ANN001
    obs, reward, terminated, truncated, info = env.step({"action": "answer", "text": "42"})
    assert terminated and not truncated and reward == 0.0 and info["answer"] == "42"
    obs, reward, terminated, truncated, info = env.step({"action": "left_click", "x": 1, "y": 1})
    assert terminated and "episode is over" in obs["last_action_error"]
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step({"action": "report_infeasible", "reason": "no such record"})
    assert terminated and info["infeasible_reason"] == "no such record"

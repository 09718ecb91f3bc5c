"""Bad input gives a clear error (``last_action_error`` or a validation error) and the episode goes on;
requests to any other host are blocked and reported."""

from __future__ import annotations

import json

import pytest

from sandbox.actions import ActionError, from_anthropic, from_openai

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def pg(sbx_runtime):  # noqa: ANN001
    from sandbox.gym_env import SandboxEnv

    env = SandboxEnv("playground", "/", "play", runtime=sbx_runtime)
    env.reset(seed=0)
    yield env
    env.close()


def still_works(env, helpers) -> None:  # noqa: ANN001
    before = len(helpers.events(env, "click"))
    obs, *_ = env.step({"action": "left_click", "x": 100, "y": 75})
    assert obs["last_action_error"] == ""
    assert len(helpers.events(env, "click")) == before + 1


@pytest.mark.parametrize(
    ("action", "message"),
    [
        ({"action": "teleport", "x": 1}, "unknown action 'teleport'"),
        ({"action": "left_clik", "x": 1, "y": 2}, "Did you mean 'left_click'"),
        ('{"action": "left_click", "x": 10', "not valid JSON"),
        ("zzz", "not valid JSON"),
        ({"x": 3}, "missing field 'action'"),
        ({"action": "left_click", "x": 1500, "y": 300}, "outside the screen (1280x800 pixels)"),
        ({"action": "left_click", "x": 100, "y": 800}, "outside the screen"),
        ({"action": "left_click_drag", "start_x": 10, "start_y": 10, "end_x": 2000, "end_y": 10}, "outside the screen"),
        ({"action": "left_click", "x": -5, "y": 3}, "x: input should be greater than or equal to 0"),
        ({"action": "key", "key": ""}, "the key is empty"),
        ({"action": "key", "key": "ctrl+"}, "empty key name"),
        ({"action": "key", "key": "Retrun"}, "unknown key 'Retrun'"),
        ({"action": "type", "text": ""}, "invalid type action"),
        ({"action": "click_element", "element_id": "e999"}, "unknown element id 'e999'"),
        ({"action": "goto", "url": "http://evil.example/"}, "only the apps of this sandbox"),
        ({"action": "goto", "url": "javascript:alert(1)"}, "not allowed"),
        ({"action": "scroll", "x": 10, "y": 10, "direction": "sideways", "amount": 1}, "direction"),
        ({"action": "zoom", "x0": 100, "y0": 100, "x1": 50, "y1": 200}, "is empty"),
    ],
)
def test_bad_action_gives_clear_error_and_episode_goes_on(pg, helpers, action, message):  # noqa: ANN001
    obs, reward, terminated, truncated, info = pg.step(action)
    assert message in obs["last_action_error"], obs["last_action_error"]
    assert info["error"] == obs["last_action_error"]
    assert not terminated and reward == 0.0
    assert obs["screenshot"].shape == (800, 1280, 3)
    still_works(pg, helpers)


@pytest.mark.parametrize(
    "payload",
    [
        {"action": "left_click", "coordinate": [10]},
        {"action": "scroll", "coordinate": [10, 10], "scroll_direction": "down"},
        {"action": "key"},
        {"action": "fly"},
    ],
)
def test_malformed_anthropic_payload_is_rejected_before_the_step(pg, helpers, payload):  # noqa: ANN001
    with pytest.raises(ActionError) as err:
        from_anthropic(payload)
    assert str(err.value)
    still_works(pg, helpers)


@pytest.mark.parametrize(
    "payload",
    [
        {"type": "computer_call", "action": {"type": "click", "x": 5}},
        {"type": "computer_call", "actions": []},
        {"type": "computer_call", "action": {"type": "keypress", "keys": []}},
        {"type": "drag", "path": [{"x": 1, "y": 1}]},
    ],
)
def test_malformed_openai_payload_is_rejected_before_the_step(pg, helpers, payload):  # noqa: ANN001
    with pytest.raises(ActionError):
        from_openai(payload)
    still_works(pg, helpers)


def test_requests_to_other_hosts_are_blocked_and_reported(pg, helpers):  # noqa: ANN001
    obs, reward, terminated, truncated, info = pg.step({"action": "goto", "url": "/external"})
    assert obs["last_action_error"] == ""
    blocked = {b["url"] for b in info["blocked_requests"]}
    port = pg.core.runtime.host.port
    assert {"http://example.com/pixel.png", f"http://localhost:{port + 1}/x.png"} <= blocked
    # the fetch may fail after the load event: settled anyway, it shows up in this step or the next
    status = helpers.js(pg, "document.getElementById('status').textContent")
    if status == "pending":
        obs, reward, terminated, truncated, info2 = pg.step({"action": "wait", "duration": 0.2})
        blocked |= {b["url"] for b in info2["blocked_requests"]}
        status = helpers.js(pg, "document.getElementById('status').textContent")
    assert status == "blocked"
    assert "https://evil.example/collect?x=1" in blocked
    # a top-level navigation elsewhere never leaves the sandbox either
    obs, *_ = pg.step({"action": "goto", "url": f"http://127.0.0.1:{port}/healthz"})
    assert "only the apps of this sandbox" in obs["last_action_error"]
    pg.step({"action": "goto", "url": "/"})
    still_works(pg, helpers)


def test_step_info_is_json_friendly(pg):  # noqa: ANN001
    obs, reward, terminated, truncated, info = pg.step({"action": "left_click", "x": 100, "y": 75})
    assert set(info) >= {"step", "action", "url", "error", "blocked_requests", "changes"}
    json.dumps({k: v for k, v in info.items() if k != "changes"})
    assert info["changes"].is_empty

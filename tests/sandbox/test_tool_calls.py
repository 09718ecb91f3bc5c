"""Tool calls inside episodes: allowed where the task says, refused with a clear error where it does
not (and the API stays out of the address bar of GUI-only tasks); a click and a tool call change the
same world, and the same verifier grades both."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser
TASK = "crm.opportunity-close-won"


@pytest.fixture(scope="module")
def spec(sbx_runtime):  # noqa: ANN001, ANN201
    from tasks.registry import TaskRegistry

    return TaskRegistry(store=sbx_runtime.store).get(TASK, 0)


def test_a_gui_task_refuses_tool_calls_and_api_pages(make_env, spec) -> None:  # noqa: ANN001
    gui = spec.replace(interfaces=("gui",))
    env = make_env(spec=gui, tools=True)
    obs, info = env.reset(seed=0)
    assert obs["tool_result"] == ""
    opp = spec.params["opp"]
    obs, reward, *_, info = env.step({"action": "tool_call", "name": "crm_update_opportunity", "arguments": {"record_id": opp["id"], "stage": "Closed Won"}})
    assert "tool calls are not available" in obs["last_action_error"] and "tool_result" not in info
    obs, *_ = env.step({"action": "goto", "url": f"http://crm.localhost/api/opportunities/{opp['id']}"})
    shown = env.run(env.core.page.inner_text("body"))
    assert "its API cannot be opened in the browser" in shown and opp["name"] not in shown
    # The app's own pages still call its API (type-ahead lookups) without trouble.
    status = env.run(env.core.page.evaluate("async () => (await fetch('/api/lookup/accounts?q=a')).status"))
    assert status == 200
    assert env.core.episode.changes_since_start().is_empty


def test_clicks_and_tool_calls_work_on_one_world_and_grade_alike(make_env, spec) -> None:  # noqa: ANN001
    both = spec
    assert both.interfaces == ("gui", "tools")  # the shipped task allows both
    env = make_env(spec=both, tools=True)
    obs, info = env.reset(seed=0)
    opp = spec.params["opp"]
    obs, _, _, _, info = env.step({"action": "tool_call", "name": "crm_get_opportunity", "arguments": {"record_id": opp["id"]}})
    assert obs["last_action_error"] == "" and f'"name": "{opp["name"]}"' in obs["tool_result"].replace('":"', '": "')
    assert info["tool_result"]["ok"] and info["tool_result"]["data"]["id"] == opp["id"]
    obs, *_ = env.step({"action": "tool_call", "name": "crm_update_opportunity", "arguments": {"record_id": opp["id"], "stage": "Closed"}})
    assert "tool_call crm_update_opportunity" in obs["last_action_error"] and "stage" in obs["last_action_error"]
    obs, *_ = env.step({"action": "tool_call", "name": "crm_update_opportunity", "arguments": {"record_id": opp["id"], "stage": "Closed Won"}})
    assert obs["last_action_error"] == ""
    obs, *_ = env.step({"action": "goto", "url": f"/opportunities/{opp['id']}"})  # the screens show the tool's change
    text = env.run(env.core.page.inner_text("body"))
    assert "Closed Won" in text
    obs, reward, terminated, _, info = env.step({"action": "answer", "text": "done"})
    assert terminated and info["verdict"].passed and reward == 1.0
    calls = [s for s in env.core.episode.trajectory if s["action"] and s["action"]["action"] == "tool_call"]
    assert len(calls) == 3 and calls[1]["tool_result"]["ok"] is False


def test_a_tools_only_task_refuses_screen_actions(make_env, spec) -> None:  # noqa: ANN001
    env = make_env(spec=spec.replace(interfaces=("tools",)))
    env.reset(seed=0)
    obs, *_ = env.step({"action": "left_click", "x": 10, "y": 10})
    assert "worked through the apps' tools" in obs["last_action_error"]
    obs, *_ = env.step({"action": "tool_call", "name": "crm_list_opportunity", "arguments": {"limit": 1}})
    assert obs["last_action_error"] == ""

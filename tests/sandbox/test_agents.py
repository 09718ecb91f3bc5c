"""Agents: loading by name or module:Class, the random baseline, and the Anthropic and OpenAI
computer-use agents against a local fake API server (real-shaped replies) driving the real env."""

from __future__ import annotations

import base64
import io
from typing import Any

import pytest
from PIL import Image

from sandbox.agents import AgentLoadError, NoopAgent, RandomAgent, TaskBrief, load_agent, parse_options
from sandbox.run import BackgroundRuntime, RunConfig
from sandbox.trajectory import load_episode

from .conftest import ModelAPIStandIn

# One test worker runs the whole module, so its module-scoped runs (or runtime) are made once.
pytestmark = pytest.mark.xdist_group("agents-runs")

TASK = "crm.opportunity-update-amount"


def png(size=(320, 200)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (250, 250, 250)).save(buf, format="PNG")
    return buf.getvalue()


class Mine:
    """A user agent with options, loaded as module:Class."""

    def __init__(self, speed: int = 1) -> None:
        self.speed = speed

    def act(self, observation):  # noqa: ANN001, ANN201
        return {"action": "wait", "duration": 0.1 * self.speed}


def test_load_agents_by_name_and_module_path():
    assert isinstance(load_agent("noop"), NoopAgent)
    agent = load_agent("random", {"seed": 3})
    assert isinstance(agent, RandomAgent) and agent.seed == 3
    mine = load_agent(f"{__name__}:Mine", parse_options(["speed=2"]))
    assert mine.speed == 2 and mine.name == "Mine"
    assert parse_options(["model=claude-x", "keep_images=2", "flag=true"]) == {"model": "claude-x", "keep_images": 2, "flag": True}
    with pytest.raises(AgentLoadError, match="unknown agent 'nope'"):
        load_agent("nope")
    with pytest.raises(AgentLoadError, match="cannot import"):
        load_agent("no_such_module_x:Agent")
    with pytest.raises(AgentLoadError, match="has no 'Missing'"):
        load_agent(f"{__name__}:Missing")
    with pytest.raises(AgentLoadError, match="does not take these options"):
        load_agent("noop", {"bogus": 1})
    with pytest.raises(AgentLoadError, match="key=value"):
        parse_options(["novalue"])


def test_api_agents_need_a_key(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValueError, match="ANTHROPIC_API_KEY"):
        load_agent("anthropic")
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        load_agent("openai")


def test_random_agent_is_seeded_and_stays_on_screen():
    obs = {"screenshot": png((320, 200)), "url": "http://x/"}

    def actions(seed: int, task: str) -> list[dict]:
        agent = RandomAgent(seed=seed)
        agent.reset(TaskBrief(task=task, seed=0, instruction=""))
        return [agent.act(obs).to_dict() for _ in range(40)]

    a = actions(1, "t")
    assert a == actions(1, "t") and a != actions(2, "t") and a != actions(1, "u")
    for act in a:
        if "x" in act:
            assert 0 <= act["x"] < 320 and 0 <= act["y"] < 200
    assert {x["action"] for x in a} >= {"left_click", "type", "key"}


# -- a fake model API: scripted real-shaped replies, recorded requests ------------------------------
class FakeAPI:
    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = list(replies)

        def answer(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
            reply = self.replies.pop(0) if self.replies else {"type": "error", "error": {"type": "overloaded_error", "message": "no more"}}
            return (529 if reply.get("type") == "error" else 200), reply, {}

        self._api = ModelAPIStandIn(answer)
        self.requests, self.url = self._api.requests, self._api.url

    def close(self) -> None:
        self._api.close()


def anthropic_message(content: list[dict[str, Any]], stop: str = "tool_use") -> dict[str, Any]:
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
        "content": content, "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": 1520, "output_tokens": 87, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
    }  # fmt: skip


def openai_response(rid: str, output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": rid, "object": "response", "created_at": 1741476542, "status": "completed", "error": None,
        "incomplete_details": None, "model": "computer-use-preview-2025-03-11", "output": output,
        "parallel_tool_calls": True, "previous_response_id": None, "reasoning": {"effort": "medium", "summary": "concise"},
        "truncation": "auto", "usage": {"input_tokens": 1800, "output_tokens": 60, "total_tokens": 1860},
    }  # fmt: skip


@pytest.fixture(scope="module")
def env(store):  # noqa: ANN001 - one Chromium and app host for the module's runs
    from tasks.registry import TaskRegistry

    with BackgroundRuntime(store=store) as bg:
        bg.source = TaskRegistry(store=store)
        yield bg


def run_one(env, agent: str, tmp_path, **options) -> Any:  # noqa: ANN001
    config = RunConfig(agent=agent, agent_options=options, tasks=[TASK], seeds="0", workers=1, out=tmp_path / agent, max_steps=6)
    return env.run(config, source=env.source)


def test_anthropic_agent_plays_tool_calls_and_answers(env, tmp_path, monkeypatch):
    api = FakeAPI([
        anthropic_message([
            {"type": "text", "text": "I'll open the opportunities tab."},
            {"type": "tool_use", "id": "toolu_01A", "name": "computer", "input": {"action": "left_click", "coordinate": [300, 200]}},
            {"type": "tool_use", "id": "toolu_01B", "name": "computer", "input": {"action": "key", "text": "Escape"}},
        ]),
        anthropic_message([{"type": "tool_use", "id": "toolu_01C", "name": "computer", "input": {"action": "scroll", "coordinate": [640, 400], "scroll_direction": "down", "scroll_amount": 3}}]),
        anthropic_message([{"type": "tool_use", "id": "toolu_01D", "name": "answer", "input": {"text": "Done."}}]),
    ])  # fmt: skip
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    try:
        result = run_one(env, "anthropic", tmp_path, base_url=api.url, model="claude-sonnet-4-5")
    finally:
        api.close()
    assert len(api.requests) == 3
    first = api.requests[0]
    assert first["path"] == "/v1/messages"
    assert first["headers"]["x-api-key"] == "sk-ant-test" and first["headers"]["anthropic-beta"] == "computer-use-2025-01-24"
    tools = {t["name"]: t for t in first["body"]["tools"]}
    assert tools["computer"]["type"] == "computer_20250124" and tools["computer"]["display_width_px"] == 1280
    assert first["body"]["messages"][0]["content"][1]["type"] == "image"
    # The results of both tool calls of the first turn come back together, the screenshot with the last.
    results = api.requests[1]["body"]["messages"][-1]["content"]
    assert [r["tool_use_id"] for r in results] == ["toolu_01A", "toolu_01B"]
    image = results[1]["content"][-1]
    assert image["type"] == "image" and base64.b64decode(image["source"]["data"])[:4] == b"\x89PNG"

    line = result.results[0]
    assert line["steps"] == 4 and line["end_reason"] == "answer" and not line["passed"]
    ep = load_episode(result.out / "episodes" / line["id"])
    steps = ep.steps
    assert steps[0].action == {"tool": "computer", "input": {"action": "left_click", "coordinate": [300, 200]}}
    assert steps[0].parsed == {"action": "left_click", "x": 300, "y": 200} and steps[0].thought == "I'll open the opportunities tab."
    assert steps[2].parsed == {"action": "scroll", "x": 640, "y": 400, "direction": "down", "amount": 3}
    assert ep.record.answer == "Done." and ep.record.agent.model == "claude-sonnet-4-5"


def test_openai_agent_plays_computer_calls_and_answers(env, tmp_path, monkeypatch):
    api = FakeAPI([
        openai_response("resp_1", [
            {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Clicking the list."}]},
            {"type": "computer_call", "id": "cu_1", "call_id": "call_1", "action": {"type": "click", "button": "left", "x": 300, "y": 200},
             "pending_safety_checks": [], "status": "completed"},
        ]),
        openai_response("resp_2", [
            {"type": "computer_call", "id": "cu_2", "call_id": "call_2", "actions": [{"type": "keypress", "keys": ["ESC"]}, {"type": "scroll", "x": 640, "y": 400, "scroll_x": 0, "scroll_y": 300}],
             "pending_safety_checks": [{"id": "cu_sc_1", "code": "malicious_instructions", "message": "check"}], "status": "completed"},
        ]),
        openai_response("resp_3", [
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "The amount is updated.", "annotations": []}]},
        ]),
    ])  # fmt: skip
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    try:
        result = run_one(env, "openai", tmp_path, base_url=api.url)
    finally:
        api.close()
    assert [r["path"] for r in api.requests] == ["/responses"] * 3
    first = api.requests[0]
    assert first["headers"]["authorization"] == "Bearer sk-test"
    computer = first["body"]["tools"][0]
    assert computer == {"type": "computer_use_preview", "display_width": 1280, "display_height": 800, "environment": "browser"}
    second = api.requests[1]["body"]
    assert second["previous_response_id"] == "resp_1"
    out = second["input"][0]
    assert out["type"] == "computer_call_output" and out["call_id"] == "call_1" and out["output"]["image_url"].startswith("data:image/png;base64,")
    third = api.requests[2]["body"]["input"][0]
    assert third["call_id"] == "call_2" and third["acknowledged_safety_checks"][0]["id"] == "cu_sc_1"

    line = result.results[0]
    assert line["steps"] == 4 and line["end_reason"] == "answer"
    ep = load_episode(result.out / "episodes" / line["id"])
    assert [s.parsed["action"] for s in ep.steps] == ["left_click", "key", "scroll", "answer"]
    assert ep.steps[0].thought == "Clicking the list." and ep.steps[0].action["action"]["type"] == "click"
    assert ep.record.answer == "The amount is updated."


def test_api_errors_end_the_episode_as_an_error(env, tmp_path, monkeypatch):
    api = FakeAPI([])  # every request gets an overloaded error
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    try:
        result = run_one(env, "anthropic", tmp_path, base_url=api.url)
    finally:
        api.close()
    line = result.results[0]
    assert line["outcome"] == "error" and "overloaded_error" in line["error"] and not line["passed"]


def test_model_agents_offer_the_apps_tools_where_the_task_allows_them(env, tmp_path, monkeypatch):
    spec = env.source.get(TASK, 0)
    assert spec.allows_tools
    opp, amount = spec.params["opp"], spec.params["new_amount"]
    api = FakeAPI([
        anthropic_message([{"type": "tool_use", "id": "toolu_1", "name": "crm_get_opportunity", "input": {"record_id": opp["id"]}}]),
        anthropic_message([{"type": "tool_use", "id": "toolu_2", "name": "crm_update_opportunity", "input": {"record_id": opp["id"], "amount": "lots"}}]),
        anthropic_message([{"type": "tool_use", "id": "toolu_3", "name": "crm_update_opportunity", "input": {"record_id": opp["id"], "amount": amount}}]),
        anthropic_message([{"type": "tool_use", "id": "toolu_4", "name": "answer", "input": {"text": "Updated."}}]),
    ])  # fmt: skip
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    try:
        result = run_one(env, "anthropic", tmp_path, base_url=api.url)
    finally:
        api.close()
    tools = {t["name"]: t for t in api.requests[0]["body"]["tools"]}
    assert "computer" in tools and tools["crm_update_opportunity"]["input_schema"]["properties"]["amount"]
    got = api.requests[1]["body"]["messages"][-1]["content"][0]
    assert got["tool_use_id"] == "toolu_1" and opp["name"] in got["content"][0]["text"] and not got.get("is_error")
    refused = api.requests[2]["body"]["messages"][-1]["content"][0]
    assert refused["is_error"] and "amount" in refused["content"][0]["text"]
    line = result.results[0]
    assert line["passed"] and line["end_reason"] == "answer", line
    ep = load_episode(result.out / "episodes" / line["id"])
    assert [s.parsed["action"] for s in ep.steps] == ["tool_call", "tool_call", "tool_call", "answer"]
    assert ep.steps[0].tool_result["ok"] and ep.steps[1].tool_result["status"] == 422
    # The viewer shows each call's result beside the step.
    from fastapi.testclient import TestClient

    from sandbox.viewer.app import create_app

    with TestClient(create_app(result.out)) as client:
        page = client.get(f"/episodes/{line['id']}")
    assert page.status_code == 200 and page.text.count('data-testid="tool-result"') == 3 and opp["name"] in page.text

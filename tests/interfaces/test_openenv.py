"""The OpenEnv server (`sandbox env-server`), driven by OpenEnv's own client package: a CRM task worked
by clicks and tool calls to a graded verdict (the docs' example), typed observations and clear errors
that never end a session, and eight concurrent sessions each in its own world."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import threading
import time
from pathlib import Path

import httpx
import pytest
import uvicorn
from openenv.core import GenericEnvClient

from sandbox.env_server.app import create_app
from sandbox.env_server.client import SandboxEnvClient
from sandbox.env_server.environment import NO_EPISODE
from sandbox.env_server.models import SandboxAction
from sandbox.loop import background_loop

pytestmark = pytest.mark.browser
TASK = "crm.opportunity-close-won"
ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 180  # seconds a message may take on a loaded machine


@pytest.fixture(scope="module")
def server(store, registry):  # noqa: ANN001, ANN201 - one server (one Chromium, one app host) for the module
    from tests.conftest import free_port

    app = create_app(store=store, source=registry, max_sessions=8)
    port = free_port()
    web = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=web.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 180
    while not web.started:  # started once the runtime is up (the app's startup)
        assert time.monotonic() < deadline and thread.is_alive(), "the OpenEnv server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    web.should_exit = True
    thread.join(60)


def _example():  # noqa: ANN202
    path = ROOT / "docs" / "examples" / "openenv_trainer.py"
    spec = importlib.util.spec_from_file_location("openenv_trainer_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return path, module


def test_the_docs_example_works_a_task_by_clicks_and_tool_calls_to_a_verdict(server) -> None:  # noqa: ANN001
    path, example = _example()
    reward, verdict = example.rollout(server, seed=0)
    assert reward == 1.0 and verdict["passed"] and verdict["score"] == 1.0, verdict["reason"]
    # The docs show this very code.
    section = (ROOT / "docs" / "interfaces.md").read_text()
    body = path.read_text().split("def rollout", 1)[1].split('if __name__', 1)[0].rstrip()
    assert "def rollout" + body in section, "docs/interfaces.md no longer shows docs/examples/openenv_trainer.py"


def test_typed_observations_clear_errors_and_sessions_that_go_on(server, registry) -> None:  # noqa: ANN001
    opp = registry.get(TASK, 0).params["opp"]

    async def go():  # noqa: ANN202
        async with SandboxEnvClient(base_url=server, message_timeout_s=TIMEOUT) as env:
            first = await env.reset(task_id=TASK, seed=0, axtree=True, marks=True, episode_id="run-1")
            obs = first.observation
            assert not first.done and first.reward is None and obs.interfaces == ["gui", "tools"]
            assert opp["name"] in obs.instruction and obs.url == "http://crm.localhost/opportunities"
            assert obs.screenshot_format == "png" and obs.image().size == (1280, 800)
            assert "Opportunities" in obs.axtree and obs.tool_result is None and obs.verdict is None
            def center(elements: list[dict], role: str, name: str) -> dict:
                x, y, w, h = next(e for e in elements if e["role"] == role and e["name"] == name)["bbox"]
                return {"x": x + w // 2, "y": y + h // 2}

            # GUI actions, as the task's oracle works it: search the list, open the record.
            await env.step(SandboxAction(action="left_click", **center(obs.elements, "searchbox", "Search this list...")))
            await env.step(SandboxAction(action="type", text=opp["name"]))
            searched = await env.step({"action": "key", "key": "Return"})
            clicked = await env.step(SandboxAction(action="left_click", **center(searched.observation.elements, "link", opp["name"])))
            assert clicked.observation.url == f"http://crm.localhost/opportunities/{opp['id']}"
            assert clicked.observation.last_action_error == "" and clicked.observation.step == 4
            # Bad actions: the error is in the observation, the episode goes on.
            unknown = await env.step({"action": "fly", "x": 1})
            assert unknown.observation.last_action_error.startswith("unknown action 'fly'") and not unknown.done
            missing = await env.step({"x": 1, "y": 2})
            assert "missing field 'action'" in missing.observation.last_action_error
            typed = await env.step(SandboxAction(action="left_click", x=-3, y=5))
            assert "x: input should be greater than or equal to 0" in typed.observation.last_action_error
            state = await env.state()
            assert (state.episode_id, state.step_count, state.task_id, state.done) == ("run-1", 7, TASK, False)
            # Reset errors say what was wrong; the session stays usable.
            with pytest.raises(RuntimeError, match="unknown task 'crm.no-such-task'"):
                await env.reset(task_id="crm.no-such-task", seed=0)
            with pytest.raises(RuntimeError, match="unknown option 'taskid'"):
                await env.reset(taskid=TASK)
            with pytest.raises(RuntimeError, match="give task_id .* or app"):
                await env.reset(seed=0)
            free = await env.reset(app="crm", start_url="/accounts", instruction="Look around.", screenshot="jpeg", tools=True)
            assert free.observation.url == "http://crm.localhost/accounts" and free.observation.task_id == "crm.free"
            assert free.observation.screenshot_bytes()[:3] == b"\xff\xd8\xff"  # JPEG
            listed = await env.step({"action": "tool_call", "name": "crm_list_account", "arguments": {"limit": 2}})
            assert len(json.loads(listed.observation.tool_result)["items"]) == 2
            end = await env.step({"action": "answer", "text": "Looked."})
            assert end.done and end.reward == 0.0 and end.observation.verdict is None  # free-form: no verifier

    background_loop().run(go())
    # OpenEnv's plain HTTP routes: health, schema, metadata, and a stateless step that says what to do.
    with httpx.Client(base_url=server, timeout=TIMEOUT) as http:
        assert http.get("/health").json()["status"] == "healthy"
        schema = http.get("/schema").json()
        actions = {v["properties"]["action"]["const"] for v in schema["action"]["$defs"].values() if "action" in v.get("properties", {})}
        assert {"left_click", "type", "goto", "tool_call", "answer"} <= actions
        assert {"screenshot", "url", "last_action_error", "verdict", "reward", "done"} <= set(schema["observation"]["properties"])
        assert http.get("/metadata").json()["name"] == "cua-sandbox"
        step = http.post("/step", json={"action": {"action": "screenshot"}}).json()
        assert step["observation"]["last_action_error"] == NO_EPISODE and step["done"] is False


def test_eight_concurrent_sessions_each_work_in_their_own_world(server, registry) -> None:  # noqa: ANN001
    opp = registry.get(TASK, 0).params["opp"]
    get = {"action": "tool_call", "name": "crm_get_opportunity", "arguments": {"record_id": opp["id"]}}

    async def session(i: int, all_changed: asyncio.Barrier) -> tuple[dict, dict, float]:
        async with GenericEnvClient(base_url=server, message_timeout_s=TIMEOUT) as env:
            await env.reset(task_id=TASK, seed=0, tools=True, screenshot="none")
            change = {"stage": "Closed Won"} if i % 2 == 0 else {"next_step": f"Call back (session {i})"}
            done = await env.step({"action": "tool_call", "name": "crm_update_opportunity", "arguments": {"record_id": opp["id"], **change}})
            assert done.observation["last_action_error"] == ""
            await all_changed.wait()  # every session has made its change before any reads back
            seen = json.loads((await env.step(get)).observation["tool_result"])
            end = await env.step({"action": "answer", "text": "Done."})
            return seen, end.observation["verdict"], end.reward

    async def go():  # noqa: ANN202
        barrier = asyncio.Barrier(8)
        return await asyncio.gather(*(session(i, barrier) for i in range(8)))

    results = background_loop().run(go())
    for i, (seen, verdict, reward) in enumerate(results):
        if i % 2 == 0:  # closed its own deal, and sees no other session's next step
            assert seen["stage"] == "Closed Won" and "session" not in (seen["next_step"] or ""), (i, seen)
            assert verdict["passed"] and reward == 1.0, (i, verdict["reason"])
        else:  # sees only its own next step, and the deal still open
            assert seen["next_step"] == f"Call back (session {i})" and seen["stage"] != "Closed Won", (i, seen)
            assert not verdict["passed"] and verdict["score"] == 0 and reward == 0.0, (i, verdict["reason"])

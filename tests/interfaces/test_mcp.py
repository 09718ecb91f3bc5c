"""The MCP server, driven by the official SDK's client: over streamable HTTP (two clients, two
isolated episodes, a task solved and graded) and over stdio (as Claude Desktop starts it)."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import httpx2
import pytest
import uvicorn
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from sandbox.mcp_serve import make_server
from sandbox.loop import background_loop

TASK = "crm.opportunity-close-won"
ROOT = Path(__file__).resolve().parents[2]


def _client(url: str, episode: str) -> Client:
    http = httpx2.AsyncClient(headers={"X-Sandbox-Episode": episode}, timeout=60)
    return Client(streamable_http_client(url, http_client=http))


@pytest.fixture(scope="module")
def mcp_url(store):  # noqa: ANN001, ANN201
    from tests.conftest import free_port

    server, episodes = make_server(store=store, task=TASK, seed=0, grade=True)
    port = free_port()
    web = uvicorn.Server(uvicorn.Config(server.streamable_http_app(host="127.0.0.1"), host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=web.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not web.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the MCP server did not start"
        time.sleep(0.01)
    yield f"http://127.0.0.1:{port}/mcp"
    web.should_exit = True
    thread.join(10)
    background_loop().run(episodes.close())


def test_two_clients_work_in_their_own_worlds_and_the_verifier_grades_tool_work(mcp_url, registry) -> None:  # noqa: ANN001
    spec = registry.get(TASK, 0)
    opp_id, name = spec.params["opp"]["id"], spec.params["opp"]["name"]

    async def go():  # noqa: ANN202
        async with _client(mcp_url, "a") as a, _client(mcp_url, "b") as b:
            listed = await a.list_tools()
            names = {t.name for t in listed.tools}
            assert {"crm_update_opportunity", "desk_update_incident", "mail_send_message", "submit_answer", "task_verdict"} <= names
            update = next(t for t in listed.tools if t.name == "crm_update_opportunity")
            assert "Closed Won" in update.input_schema["properties"]["stage"]["enum"]
            found = await a.call_tool("crm_list_opportunity", {"q": name})
            assert not found.is_error and any(o["id"] == opp_id for o in found.structured_content["items"])
            bad = await a.call_tool("crm_update_opportunity", {"record_id": opp_id, "stage": "Won"})
            assert bad.is_error and "stage" in bad.content[0].text
            with pytest.raises(MCPError, match="No tool named 'crm_close_deal'"):
                await a.call_tool("crm_close_deal", {})
            done = await a.call_tool("crm_update_opportunity", {"record_id": opp_id, "stage": "Closed Won"})
            assert not done.is_error and done.structured_content["stage"] == "Closed Won"
            seen_by_b = await b.call_tool("crm_get_opportunity", {"record_id": opp_id})
            verdict_a = (await a.call_tool("task_verdict", {})).structured_content
            verdict_b = (await b.call_tool("task_verdict", {})).structured_content
            return seen_by_b.structured_content, verdict_a, verdict_b

    seen_by_b, verdict_a, verdict_b = background_loop().run(go())
    assert seen_by_b["stage"] != "Closed Won"  # b's world never saw a's change
    assert verdict_a["passed"] and verdict_a["score"] == 1, verdict_a["reason"]
    assert not verdict_b["passed"] and verdict_b["score"] == 0


def test_stdio_server_as_a_desktop_client_starts_it(tmp_path, store) -> None:  # noqa: ANN001 - store: the templates folder exists
    from tests.conftest import TEMPLATES

    home = tmp_path / "home"
    home.mkdir()
    (home / "templates").symlink_to(TEMPLATES, target_is_directory=True)  # the test run's world templates
    params = StdioServerParameters(command=sys.executable, args=["-m", "sandbox.cli", "mcp", "--task", TASK, "--apps", "crm"],
                                   env={**os.environ, "SANDBOX_HOME": str(home), "PYTHONPATH": str(ROOT)}, cwd=str(ROOT))

    async def go():  # noqa: ANN202
        async with Client(params, read_timeout_seconds=60) as client:
            tools = await client.list_tools()
            listed = await client.call_tool("crm_list_account", {"limit": 3, "order": "name"})
            answered = await client.call_tool("submit_answer", {"text": ""})
            return tools.tools, listed, answered

    tools, listed, answered = background_loop().run(go())
    assert tools and all(t.name.startswith("crm_") or t.name in ("submit_answer", "report_infeasible") for t in tools)
    assert not listed.is_error and len(listed.structured_content["items"]) == 3
    assert answered.is_error and "non-empty text" in answered.content[0].text
    assert not list((home / "worlds").glob("*.sqlite")), "the episode's world outlived the server"

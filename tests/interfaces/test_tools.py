"""Tools derived from the apps' APIs: named per object, typed, acting as the persona in one world,
with the apps' own validation; and a task solved by tool calls alone passes its verifier."""

from __future__ import annotations

from contextlib import closing

import pytest

from apps_web.tools import host_tools
from sandbox.tool_episode import ToolEpisode
from sandbox.loop import background_loop


def run(coro):  # noqa: ANN001, ANN201
    return background_loop().run(coro)  # the sandbox's loop: pytest-asyncio's may be running in this thread


def test_every_app_gets_named_typed_tools(host) -> None:  # noqa: ANN001
    tools = {t.name: t for t in host_tools(host)}
    for app in {s.name for s in host.state.specs}:
        assert any(n.startswith(f"{app}_") for n in tools), f"no tools for {app}"
    update = tools["crm_update_opportunity"]
    props = update.input_schema["properties"]
    assert update.input_schema["required"] == ["record_id"]
    assert "Closed Won" in props["stage"]["enum"] and props["close_date"]["format"] == "date"
    assert props["amount"]["anyOf"][0] == {"type": "number", "minimum": 0}  # optional fields may be cleared
    create = tools["crm_create_opportunity"].input_schema
    assert set(create["required"]) == {"name", "close_date"}  # stage has a default
    assert "amount__gte" in tools["crm_list_opportunity"].input_schema["properties"]
    # One route serving several tables gives one tool per table, each with its own body.
    assert "desk_create_incident" in tools and "desk_create_sc_request" not in tools
    assert set(tools["desk_update_sysapproval_approver"].input_schema["properties"]) == {"sys_id", "state", "comments"}
    assert "short_description" in tools["desk_update_incident"].input_schema["properties"]
    assert tools["mail_send_message"].body_fields[:3] == ("to", "cc", "bcc")
    assert all(t.read_only == (t.method == "GET") for t in tools.values())


def test_a_task_solved_by_tool_calls_passes_and_doing_nothing_fails(host, registry) -> None:  # noqa: ANN001
    spec = registry.get("crm.opportunity-close-won", 0)
    name = spec.params["opp"]["name"]

    async def solve(act: bool):  # noqa: ANN202
        ep = await ToolEpisode.open(host, spec)
        try:
            if act:
                found = await ep.call("crm_list_opportunity", {"q": name})
                assert found.ok and found.data["total"] >= 1, found.text()
                opp = next(o for o in found.data["items"] if o["name"] == name)
                done = await ep.call("crm_update_opportunity", {"record_id": opp["id"], "stage": "Closed Won"})
                assert done.ok and done.data["stage"] == "Closed Won", done.text()
                # The server set what the form would (probability and forecast follow the stage).
                assert done.data["probability"] == 100
            verdict = await ep.verify()
            return verdict, list(ep.steps)
        finally:
            await ep.close()

    verdict, steps = run(solve(True))
    assert verdict.passed and verdict.score == 1, verdict.reason
    assert [(s["action"]["action"], s["action"]["name"]) for s in steps] == [("tool_call", "crm_list_opportunity"), ("tool_call", "crm_update_opportunity")]
    assert steps[1]["tool_result"]["ok"] is True
    idle, _ = run(solve(False))
    assert not idle.passed and idle.score == 0


def test_bad_calls_get_clear_errors_and_change_nothing(host, registry) -> None:  # noqa: ANN001
    spec = registry.get("crm.opportunity-close-won", 0)

    async def go():  # noqa: ANN202
        ep = await ToolEpisode.open(host, spec)
        try:
            out = {
                "unknown_tool": await ep.call("crm_update_oportunity", {}),
                "unknown_arg": await ep.call("crm_update_opportunity", {"record_id": 1, "stagee": "x"}),
                "missing": await ep.call("crm_update_opportunity", {"stage": "Closed Won"}),
                "invalid": await ep.call("crm_update_opportunity", {"record_id": spec.params["opp"]["id"], "stage": "Won-ish", "close_date": "next week"}),
                "no_record": await ep.call("crm_get_opportunity", {"record_id": 999999}),
                "bad_type": await ep.call("crm_get_opportunity", {"record_id": "abc"}),
                # the persona (a sales rep) is a self-service user of the desk: the self-service fields, each checked
                "desk_invalid": await ep.call("desk_create_incident", {"short_description": "VPN down", "urgency": 7}),
                "desk_acl": await ep.call("desk_create_incident", {"caller_id": 999999, "short_description": "VPN down", "impact": 1}),
                "desk_refused": await ep.call("desk_update_sysapproval_approver", {"sys_id": 1, "state": "approved"}),
            }
            return out, ep.changes()
        finally:
            await ep.close()

    out, diff = run(go())
    assert "No tool named 'crm_update_oportunity'" in out["unknown_tool"].error and "crm_update_opportunity" in out["unknown_tool"].error
    assert "unknown argument(s) stagee" in out["unknown_arg"].error and "stage" in out["unknown_arg"].error
    assert "missing required argument(s) record_id" in out["missing"].error
    invalid = out["invalid"]
    assert invalid.status == 422 and {"stage", "close_date"} <= set(invalid.errors), invalid.text()
    assert out["no_record"].status == 404 and not out["no_record"].ok
    assert out["bad_type"].status == 422 and "record_id" in out["bad_type"].error
    assert out["desk_invalid"].status == 422 and "urgency" in out["desk_invalid"].errors
    assert out["desk_acl"].status == 403 and "caller_id, impact" in out["desk_acl"].error
    assert out["desk_refused"].status in (403, 404) and out["desk_refused"].error
    assert all(not r.ok for r in out.values())
    assert diff.is_empty, diff.summary()


def test_tools_act_only_in_their_world(host, store) -> None:  # noqa: ANN001
    """Two episodes on the same seed: a change through one is invisible in the other."""
    from sandbox.spec import EpisodeSpec

    spec = EpisodeSpec(id="crm.free", app="crm", seed=0)

    async def go():  # noqa: ANN202
        a, b = await ToolEpisode.open(host, spec), await ToolEpisode.open(host, spec)
        try:
            first = (await a.call("crm_list_account", {"limit": 1, "order": "id"})).data["items"][0]
            changed = await a.call("crm_update_account", {"record_id": first["id"], "phone": "(555) 010-9999"})
            seen_b = await b.call("crm_get_account", {"record_id": first["id"]})
            note = await a.call("crm_create_note", {"title": "Call", "related_type": "account", "related_id": first["id"]})
            with closing(a.world.connect()) as conn:
                author = conn.execute("select u.username from crm_note n join identity_user u on u.id = n.created_by_id where n.id = ?", (note.data["id"],)).fetchone()
            assert author == (a.username,)  # the tools act as the persona
            return changed, seen_b, first
        finally:
            await a.close()
            await b.close()

    changed, seen_b, first = run(go())
    assert changed.ok and changed.data["phone"] == "(555) 010-9999"
    assert seen_b.ok and seen_b.data["phone"] == first["phone"] != "(555) 010-9999"


def test_no_persona_no_access(host, store) -> None:  # noqa: ANN001
    from sandbox.spec import EpisodeSpec

    async def go():  # noqa: ANN202
        ep = await ToolEpisode.open(host, EpisodeSpec(id="crm.free", app="crm", seed=0, role=None))
        try:
            return await ep.call("crm_list_account", {})
        finally:
            await ep.close()

    result = run(go())
    assert not result.ok and result.status == 401


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__, "-q"])

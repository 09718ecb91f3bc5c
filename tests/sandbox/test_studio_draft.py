"""Demo to task without a browser: a recorded trajectory whose world changed in several ways becomes
a draft that the task loader accepts once its instruction is written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import yaml

from apps_web.world import diff_databases
from sandbox.studio.draft import DraftError, draft_from_episode, save_draft
from sandbox.trajectory import AgentInfo, EpisodeRecord, EpisodeWriter, StepRecord, load_episode


def record(tmp_path: Path, store, change) -> Path:  # noqa: ANN001
    """A finished free-exploration episode whose world was changed by ``change(conn)``."""
    world = store.create(seed=0)
    conn = sqlite3.connect(world.path)
    ids = change(conn)
    conn.commit()
    conn.close()
    diff = diff_databases(store.template(0), world.path)
    rec = EpisodeRecord(id="crm.free__s0", task="crm.free", seed=0, source="human", agent=AgentInfo(name="human"),
                        app="crm", start_url=f"/opportunities/{ids['opp']}", persona="dcook")  # fmt: skip
    writer = EpisodeWriter(tmp_path / "crm.free__s0", rec)
    steps = [
        {"action": "left_click", "x": 614, "y": 597},
        {"action": "type", "text": ids["typed"]},
        {"action": "key", "key": "Tab", "repeat": 2},
        {"action": "left_click", "x": 601, "y": 651},
        {"action": "answer", "text": "Done."},
    ]
    for n, action in enumerate(steps, 1):
        writer.step(StepRecord(step=n, action=action, parsed=action, thought="why" if n == 4 else None))
    writer.finish(world_diff=diff.model_dump(mode="json"), end_reason="answer")
    store.drop(world)
    return tmp_path / "crm.free__s0"


def change_three_things(conn: sqlite3.Connection) -> dict:
    opp, name = conn.execute("select id, name from crm_opportunity where stage = 'Prospecting' order by id").fetchone()
    conn.execute("update crm_opportunity set stage = 'Qualification', updated_at = '2026-03-16 09:30:00' where id = ?", (opp,))
    conn.execute(
        "insert into crm_activity (kind, subject, status, priority, related_type, related_id, created_at, updated_at) "
        "values ('task', 'Send the revised quote', 'Not Started', 'High', 'opportunity', ?, '2026-03-16 09:30:00', '2026-03-16 09:30:00')",
        (opp,),
    )
    note = conn.execute("select id from crm_note order by id").fetchone()[0]
    conn.execute("delete from crm_note where id = ?", (note,))
    return {"opp": opp, "typed": name}


def test_a_recording_becomes_a_draft_that_loads(tmp_path: Path, store) -> None:  # noqa: ANN001
    ep = load_episode(record(tmp_path / "runs", store, change_three_things))
    draft = draft_from_episode(ep)
    data = yaml.safe_load(draft.yaml)
    assert data["instruction"].startswith("TODO") and data["category"] == "workflow"
    ops = [e["op"] for e in data["verifier"][-1]["expect"]]
    assert sorted(ops) == ["add", "remove", "update"]
    update = next(e for e in data["verifier"][-1]["expect"] if e["op"] == "update")
    assert update["to"] == {"stage": "Qualification"}  # volatile updated_at left out
    added = next(e for e in data["verifier"][-1]["expect"] if e["op"] == "add")
    assert added["where"]["subject"] == "Send the revised quote" and "id" not in added["where"]
    kinds = {nm["kind"] for nm in data["near_misses"]}
    assert {"wrong_record", "wrong_value", "incomplete", "damage"} <= kinds
    wrong_value = next(nm for nm in data["near_misses"] if nm["kind"] == "wrong_value" and "update" in nm["mutate"][0])
    assert wrong_value["mutate"][0]["set"]["stage"].startswith("{{ alt_")  # another real picklist value
    # The recorded steps are the oracle; typed text naming a touched record is a parameter.
    assert data["oracle"][0] == {"action": {"action": "left_click", "x": 614, "y": 597}}
    assert data["oracle"][1]["type"].startswith("{{ opportunity") and data["oracle"][2] == {"key": "Tab", "repeat": 2}
    assert data["oracle"][3]["note"] == "why" and len(data["oracle"]) == 4  # "Done." is no answer to check
    assert data["start_url"].startswith("/opportunities/{{ opportunity")

    problems = save_draft(draft.yaml, tmp_path / "drafts")[1]
    assert problems == ["instruction: write what the agent must do (it still starts with TODO)"]
    path, problems = save_draft(draft.yaml, tmp_path / "drafts", instruction="Move the deal on, log a follow-up, drop the old note.")
    assert problems == [] and path == tmp_path / "drafts" / "crm" / f"{draft.task_id}.yaml"
    from tasks.registry import TaskRegistry

    inst = TaskRegistry(tmp_path / "drafts", store=store).instance(draft.task_id, 0)
    assert inst.instruction == "Move the deal on, log a follow-up, drop the old note."
    assert {nm.name for nm in inst.near_misses} >= {"wrong-record-1", "wrong-record-2", "skip-change-1", "skip-change-3"}
    from tasks.params import apply_changes

    for nm in inst.near_misses:  # each direct near-miss applies cleanly to a fresh world (NOT NULLs and all)
        world = store.create(seed=0)
        conn = sqlite3.connect(world.path)
        try:
            apply_changes(conn, nm.mutate, dict(inst.params), nm.name)
            conn.commit()
        finally:
            conn.close()
        assert not diff_databases(store.template(0), world.path).is_empty, nm.name
        store.drop(world)


def test_with_its_world_a_draft_draws_an_equivalent_record_at_every_seed(tmp_path: Path, store) -> None:  # noqa: ANN001
    ep = load_episode(record(tmp_path / "runs", store, change_three_things))
    draft = draft_from_episode(ep, store=store)
    data = yaml.safe_load(draft.yaml)
    recorded = next(e for e in data["verifier"][-1]["expect"] if e["op"] == "update")
    p = recorded["where"]["id"].strip("{} ").split(".")[0]
    sql = data["params"][p]["sql"]
    # An open deal at the stage the demonstration moved on from, with a name no other deal has
    assert "t.\"stage\" = 'Prospecting'" in sql and "having count(*) = 1" in sql and "where id =" not in sql
    with sqlite3.connect(store.template(0)) as conn:
        opp_id = conn.execute("select id from crm_opportunity where stage = 'Prospecting' order by id").fetchone()[0]
        rows = conn.execute(sql).fetchall()
    assert opp_id in {r[0] for r in rows} and len(rows) >= 5
    with sqlite3.connect(store.template(1)) as conn:  # another seed's world has its own
        assert conn.execute(sql).fetchall()
    # The task added on the deal is tied to the drawn deal, not to the recorded id.
    added = next(e for e in data["verifier"][-1]["expect"] if e["op"] == "add")
    assert added["where"]["related_id"] == f"{{{{ {p}.id }}}}"
    names = {nm["name"] for nm in data["near_misses"]}
    assert names >= {"skip-change-1", "skip-change-2", "skip-change-3"} and any(n.startswith("extra-change-") for n in names)
    # The instruction names the drawn deal when the author typed the recorded one's name.
    path, problems = save_draft(draft.yaml, tmp_path / "drafts", instruction=f"Move {ep.steps[1].parsed['text']} on.",
                                labels=draft.labels)
    assert problems == [] and yaml.safe_load(path.read_text())["instruction"] == f"Move {{{{ {p}.name }}}} on."
    from tasks.registry import TaskRegistry

    registry = TaskRegistry(tmp_path / "drafts", store=store)
    names = {registry.instance(draft.task_id, seed).params[p]["name"] for seed in range(3)}
    assert len(names) > 1  # seeds draw other deals


def test_a_recording_that_changed_nothing_is_no_task(tmp_path: Path, store) -> None:  # noqa: ANN001
    def nothing(conn: sqlite3.Connection) -> dict:
        return {"opp": 1, "typed": "x"}

    ep = load_episode(record(tmp_path, store, nothing))
    with pytest.raises(DraftError, match="changed nothing"):
        draft_from_episode(ep)


def test_a_broken_edit_is_reported_not_saved(tmp_path: Path, store) -> None:  # noqa: ANN001
    draft = draft_from_episode(load_episode(record(tmp_path / "runs", store, change_three_things)))
    broken = draft.yaml.replace("kind: changes", "kind: chnages")
    path, problems = save_draft(broken, tmp_path / "drafts", instruction="Do it.")
    assert path is None and any("chnages" in p or "kind" in p for p in problems)
    assert not (tmp_path / "drafts" / "crm").exists() or not list((tmp_path / "drafts" / "crm").glob("*.yaml"))

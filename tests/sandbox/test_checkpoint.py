"""Episode checkpoints in real Chromium: an oracle stopped half-way, checkpointed, resumed and finished
grades and changes the world exactly as the uninterrupted episode; branches from one checkpoint stay
apart; milestones are reported every step; a damaged checkpoint is refused with a clear error."""

from __future__ import annotations

import json
import shutil
import sqlite3
from typing import Any

import pytest

from sandbox.agents.oracle import OracleAgent
from sandbox.checkpoint import MANIFEST, STORAGE_FILE, WORLD_FILE, CheckpointError, read
from sandbox.env import AsyncSandboxEnv
from apps_web.world.diff import RowUpdate, TableDiff, WorldDiff
from sandbox.episode import Episode, only_volatile
from sandbox.gym_env import SandboxEnv
from sandbox.loop import background_loop
from sandbox.observe import ObserveOptions
from sandbox.run.episode import agent_info, new_record, play
from sandbox.trajectory import EpisodeWriter, load_episode
from tasks.player import Player

pytestmark = pytest.mark.browser
run = background_loop().run

TASK = "crm.workflow-convert-and-price"
CUT = 4  # oracle steps before the checkpoint: the lead is converted, the new opportunity not priced yet


class Tracked:
    """The shipped task with progress tracking on (its checks become reported milestones); keeps the
    world diff each final grading saw (the diff of an episode whose world is gone once it ends)."""

    def __init__(self, registry: Any) -> None:
        self.registry = registry
        self.final_diffs: list[Any] = []

    def get(self, task_id: str, seed: int) -> Any:
        spec = self.registry.get(task_id, seed)

        def verify(ctx: Any) -> Any:
            if ctx.answer is not None:
                self.final_diffs.append(ctx.diff)
            return spec.verify(ctx)

        return spec.replace(track_progress=True, verify=verify)

    def ids(self) -> list[str]:
        return [TASK]


class Tally:
    """A tiny episode extension: its state goes into the checkpoint and comes back by restore()."""

    def __init__(self, n: int = 0) -> None:
        self.n = n

    def state(self) -> dict[str, int]:
        return {"n": self.n}

    def restore(self, state: dict[str, int]) -> None:
        self.n = state["n"]


async def _play(episode: Episode, steps: list[Any], app: str = "crm") -> dict[str, Any]:
    """Play oracle steps on a live episode; the last step's info."""
    last: dict[str, Any] = {}

    async def step(action: Any) -> bool:
        nonlocal last
        res = await episode.step(action)
        assert not res.info.get("error"), res.info["error"]
        last = res.info
        return res.terminated or res.truncated

    await Player(lambda: episode.page, step, base_url=episode.runtime.host.url(app, "/")).play(steps)
    return last


def _marks(milestones: list[dict[str, Any]]) -> list[tuple]:
    return [(m["name"], m["reached"], m["step"]) for m in milestones]


def test_resume_finishes_like_the_uninterrupted_episode_and_branches_stay_apart(sbx_runtime, registry, tmp_path) -> None:  # noqa: ANN001
    source = Tracked(registry)
    steps = list(registry.instance(TASK, 0).oracle.steps)
    amount = registry.instance(TASK, 0).params["amount"]
    png = ObserveOptions(screenshot="png")
    store = sbx_runtime.store

    # -- the uninterrupted episode, played by the oracle agent as `sandbox run` does ---------------------
    spec = source.get(TASK, 0)
    writer = EpisodeWriter(tmp_path / "run" / "full", new_record(spec, agent_info(OracleAgent(), "oracle")))
    rec = run(play(sbx_runtime, spec, OracleAgent(), writer))
    v_full, diff_full = rec.verdict, source.final_diffs[-1]
    lines = load_episode(tmp_path / "run" / "full").steps
    names = [m["name"] for m in rec.milestones]  # the checks at the top: 5 expected changes, 2 final states
    marks_full = _marks(rec.milestones)
    assert v_full["passed"] and v_full["score"] == 1.0 and len(names) == 7 and names[-1] == "state:crm_opportunity.amount"
    converted, priced = marks_full[0][2], marks_full[-1][2]
    assert all(m[1] for m in marks_full) and {m[2] for m in marks_full[:-1]} == {converted} and converted < priced
    # the step lines record what was reached at that step
    assert [(s.step, s.milestones) for s in lines if s.milestones] == [(converted, names[:-1]), (priced, names[-1:])]
    assert all(m["weight"] == 1 for m in rec.milestones)

    # -- half of it, a checkpoint -------------------------------------------------------------------
    half = AsyncSandboxEnv(source=source, task_id=TASK, runtime=sbx_runtime, observe=png)
    _, info0 = run(half.reset(seed=0))
    assert [m["name"] for m in info0["milestones"]] == names and not any(m["reached"] or m["step"] for m in info0["milestones"])
    ep = half.episode
    info = run(_play(ep, steps[:CUT]))
    assert _marks(info["milestones"]) == marks_full[:-1] + [(names[-1], False, None)]
    run(ep.page.evaluate("localStorage.setItem('sbx-test', 'kept')"))
    ep.extensions["tally"] = Tally(7)
    cp = tmp_path / "cp"
    assert run(half.checkpoint(cp)) == cp
    saved_at, saved_url, old_world = ep.steps, ep.last_obs["url"], ep.world
    manifest = json.loads((cp / MANIFEST).read_text())
    assert manifest["steps"] == saved_at and manifest["task"]["id"] == TASK and manifest["extensions"] == {"tally": {"n": 7}}
    assert manifest["tabs"] == [{"url": saved_url, "active": True}] and ":" not in saved_url.split("//")[1].split("/")[0]
    storage = json.loads((cp / STORAGE_FILE).read_text())
    sessions = [c for c in storage["cookies"] if c["name"] == "sbx_session"]
    assert sessions and {c["session_user"] for c in sessions} == {ep.username} and not any(c["value"] for c in sessions)
    assert not list(tmp_path.glob(".*tmp"))  # written whole, nothing left beside it
    with pytest.raises(CheckpointError, match="already exists"):
        run(half.checkpoint(cp))
    run(half.close())
    assert not old_world.path.exists()  # the episode's own world is gone: the checkpoint stands alone

    # -- continued in a new episode: the same verdict, world diff, milestones and actions -------------
    with pytest.raises(CheckpointError, match="tally"):  # a saved extension state needs its object
        run(Episode.resume(sbx_runtime, cp, source=source, observe=png))
    tally = Tally()
    ep2, obs, info = run(Episode.resume(sbx_runtime, cp, source=source, observe=png, extensions={"tally": tally}))
    try:
        assert tally.n == 7 and ep2.extensions["tally"] is tally
        assert info["step"] == ep2.steps == saved_at and info["resumed"]["branch"] is False and ep2.world.id != old_world.id
        assert obs["url"] == saved_url and len(ep2.trajectory) == saved_at
        assert run(ep2.page.evaluate("localStorage.getItem('sbx-test')")) == "kept"
        assert _marks(info["milestones"]) == _marks(manifest["milestones"])
        end2 = run(_play(ep2, steps[CUT:]))
        # the same verdict (the persona guard too: still signed in), world diff, milestones and actions
        assert end2["verdict"].model_dump(mode="json") == v_full
        assert ep2.changes_since_start().model_dump() == diff_full.model_dump() == source.final_diffs[-1].model_dump()
        assert _marks(end2["milestones"]) == marks_full
        assert [line["action"] for line in ep2.trajectory] == [s.parsed for s in lines]
    finally:
        run(ep2.close())
    with pytest.raises(CheckpointError, match="already continued"):
        run(Episode.resume(sbx_runtime, cp, source=source, extensions={"tally": Tally()}))

    # -- two branches from the checkpoint (env API): isolated, and the checkpoint untouched -----------
    worlds_before = set(store.list())
    a = AsyncSandboxEnv(source=source, task_id=TASK, runtime=sbx_runtime, observe=png)
    b = SandboxEnv(source=source, task_id=TASK, runtime=sbx_runtime)
    try:
        _, ia = run(a.reset(options={"checkpoint": cp, "extensions": {"tally": Tally()}}))
        _, ib = b.reset(options={"checkpoint": str(cp), "extensions": {"tally": Tally()}})
        assert ia["resumed"]["branch"] and ib["resumed"]["branch"] and ia["world_id"] != ib["world_id"]
        end_a = run(_play(a.episode, steps[CUT:]))
        assert end_a["verdict"].passed
        opp = "select amount from crm_opportunity where name = ?"
        name = registry.instance(TASK, 0).params["opp_name"]
        assert a.episode.world.one(opp, name)[0] == amount
        assert b.episode.world.one(opp, name)[0] != amount  # A's edit is not in B's world
        _, _, term, _, end_b = b.step('{"action": "answer", "text": "Done."}')
        assert term and not end_b["verdict"].passed and end_b["verdict"].score == pytest.approx(6 / 7)  # converted, not priced
        assert [m["reached"] for m in end_b["milestones"]] == [True] * 6 + [False]
        b.checkpoint(tmp_path / "cp-b")  # a finished branch can be saved too
        assert read(tmp_path / "cp-b").manifest["terminated"] is True
    finally:
        run(a.close())
        b.close()
    run(sbx_runtime.idle())
    assert set(store.list()) == worlds_before  # the branches' worlds are dropped with them
    conn = sqlite3.connect(f"file:{cp / WORLD_FILE}?mode=ro", uri=True)
    assert conn.execute(opp, (name,)).fetchone()[0] != amount  # nothing ran in the checkpoint's world
    conn.close()
    read(cp)  # and its checksum still holds

    # -- damaged checkpoints: clear errors, no world left behind ----------------------------------------
    def damaged(name: str, harm: Any) -> Any:
        bad = tmp_path / name
        shutil.copytree(cp, bad)
        harm(bad)
        return bad

    cases = [
        (tmp_path / "nowhere", "does not exist"),
        (damaged("no-world", lambda p: (p / WORLD_FILE).unlink()), "world.sqlite \\(the world\\) is missing"),
        (damaged("bad-world", lambda p: (p / WORLD_FILE).write_bytes(b"not a database")), "checksum"),
        (damaged("bad-json", lambda p: (p / MANIFEST).write_text("{\"format\": ")), "checkpoint.json .* not valid JSON"),
        (damaged("no-storage", lambda p: (p / STORAGE_FILE).unlink()), "storage.json .* is missing"),
        (damaged("old-format", lambda p: (p / MANIFEST).write_text(json.dumps({"format": "other@9"}))), "format 'other@9'"),
    ]
    for path, message in cases:
        with pytest.raises(CheckpointError, match=message):
            run(Episode.resume(sbx_runtime, path, branch=True, source=source))
    with pytest.raises(CheckpointError, match="has a verifier: pass the task source"):
        run(Episode.resume(sbx_runtime, cp, branch=True, extensions={"tally": Tally()}))
    assert set(store.list()) == worlds_before


def test_progress_is_not_graded_after_changes_no_verifier_reads() -> None:
    recent = TableDiff(key_columns=["id"], added=[{"id": 1, "record_id": 3}])
    touched = TableDiff(key_columns=["id"], updated=[RowUpdate(key=3, before={"updated_at": "a"}, after={"updated_at": "b"}, fields=["updated_at"])])
    phoned = TableDiff(key_columns=["id"], updated=[RowUpdate(key=3, before={"phone": "1"}, after={"phone": "2"}, fields=["phone", "updated_at"])])
    assert only_volatile(WorldDiff()) and only_volatile(WorldDiff(tables={"crm_recent_view": recent, "crm_account": touched}))
    assert not only_volatile(WorldDiff(tables={"crm_recent_view": recent, "crm_account": phoned}))
    assert not only_volatile(WorldDiff(tables={"crm_account": TableDiff(key_columns=["id"], added=[{"id": 9}])}))


def test_tabs_come_back_with_the_active_one_on_top(make_env, sbx_runtime, tmp_path) -> None:  # noqa: ANN001
    env = make_env(instruction="two tabs")
    env.reset(seed=0)
    obs, *_ = env.step({"action": "left_click", "x": 260, "y": 418})  # a link that opens a new tab
    assert obs["url"].endswith("/page2")
    env.checkpoint(tmp_path / "tabs")
    tabs = json.loads((tmp_path / "tabs" / MANIFEST).read_text())["tabs"]
    assert tabs == [{"url": "http://playground.localhost/", "active": False}, {"url": "http://playground.localhost/page2", "active": True}]

    again = make_env()
    obs, info = again.reset(options={"checkpoint": tmp_path / "tabs"})
    assert obs["title"] == "Page two" and info["step"] == 1 and info["resumed"]["branch"] is True
    pages = again.episode.context.pages
    assert len(pages) == 2 and pages[0].url.endswith("/") and again.episode.page is pages[1]
    obs, *_ = again.step({"action": "back"})
    assert "no previous page" in obs["last_action_error"]  # the reopened tab starts its own history
    # A task without a verifier needs no task source: its spec comes back from the saved fields.
    ep, _obs, _info = run(Episode.resume(sbx_runtime, tmp_path / "tabs", branch=True))
    try:
        assert (ep.spec.id, ep.spec.instruction, ep.spec.app) == ("playground.free", "two tabs", "playground") and ep.steps == 1
    finally:
        run(ep.close())


CHAT_TASK = "chat.workflow-ask-manager-sign-date"


def _replies(world: Any, conversation: int, persona: str) -> list[tuple]:
    """The messages of a conversation written by someone else than the persona, with their times."""
    conn = world.connect()
    try:
        return conn.execute(
            "select m.body_text, m.created_at from chat_message m join identity_user u on u.id = m.author_id"
            " where m.conversation_id = ? and u.username != ? order by m.id", (conversation, persona)).fetchall()
    finally:
        conn.close()


def test_a_colleagues_pending_reply_survives_a_checkpoint(sbx_runtime, registry, tmp_path) -> None:  # noqa: ANN001
    """Saved after the question, before the answer arrives: the resumed episode gets the same reply at the
    same world time and the same verdict as the uninterrupted one."""
    inst = registry.instance(CHAT_TASK, 0)
    steps = list(inst.oracle.steps)
    dm = inst.params["opp"]["dm"]
    # up to the oracle's wait: the question is posted, the reply is pending
    ask = next(i for i, st in enumerate(steps) if getattr(st, "action", None) == {"action": "wait", "duration": 0})

    full = AsyncSandboxEnv(source=registry, task_id=CHAT_TASK, runtime=sbx_runtime)
    run(full.reset(seed=0))
    try:
        end_full = run(_play(full.episode, steps, "chat"))
        persona = full.episode.username
        replies_full = _replies(full.episode.world, dm, persona)
    finally:
        run(full.close())
    assert end_full["verdict"].passed

    half = AsyncSandboxEnv(source=registry, task_id=CHAT_TASK, runtime=sbx_runtime)
    run(half.reset(seed=0))
    try:
        run(_play(half.episode, steps[:ask], "chat"))
        pending = half.episode.extensions["coworkers"].pending()
        assert len(pending) == 1  # the manager's answer, not delivered yet
        assert len(_replies(half.episode.world, dm, half.episode.username)) == len(replies_full) - 1
        run(half.checkpoint(tmp_path / "asked"))
    finally:
        run(half.close())
    ep, _obs, _info = run(Episode.resume(sbx_runtime, tmp_path / "asked", source=registry))
    try:
        assert ep.extensions["coworkers"].pending() == pending
        end = run(_play(ep, steps[ask:], "chat"))
        assert end["verdict"].model_dump(mode="json") == end_full["verdict"].model_dump(mode="json")
        assert _replies(ep.world, dm, persona) == replies_full
    finally:
        run(ep.close())

"""The episode lifecycle: world forks, personas, setup, rewards and verdicts, scaling, determinism, tabs."""

from __future__ import annotations

import asyncio
import os
from contextlib import closing

import numpy as np
import pytest

from sandbox.observe import ObserveOptions
from sandbox.spec import EpisodeSpec, free_spec, resolve_persona

pytestmark = pytest.mark.browser


def whoami(env) -> dict:  # noqa: ANN001
    return env.run(env.core.page.evaluate("fetch('/whoami').then(r => r.json())"))


def test_reset_forks_a_new_world_signed_in_as_the_persona(make_env, store):  # noqa: ANN001
    env = make_env("playground", "/", "hello", role="sales_manager")
    obs, info = env.reset(seed=0)
    assert obs["instruction"] == "hello" and obs["title"] == "Playground" and obs["last_action_error"] == ""
    world = store.get(info["world_id"])
    with closing(world.connect()) as conn:
        first_manager = conn.execute("select username from identity_user where role='sales_manager' order by id").fetchone()[0]
    assert info["persona"] == first_manager
    me = whoami(env)
    assert me == {"world": info["world_id"], "user": first_manager, "header": info["world_id"]}
    first_world = info["world_id"]
    obs, info = env.reset()
    assert info["world_id"] != first_world and whoami(env)["world"] == info["world_id"]
    env.run(env.core.runtime.idle())
    assert not store.exists(first_world)  # the previous episode's world is dropped (in the background)
    assert set(info["timing"]) >= {"world_ms", "context_ms", "page_ms", "observe_ms", "total_ms"}


def test_reset_is_pixel_identical_for_the_same_seed(make_env):  # noqa: ANN001
    env = make_env("crm", "/", "look")
    a, _ = env.reset(seed=0)
    b, _ = env.reset(seed=0)
    assert a["url"] == b["url"] and a["title"] == b["title"]
    assert np.array_equal(a["screenshot"], b["screenshot"])
    # The second episode opened in a spare warmed on the CRM's own stylesheets and scripts (learned
    # from the first page): the same pixels either way, a faster first page with the warm one.
    runtime = env.core.runtime
    assert {"/_ui/static/ui.css", "/_ui/static/ui.js"} <= set(runtime.assets["crm"])

    async def spare_stylesheets() -> int:
        spare = await runtime._spares[(env.core.settings, "crm")][0]
        return await spare.page.evaluate("document.querySelectorAll('link[rel=stylesheet]').length")

    assert env.run(spare_stylesheets()) >= 2


def test_fresh_context_does_not_leak_state(make_env, helpers):  # noqa: ANN001
    env = make_env()
    env.reset(seed=0)
    helpers.js(env, "document.cookie = 'leak=1; path=/'; localStorage.setItem('leak', '1'); sessionStorage.setItem('leak', '1')")
    env.step({"action": "goto", "url": "/page2"})
    env.reset(seed=0)
    assert "leak" not in helpers.js(env, "document.cookie")
    assert helpers.js(env, "localStorage.getItem('leak')") is None
    assert helpers.js(env, "history.length") == 1
    obs, *_ = env.step({"action": "back"})
    assert "no previous page" in obs["last_action_error"] and obs["title"] == "Playground"


def last_user(store) -> str:  # noqa: ANN001
    world = store.create(0)
    try:
        with closing(world.connect()) as conn:
            return conn.execute("select username from identity_user order by id desc").fetchone()[0]
    finally:
        store.drop(world)


def test_persona_setup_and_explicit_user(make_env, store):  # noqa: ANN001
    seen = {}
    user = last_user(store)

    def setup(world) -> None:  # noqa: ANN001
        seen["world"] = world.id
        with closing(world.connect(readonly=False)) as conn:
            conn.execute("update identity_user set first_name = 'Zed' where username = ?", (user,))
            conn.commit()

    spec = EpisodeSpec(id="playground.setup", app="playground", persona=user, setup=setup)
    env = make_env(spec=spec)
    obs, info = env.reset(seed=0)
    assert seen["world"] == info["world_id"] and info["persona"] == user
    with closing(store.get(info["world_id"]).connect()) as conn:
        assert conn.execute("select first_name from identity_user where username=?", (user,)).fetchone()[0] == "Zed"
    assert whoami(env)["user"] == user
    world = store.get(info["world_id"])
    with pytest.raises(ValueError, match="not a user"):
        resolve_persona(world, EpisodeSpec(id="x.y", app="crm", persona="nobody"))
    assert resolve_persona(world, EpisodeSpec(id="x.y", app="crm", persona=None, role=None)) is None


def _graded_by_title(ctx):  # noqa: ANN001, ANN202
    from verifiers import Check, Verdict

    changed = not ctx.diff.table("identity_user").is_empty
    checks = [Check(name="title", sentence="the title changed", passed=changed),
              Check(name="answered", sentence="an answer", passed=ctx.answer is not None)]
    score = (changed + (ctx.answer is not None)) / 2
    return Verdict(passed=score == 1, score=score, reason="graded", checks=checks)


@pytest.mark.parametrize("mode,rewards", [("score", [0.0, 0.0, 1.0]), ("progress", [0.5, 0.0, 0.5])])
def test_reward_modes(make_env, store, mode, rewards):  # noqa: ANN001
    spec = free_spec("playground", "/", "change a user").replace(verify=_graded_by_title, max_steps=3)
    env = make_env(spec=spec, reward=mode)
    _obs, info = env.reset(seed=0)
    world, user = store.get(info["world_id"]), info["persona"]
    with closing(world.connect(readonly=False)) as conn:
        conn.execute("update identity_user set title = 'VP of Everything' where username = ?", (user,))
        conn.commit()
    got = []
    for action in ({"action": "screenshot"}, {"action": "screenshot"}, {"action": "answer", "text": "done"}):
        _obs, reward, _t, _tr, info = env.step(action)
        got.append(reward)
    assert got == rewards and info["verdict"].score == 1.0
    if mode == "progress":
        assert sum(got) == info["verdict"].score and info["progress"] == {"score": 1.0, "reached": ["title", "answered"]}


def test_reward_mode_is_checked():
    from sandbox.env import AsyncSandboxEnv

    with pytest.raises(ValueError, match="reward must be one of passed, score, progress"):
        AsyncSandboxEnv(free_spec("playground"), reward="dense")


def test_world_changes_reward_and_verdict(make_env, store):  # noqa: ANN001
    from verifiers import Check, Verdict

    graded = {}

    def verify(ctx) -> Verdict:  # noqa: ANN001
        graded["ctx"] = ctx
        changed = not ctx.diff.table("identity_user").is_empty
        return Verdict(passed=changed, score=0.75, reason="graded", checks=[Check(name="x", sentence="s", passed=changed)])

    spec = free_spec("playground", "/", "change a user").replace(verify=verify, max_steps=3)
    env = make_env(spec=spec)
    obs, info = env.reset(seed=0)
    world = store.get(info["world_id"])
    user = info["persona"]
    with closing(world.connect(readonly=False)) as conn:  # stands in for a change made through the app
        conn.execute("update identity_user set title = 'VP of Everything' where username = ?", (user,))
        conn.commit()
    obs, reward, terminated, truncated, info = env.step({"action": "screenshot"})
    assert reward == 0.0 and not (terminated or truncated)
    assert info["changes"].summary() == [f"identity_user #{_user_id(world, user)}: title changed"]
    obs, reward, terminated, truncated, info = env.step({"action": "screenshot"})
    assert info["changes"].is_empty  # only what changed since the last step
    obs, reward, terminated, truncated, info = env.step({"action": "answer", "text": "done"})
    assert terminated and not truncated and reward == 1.0  # the default reward: passed
    assert info["verdict"].passed and info["verdict"].score == 0.75 and info["answer"] == "done"
    ctx = graded["ctx"]
    assert ctx.answer == "done" and ctx.instruction == "change a user" and ctx.final_screenshot[:4] == b"\x89PNG"
    assert len(ctx.steps) == 3 and ctx.end_db == world.path


def test_truncation_at_max_steps_grades_the_episode(make_env):  # noqa: ANN001
    from verifiers import Verdict

    spec = free_spec("playground", "/", "x").replace(verify=lambda ctx: Verdict(passed=False, score=0.25, reason="r"), max_steps=2)
    env = make_env(spec=spec, reward="score")
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step({"action": "screenshot"})
    assert not truncated and reward == 0.0
    obs, reward, terminated, truncated, info = env.step({"action": "screenshot"})
    assert truncated and not terminated and reward == 0.25 and info["verdict"].score == 0.25


def test_verifier_errors_become_a_failed_verdict(make_env):  # noqa: ANN001
    def broken(ctx):  # noqa: ANN001
        raise KeyError("boom")

    env = make_env(spec=free_spec("playground").replace(verify=broken))
    env.reset(seed=0)
    *_, info = env.step({"action": "answer", "text": "x"})
    assert info["verdict"].passed is False and "verifier failed" in info["verdict"].reason


def test_scaled_screenshots_map_coordinates_back(make_env, helpers):  # noqa: ANN001
    env = make_env(screenshot_size=(640, 400), marks=True, axtree=True)
    obs, info = env.reset(seed=0)
    assert obs["screenshot"].shape == (400, 640, 3)
    assert env.observation_space["screenshot"].shape == (400, 640, 3)
    button = helpers.element(info, "Click me", "button")
    assert button["bbox"] == [10, 25, 80, 25]  # in screenshot pixels
    env.step({"action": "left_click", "x": 50, "y": 37})
    assert len(helpers.events(env, "click")) == 1
    *_, info = env.step({"action": "cursor_position"})
    assert info["cursor"] == (50, 37)
    obs, *_ = env.step({"action": "left_click", "x": 700, "y": 10})
    assert "outside the screen (640x400 pixels)" in obs["last_action_error"]
    assert 'button "Click me"' in obs["axtree"] and "[box=" not in obs["axtree"]


def test_new_tab_becomes_the_observed_page(make_env):  # noqa: ANN001
    env = make_env()
    env.reset(seed=0)
    obs, *_ = env.step({"action": "left_click", "x": 260, "y": 418})
    assert obs["title"] == "Page two" and obs["url"].endswith("/page2")
    obs, *_ = env.step({"action": "back"})
    assert "no previous page" in obs["last_action_error"]  # the new tab has no history


def test_async_core_directly(sbx_runtime):  # noqa: ANN001
    from sandbox.env import AsyncSandboxEnv, make_async_env
    from sandbox.loop import background_loop

    async def main() -> tuple:
        env = make_async_env("playground", "/counter?n=3", "count", runtime=sbx_runtime,
                             observe=ObserveOptions(screenshot="png"))
        try:
            obs, info = await env.reset(seed=0)
            assert obs["screenshot"][:4] == b"\x89PNG"
            obs, reward, terminated, truncated, info = await env.step('{"action": "left_click", "x": 520, "y": 30}')
            return obs["title"], info["error"], await env.page.text_content("#block")
        finally:
            await env.close()

    assert background_loop().run(main()) == ("Counter 3", None, "4")
    with pytest.raises(ValueError):
        AsyncSandboxEnv()
    assert asyncio.iscoroutinefunction(AsyncSandboxEnv.step)


def _user_id(world, username: str) -> int:  # noqa: ANN001
    with closing(world.connect()) as conn:
        return conn.execute("select id from identity_user where username = ?", (username,)).fetchone()[0]


def test_ordered_milestones_are_graded_step_by_step(make_env, store):  # noqa: ANN001
    from verifiers import build_verifier

    def spec_for(user: str):  # noqa: ANN202
        where = {"username": user}
        return build_verifier({"ordered": True, "checks": [
            {"kind": "state", "table": "identity_user", "where": where, "expect": {"title": "VP"}, "name": "title"},
            {"kind": "state", "table": "identity_user", "where": where, "expect": {"department": "Ops"}, "name": "dept"},
        ]})

    for order, score in ((("title", "department"), 1.0), (("department", "title"), 0.5)):
        env = make_env(spec=free_spec("playground", "/", "promote").replace(max_steps=5))
        _obs, info = env.reset(seed=0)
        user = info["persona"]
        env._core.episode.spec = env._core.episode.spec.replace(verify=spec_for(user).verify, track_progress=True)
        world = store.get(info["world_id"])
        for field in order:
            with closing(world.connect(readonly=False)) as conn:
                conn.execute(f"update identity_user set {field} = ? where username = ?", ("VP" if field == "title" else "Ops", user))
                conn.commit()
            env.step({"action": "screenshot"})
        _obs, _r, _t, _tr, info = env.step({"action": "answer", "text": "done"})
        assert info["verdict"].score == score, info["verdict"].explain()


def test_kept_worlds_are_released_not_orphaned(make_env, store):  # noqa: ANN001
    """An episode's world is owned by this process while it runs; one kept after the episode is let go,
    so it is never taken for the world of a killed process once this process exits."""
    env = make_env(keep_worlds=True)
    obs, info = env.reset(seed=0)
    world_id = info["world_id"]
    assert store.owner(world_id).pid == os.getpid()
    env.close()
    assert store.exists(world_id) and store.owner(world_id) is None and world_id not in store.orphans()
    store.drop(world_id)

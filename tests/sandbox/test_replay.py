"""Replaying a recorded episode in a fresh world gives the same verdict."""

from __future__ import annotations

import json

import pytest

from sandbox.replay import compare
from sandbox.run import BackgroundRuntime, RunConfig, catalog
from sandbox.trajectory import load_episode

# One test worker runs the whole module, so its module-scoped runs (or runtime) are made once.
pytestmark = pytest.mark.xdist_group("replay-runs")


@pytest.fixture(scope="module")
def env(store):  # noqa: ANN001
    from tasks.registry import TaskRegistry

    with BackgroundRuntime(store=store) as bg:
        bg.source = TaskRegistry(store=store)
        yield bg


def test_replaying_oracle_and_random_trajectories_gives_the_same_verdict(env, tmp_path):  # noqa: ANN001
    task = catalog(env.source)[0].id
    oracle = env.run(RunConfig(agent="oracle", tasks=[task], seeds="1", workers=1, out=tmp_path / "oracle"), source=env.source)
    rand = env.run(RunConfig(agent="random", agent_options={"seed": 4}, tasks=[task], seeds="1", workers=1, max_steps=5, out=tmp_path / "random"),
                   source=env.source)  # fmt: skip
    for run, passed in ((oracle, True), (rand, False)):
        original = run.out / "episodes" / run.results[0]["id"]
        assert load_episode(original).record.world == env.source.store.digest(1)  # the world it was played in
        if not passed:  # as if recorded in a world the code no longer builds for the seed
            meta = json.loads((original / "episode.json").read_text())
            (original / "episode.json").write_text(json.dumps({**meta, "world": "0123456789abcdef"}))
        result = env.replay(original, out=tmp_path / "replays" / run.results[0]["agent"], source=env.source)
        assert result.same, result.differences
        if passed:
            assert result.world_changed is None
        else:
            assert "(digest 0123456789abcdef, now " + env.source.store.digest(1) in result.world_changed
        assert result.replayed["passed"] is passed
        replayed = load_episode(tmp_path / "replays" / run.results[0]["agent"])
        assert replayed.record.source == "replay" and replayed.record.replay_of == str(original)
        assert [s.parsed for s in replayed.steps] == [s.parsed for s in load_episode(original).steps]


def test_compare_names_every_difference():
    a = {"passed": True, "score": 1.0, "checks": [{"name": "stage", "passed": True}, {"name": "nothing_else", "passed": True}]}
    b = {"passed": False, "score": 0.5, "checks": [{"name": "stage", "passed": True}, {"name": "nothing_else", "passed": False}]}
    assert compare(a, a) == []
    diffs = compare(a, b)
    assert diffs[0].startswith("passed: True originally") and any("score" in d for d in diffs)
    assert any(d.startswith("check nothing_else: True originally, False") for d in diffs)
    assert compare(a, None) == ["verdict: present originally, none in the replay"]

"""The gymnasium face: check_env, registration by namespaced id, task sources, rendering."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import sandbox  # noqa: F401 - registers sandbox/<app>.free
from sandbox.gym_env import SandboxEnv, UnicodeText, register_tasks
from sandbox.spec import EpisodeSpec, TaskSource

pytestmark = pytest.mark.browser


def test_check_env_passes(make_env):  # noqa: ANN001
    env = make_env("playground", "/", "play")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any checker warning fails the test
        check_env(env, skip_render_check=True)


def test_import_sandbox_registers_the_envs_when_gymnasium_comes_and_not_before() -> None:
    import subprocess
    import sys

    probe = ("import sys, sandbox; assert 'gymnasium' not in sys.modules and 'numpy' not in sys.modules; "
             "import gymnasium; assert gymnasium.spec('sandbox/crm.free').kwargs == {'app': 'crm'}; "
             "assert gymnasium.spec('sandbox/crm.opportunity-close-won').entry_point == 'sandbox.gym_env:SandboxEnv'")
    after = "import gymnasium, sandbox; assert 'sandbox/desk.free' in gymnasium.registry"
    for code in (probe, after):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]


def test_free_envs_are_registered_by_namespaced_id():
    ids = set(gym.registry)
    assert {"sandbox/crm.free", "sandbox/playground.free"} <= ids
    assert gym.spec("sandbox/crm.free").entry_point == "sandbox.gym_env:SandboxEnv"


def test_make_by_id_on_the_shared_runtime(sbx_runtime):  # noqa: ANN001
    env = gym.make("sandbox/playground.free", instruction="hi", runtime=sbx_runtime, render_mode="rgb_array")
    try:
        obs, info = env.reset(seed=0)
        assert obs["instruction"] == "hi" and obs in env.observation_space
        frame = env.render()
        assert frame.shape == (800, 1280, 3) and frame.dtype == np.uint8
        obs, reward, terminated, truncated, info = env.step({"action": "left_click", "x": 100, "y": 75})
        assert obs["last_action_error"] == "" and "timing" not in info
        assert env.unwrapped.last_timing["total_ms"] > 0
    finally:
        env.close()


@dataclass
class EchoTasks:
    """A minimal TaskSource: the instruction says which counter value to reach."""

    def ids(self) -> list[str]:
        return ["playground.count-to-two", "playground.count-to-three"]

    def get(self, task_id: str, seed: int) -> EpisodeSpec:
        target = 2 if task_id.endswith("two") else 3
        from verifiers import Verdict

        def verify(ctx) -> Verdict:  # noqa: ANN001
            ok = ctx.answer == str(target)
            return Verdict(passed=ok, score=1.0 if ok else 0.0, reason="answer checked")

        return EpisodeSpec(id=task_id, app="playground", start_url="/counter?n=0", instruction=f"Count to {target}",
                           seed=seed, max_steps=5, verify=verify, params={"target": target})


def test_task_source_registration(sbx_runtime):  # noqa: ANN001
    source = EchoTasks()
    assert isinstance(source, TaskSource)
    ids = register_tasks(source)
    assert ids == ["sandbox/playground.count-to-two", "sandbox/playground.count-to-three"]
    env = gym.make("sandbox/playground.count-to-three", runtime=sbx_runtime)
    try:
        obs, info = env.reset(seed=0)
        assert obs["instruction"] == "Count to 3" and info["task_id"] == "playground.count-to-three"
        for _ in range(3):
            env.step({"action": "left_click", "x": 520, "y": 30})
        obs, reward, terminated, truncated, info = env.step({"action": "answer", "text": "3"})
        assert terminated and reward == 1.0 and info["verdict"].passed
    finally:
        env.close()


def test_spaces():
    env = SandboxEnv("playground", screenshot_size=(320, 200), axtree=True)
    space = env.observation_space
    assert space["screenshot"].shape == (200, 320, 3)
    assert "axtree" in space.spaces
    assert env.action_space.contains('{"action": "type", "text": "Zoë 東京"}')
    assert UnicodeText(5).contains("é") and not UnicodeText(2).contains("abc")
    env.close()
    with pytest.raises(ValueError):
        SandboxEnv("playground", render_mode="human")

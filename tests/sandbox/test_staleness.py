"""Observations are never stale: 200 actions that each change the page, each observation shows it.

The counter page paints its value into the colour of a big block (red = n % 256, green = n // 256),
so the screenshot itself proves which state it shows. Actions cycle through every way a page changes:
a synchronous click handler, a click whose update waits for a slow fetch, a link to a new page, a
form post answered by a redirect, a key press and typed text handled by a keydown listener.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

CYCLE = [
    {"action": "left_click", "x": 520, "y": 30},  # sync increment
    {"action": "left_click", "x": 520, "y": 80},  # increment after a slow fetch (delay ms)
    {"action": "key", "key": "plus"},  # keydown listener
    {"action": "left_click", "x": 480, "y": 130},  # link to /counter?n=n+1 (new document)
    {"action": "left_click", "x": 520, "y": 180},  # form post -> 303 -> new document
    {"action": "type", "text": "+"},  # typed text reaches the keydown listener too
]


def expected(n: int) -> tuple[int, int, int]:
    return (n & 255, (n >> 8) & 255, 200)


def test_200_actions_each_observed(make_env, helpers):  # noqa: ANN001
    env = make_env("playground", "/counter?n=0&delay=40", "count", max_steps=1000)
    obs, info = env.reset(seed=0)
    assert helpers.pixel(obs, 10, 10) == expected(0)
    stale = []
    for i in range(200):
        action = CYCLE[i % len(CYCLE)]
        obs, reward, terminated, truncated, info = env.step(action)
        assert obs["last_action_error"] == "", (i, action, obs["last_action_error"])
        seen = helpers.pixel(obs, 10, 10)
        if seen != expected(i + 1):
            stale.append((i, action["action"], seen, expected(i + 1)))
    assert stale == [], f"{len(stale)} stale observations out of 200: {stale[:5]}"
    assert not truncated and not terminated


def test_slow_fetch_is_waited_for(make_env, helpers):  # noqa: ANN001
    env = make_env("playground", "/counter?n=7&delay=400", "count")
    env.reset(seed=0)
    obs, *_ , info = env.step({"action": "left_click", "x": 520, "y": 80})
    assert helpers.pixel(obs, 10, 10) == expected(8)
    # it waited for the request (400 ms on the server), not a fixed time: the request starts with the
    # click, inside the action's own time, and its answer arrives during the settling
    timing = env.last_timing
    assert timing["act_ms"] + timing["settle_ms"] >= 400 and timing["settle_ms"] > 0, timing


def test_navigation_without_a_new_document_does_not_stall(make_env):  # noqa: ANN001
    from sandbox.settle import SettleBudget

    env = make_env("playground", "/", "play", budget=SettleBudget(requests=5, navigation=8))
    env.reset(seed=0)
    for y in (208, 238):  # a 204 answer, then a download: neither commits a new document
        obs, reward, terminated, truncated, info = env.step({"action": "left_click", "x": 800, "y": y})
        assert obs["title"] == "Playground" and obs["last_action_error"] == ""
        assert env.last_timing["settle_ms"] < 4000, env.last_timing

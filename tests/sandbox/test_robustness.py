"""No action an agent sends can break or stall an episode: each hole found by fuzzing ``env.step``, in
real Chromium on the playground, then the same task and seed observed in two separate processes."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sandbox.actions import (
    MAX_SCROLL_AMOUNT,
    MAX_TYPE_CHARS,
    ActionError,
    from_anthropic,
    from_browsergym,
    from_openai,
)
from sandbox.settle import SettleBudget

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
BTN = (100, 75)  # the playground's "Click me" button: logs clicks with their modifier keys
TEXT = (560, 212)  # the playground's Name input


@pytest.fixture(scope="module")
def pg(sbx_runtime):  # noqa: ANN001
    from sandbox.gym_env import SandboxEnv

    # a budget a busy machine does not reach on plain actions; the tests of cuts shorten it (`tight`)
    env = SandboxEnv("playground", "/", "play", runtime=sbx_runtime, budget=SettleBudget(action=15))
    yield env
    env.close()


@pytest.fixture
def env(pg):  # noqa: ANN001 - a fresh episode per test
    pg.reset(seed=0)
    return pg


@pytest.fixture
def tight(env):  # noqa: ANN001 - the episode with a short action budget, for the tests of cuts
    from dataclasses import replace

    env.core.episode.budget = replace(env.core.episode.budget, action=1.5)
    return env


def ok(env, action):  # noqa: ANN001
    obs, reward, terminated, truncated, info = env.step(action)
    assert obs["last_action_error"] == "", obs["last_action_error"]
    return obs, info


def refused(env, action, *needles):  # noqa: ANN001
    obs, reward, terminated, truncated, info = env.step(action)
    for needle in needles:
        assert needle in obs["last_action_error"], obs["last_action_error"]
    assert info["error"] == obs["last_action_error"]
    return obs, info


def value(env, helpers) -> str:  # noqa: ANN001
    return helpers.js(env, "document.getElementById('text').value")


def click_is_plain(env, helpers) -> None:  # noqa: ANN001
    """A click lands, with no modifier key held (nothing leaked from an earlier step)."""
    before = len(helpers.events(env, "click"))
    ok(env, {"action": "left_click", "x": BTN[0], "y": BTN[1]})
    clicks = helpers.events(env, "click")
    assert len(clicks) == before + 1
    assert clicks[-1]["mods"] == []


def typing_types(env, helpers, text: str = "ok") -> None:  # noqa: ANN001
    ok(env, {"action": "left_click", "x": TEXT[0], "y": TEXT[1]})
    ok(env, {"action": "key", "key": "ctrl+a BackSpace"})
    ok(env, {"action": "type", "text": text})
    assert value(env, helpers) == text


# -- scroll amounts ----------------------------------------------------------------------------------
@pytest.mark.parametrize("amount", [10**37, 10**400, MAX_SCROLL_AMOUNT + 1])
def test_huge_scroll_is_refused_and_the_next_click_works(env, helpers, amount):  # noqa: ANN001
    refused(env, {"action": "scroll", "x": 900, "y": 600, "direction": "down", "amount": amount}, "amount", f"{MAX_SCROLL_AMOUNT}")
    click_is_plain(env, helpers)


def test_the_largest_scroll_runs_and_the_page_stays_usable(env, helpers):  # noqa: ANN001
    for direction in ("down", "right", "up", "left"):
        ok(env, {"action": "scroll", "x": 150, "y": 270, "direction": direction, "amount": MAX_SCROLL_AMOUNT})
    assert helpers.js(env, "window.scrollY") == 0
    click_is_plain(env, helpers)


@pytest.mark.parametrize(
    ("convert", "payload"),
    [
        (from_openai, {"type": "scroll", "x": 10, "y": 10, "scroll_x": 0, "scroll_y": 10**37}),
        (from_browsergym, "scroll(0, 1e300)"),
        (from_anthropic, {"action": "scroll", "coordinate": [10, 10], "scroll_direction": "down", "scroll_amount": 10**37}),
    ],
)
def test_adapters_refuse_huge_scrolls_naming_the_limit(env, helpers, convert, payload):  # noqa: ANN001
    with pytest.raises(ActionError, match=r"10000|100\b"):
        convert(payload)
    click_is_plain(env, helpers)


# -- modifiers never stay held -----------------------------------------------------------------------
@pytest.mark.parametrize("combo", ["ctrl+shift+alt+meta+F13", "ctrl+F24", "ctrl+shift+\U0001f680"])
def test_unknown_key_in_a_combo_leaves_no_modifier_held(env, helpers, combo):  # noqa: ANN001
    refused(env, {"action": "key", "key": combo}, "unknown key")
    typing_types(env, helpers)
    click_is_plain(env, helpers)


def test_a_cut_key_combo_releases_its_modifiers(tight, helpers):  # noqa: ANN001
    env = tight
    # 100 presses of a four-modifier combo take seconds: cut while the modifiers are down
    t0 = time.perf_counter()
    obs, reward, terminated, truncated, info = env.step({"action": "key", "key": "ctrl+shift+alt+super+Left", "repeat": 100})
    assert info.get("cut") is True, obs["last_action_error"]
    assert "cut after 1.5 s" in obs["last_action_error"]
    assert time.perf_counter() - t0 < 10
    downs = [e for e in helpers.events(env) if e["kind"] == "keydown" and e["key"] == "ArrowLeft"]
    assert 0 < len(downs) < 100 and downs[0]["mods"] == ["shift", "ctrl", "alt", "meta"]
    click_is_plain(env, helpers)
    typing_types(env, helpers)


def test_hold_key_within_the_budget_holds_then_releases(env, helpers):  # noqa: ANN001
    ok(env, {"action": "hold_key", "key": "ctrl+shift", "duration": 0.2})
    click_is_plain(env, helpers)


def test_a_cut_drag_releases_the_button_and_modifiers(tight, helpers):  # noqa: ANN001
    env = tight
    # 20 long waypoints with shift held: longer than the 1.5 s budget on this machine, or not; either
    # way, afterwards no button or key is down
    path = [{"x": 50 + (i % 2) * 1000, "y": 150 + (i % 2) * 500} for i in range(20)]
    obs, reward, terminated, truncated, info = env.step(
        {"action": "left_click_drag", "start_x": 50, "start_y": 150, "end_x": 650, "end_y": 550, "path": path, "modifiers": ["shift"]}
    )
    assert obs["last_action_error"] == "" or info.get("cut")
    assert helpers.js(env, "window.__buttons = 0; document.addEventListener('mousemove', e => window.__buttons = e.buttons); 1")
    ok(env, {"action": "mouse_move", "x": 700, "y": 700})
    assert helpers.js(env, "window.__buttons") == 0
    click_is_plain(env, helpers)


# -- every step is bounded ---------------------------------------------------------------------------
def test_long_typing_is_refused_naming_the_limit(env, helpers):  # noqa: ANN001
    t0 = time.perf_counter()
    refused(env, {"action": "type", "text": "x" * 10_000}, f"limit is {MAX_TYPE_CHARS}")
    refused(env, {"action": "key", "key": " ".join(["Tab"] * 100), "repeat": 10}, "limit is 100 presses")
    path = [{"x": 10 + i, "y": 10} for i in range(200)]
    refused(env, {"action": "left_click_drag", "start_x": 5, "start_y": 5, "end_x": 400, "end_y": 5, "path": path}, "limit is 20")
    assert time.perf_counter() - t0 < 5
    typing_types(env, helpers)


def test_an_action_past_its_budget_is_cut_and_reported_and_really_stops(tight, helpers):  # noqa: ANN001
    env = tight
    ok(env, {"action": "left_click", "x": TEXT[0], "y": TEXT[1]})
    t0 = time.perf_counter()
    obs, reward, terminated, truncated, info = env.step({"action": "type", "text": "a" * MAX_TYPE_CHARS})
    elapsed = time.perf_counter() - t0
    budget = env.core.episode.budget
    assert info["cut"] is True and not terminated
    assert "cut after 1.5 s" in obs["last_action_error"] and info["error"] == obs["last_action_error"]
    assert elapsed < budget.action + budget.requests + 3
    typed = value(env, helpers)
    assert 0 < len(typed) < MAX_TYPE_CHARS and set(typed) == {"a"}
    # the cut typing does not go on behind the next action: "Z" lands last, once
    ok(env, {"action": "type", "text": "Z"})
    after = value(env, helpers)
    assert after.endswith("Z") and after.count("Z") == 1 and len(after) < MAX_TYPE_CHARS + 1
    click_is_plain(env, helpers)


def test_waits_longer_than_the_budget_are_refused(tight, helpers):  # noqa: ANN001
    env = tight
    t0 = time.perf_counter()
    refused(env, {"action": "wait", "duration": 5}, "step budget of 1.5 s")
    assert time.perf_counter() - t0 < 2
    click_is_plain(env, helpers)


# -- goto reads URLs as Chromium does ----------------------------------------------------------------
def trick_urls(port: int) -> list[str]:
    return [
        f"http://example.com\\@playground.localhost:{port}/",  # backslash ends the host
        f"http://example.com\\\\@playground.localhost:{port}/page2",
        f"http://playground.localhost:{port}@example.com/",  # userinfo
        f"http://user:pw@playground.localhost:{port}/",
        f"http://exa\tmple.com/",  # tabs are removed
        "http://example%2Ecom/",  # percent-encoded host
        "http://ｅxample.com/",  # full-width letters map to ASCII
        f"http://127.0.0.1:{port}/",  # the host's own socket, but not an app
        f"http://0x7f.1:{port}/",  # IPv4 forms
        f"http://2130706433:{port}/",
        f"http://[::1]:{port}/",
        "//example.com/",  # scheme-relative
        "\\\\example.com\\x",
        "/\\example.com/",
        f"http://localhost.:{port}/",
        f"http://playground.localhost:{port + 1}/",  # another port
        "https://evil.example/",
        " javascript:alert(1)",
        "java\nscript:alert(1)",
        "data:text/html,hi",
        "file:///etc/passwd",
        "http://",
    ]


def test_goto_refuses_every_way_off_the_app_host_and_stays(env, helpers):  # noqa: ANN001
    port = env.core.runtime.host.port
    ok(env, {"action": "goto", "url": "/page2"})
    for url in trick_urls(port):
        obs, reward, terminated, truncated, info = env.step({"action": "goto", "url": url})
        assert obs["last_action_error"], url
        assert obs["url"] == "http://playground.localhost/page2", (url, obs["url"])
        assert obs["title"] == "Page two"
        assert helpers.js(env, "location.host") == f"playground.localhost:{port}"
    assert "only the apps of this sandbox" in refused(env, {"action": "goto", "url": trick_urls(port)[0]})[0]["last_action_error"]
    obs, _ = ok(env, {"action": "goto", "url": "/"})
    assert obs["title"] == "Playground"
    click_is_plain(env, helpers)


@pytest.mark.parametrize(
    "url",
    [
        "http://playground.localhost/page2",  # public (what observations show)
        "http://playground.localhost:{port}/page2",  # with the host's port
        "HTTP://PLAYGROUND.LOCALHOST/page2",
        "http://playground%2Elocalhost/page2",
        "http://ｐlayground.localhost/page2",
        " http://playground.localhost/pa\tge2 ",
        "https://playground.localhost/page2",  # the sandbox serves http
        "/page2",
        "page2",
    ],
)
def test_goto_accepts_app_urls_in_any_spelling(env, url):  # noqa: ANN001
    port = env.core.runtime.host.port
    obs, info = ok(env, {"action": "goto", "url": url.format(port=port)})
    assert obs["title"] == "Page two"
    assert obs["url"] == info["url"] == "http://playground.localhost/page2"


# -- adapters check sane bounds ----------------------------------------------------------------------
def test_adapters_refuse_coordinates_off_any_screen(env, helpers):  # noqa: ANN001
    with pytest.raises(ActionError, match="at most 9999"):
        from_anthropic({"action": "left_click", "coordinate": [99999, 10]})
    with pytest.raises(ActionError, match=r"outside the screen \(1280x800"):
        from_anthropic({"action": "left_click", "coordinate": [1280, 10]}, screen=(1280, 800))
    with pytest.raises(ActionError, match="from 0 to 9999"):
        from_openai({"type": "click", "button": "left", "x": 99999, "y": 1})
    with pytest.raises(ActionError, match="from 0 to 9999"):
        from_browsergym("mouse_click(1e300, 3)")
    with pytest.raises(ActionError, match=r"outside the screen"):
        from_openai({"type": "computer_call", "actions": [{"type": "move", "x": 5000, "y": 1}]}, screen=(1280, 800))
    action = from_anthropic({"action": "left_click", "coordinate": list(BTN)}, screen=(1280, 800))
    ok(env, action.to_dict())
    click_is_plain(env, helpers)


def test_a_single_openai_action_error_reads_as_the_action_itself():
    with pytest.raises(ActionError) as err:
        from_openai({"type": "computer_call", "actions": [{"type": "click", "button": "left", "x": 5}]})
    assert str(err.value) == "click needs y"
    with pytest.raises(ActionError) as err:
        from_openai({"type": "computer_call", "action": {"type": "click", "button": "left", "x": 5}})
    assert str(err.value) == "click needs y"
    with pytest.raises(ActionError, match=r"^actions\[1\]: click needs y"):
        from_openai({"type": "computer_call", "actions": [{"type": "wait"}, {"type": "click", "button": "left", "x": 5}]})


# -- stable URLs -------------------------------------------------------------------------------------
def test_urls_shown_to_the_agent_carry_no_port(env):  # noqa: ANN001
    port = env.core.runtime.host.port
    obs, info = env.reset(seed=0)
    assert obs["url"] == info["url"] == "http://playground.localhost/"
    obs, info = ok(env, {"action": "left_click", "x": 210, "y": 397})  # the link to page two
    assert obs["url"] == info["url"] == "http://playground.localhost/page2"
    ok(env, {"action": "goto", "url": f"http://playground.localhost:{port}/done?title=a"})
    trajectory = env.episode.trajectory
    assert [t["url"] for t in trajectory] == ["http://playground.localhost/page2", "http://playground.localhost/done?title=a"]
    assert all(str(port) not in json.dumps(t) for t in trajectory[:1])


_SAME_EPISODE = r"""
import asyncio, hashlib, json, sys
from apps_web.world import WorldStore
from sandbox.env import AsyncSandboxEnv
from sandbox.observe import ObserveOptions
from sandbox.spec import free_spec

async def main(home, templates):
    store = WorldStore(home, templates_dir=templates)
    env = AsyncSandboxEnv(free_spec("crm", "/", "look"), observe=ObserveOptions(screenshot="png"),
                          runtime_options={"store": store})
    out = []
    try:
        obs, info = await env.reset(seed=0)
        out.append([obs["url"], obs["title"], hashlib.sha256(obs["screenshot"]).hexdigest()])
        open(home + "/first.png", "wb").write(obs["screenshot"])  # kept to explain a difference
        obs, *_, info = await env.step({"action": "goto", "url": "http://crm.localhost/opportunities/3"})
        out.append([obs["url"], obs["title"], hashlib.sha256(obs["screenshot"]).hexdigest(), obs["last_action_error"]])
        out.append(env.runtime.host.port)
    finally:
        await env.close()
    print(json.dumps(out))

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


def _where_they_differ(a: Path, b: Path) -> str:
    from PIL import Image, ImageChops

    with Image.open(a) as x, Image.open(b) as y:
        box = ImageChops.difference(x.convert("RGB"), y.convert("RGB")).getbbox()
    return f"the first screenshots differ in the box {box} (left, top, right, bottom): {a} and {b}"


def test_same_task_and_seed_observe_the_same_bytes_in_two_processes(tmp_path, store):  # noqa: ANN001
    runs = []
    for i in range(2):  # two processes, each with its own app host (its own random port) and Chromium
        proc = subprocess.run(
            [sys.executable, "-c", _SAME_EPISODE, str(tmp_path / f"home{i}"), str(store.templates_dir)],
            cwd=ROOT, capture_output=True, text=True, timeout=180, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    (first_a, step_a, port_a), (first_b, step_b, port_b) = runs
    assert port_a != port_b  # the ports differ; nothing the agent sees does
    assert first_a == first_b and first_a[0] == "http://crm.localhost/", _where_they_differ(tmp_path / "home0" / "first.png", tmp_path / "home1" / "first.png")
    assert step_a == step_b and step_a[0] == "http://crm.localhost/opportunities/3" and step_a[3] == ""
    assert hashlib.sha256(b"").hexdigest() not in (first_a[2], step_a[2])

"""Property-based fuzzing of ``env.step`` in real Chromium: thousands of random and malformed actions
(canonical dicts with wrong types, huge, negative and non-finite numbers, unknown fields and key
names, unicode, raw text; and the inputs of the Anthropic, OpenAI and BrowserGym adapters).

Whatever is sent: no exception escapes (adapters raise only ``ActionError``), every step returns
within the step budget plus a margin, and after each example the episode is still usable: a goto,
a click on a known button (arriving with no modifier held) and typing into a field all work.

The run is derandomized with a fixed number of examples, so CI runs the same actions every time:
``make test`` a sample of SAMPLE_EXAMPLES, ``make test-long`` (which CI runs too) all EXAMPLES.
"""

from __future__ import annotations

import collections
import math
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sandbox.actions import (
    ACTION_TYPES,
    ANTHROPIC_ACTIONS,
    MAX_COORDINATE,
    MAX_SCROLL_AMOUNT,
    MAX_TYPE_CHARS,
    OPENAI_ACTIONS,
    ActionError,
    Wait,
    from_anthropic,
    from_browsergym,
    from_openai,
)
from sandbox.actions.browsergym import SUPPORTED as BROWSERGYM_FUNCTIONS
from sandbox.env import AsyncSandboxEnv
from sandbox.loop import background_loop
from sandbox.observe import ObserveOptions
from sandbox.settle import SettleBudget
from sandbox.spec import free_spec

pytestmark = pytest.mark.browser

EXAMPLES = 50  # each drives ACTIONS_PER_EXAMPLE inputs, then checks the episode
SAMPLE_EXAMPLES = 15  # make test's share: all 50 took 72 s of it on 2 cores
ACTIONS_PER_EXAMPLE = 20
BUDGET = SettleBudget(action=10.0, requests=2.0, navigation=5.0)  # generous: a busy machine must not cut a goto
STEP_LIMIT_S = BUDGET.action + BUDGET.navigation + 6.0  # the action, its settling, observing: a margin
BTN = (100, 75)
TEXT = (560, 212)
W, H = 1280, 800
SHORT_WAIT_S = 0.05

FUZZ = settings(
    max_examples=EXAMPLES, derandomize=True, database=None, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)

# -- values -------------------------------------------------------------------------------------------
HUGE = [10**37, 10**400, -(10**37), 2**63, 2**31, 1e300, -1e300, 1e-300]
NONFINITE = [math.nan, math.inf, -math.inf]
JUNK: list[Any] = [None, True, False, "", " ", "12", "x", [], {}, [1, 2], {"x": 1}, "\x00", "\u202e", "🚀"]

coord = st.one_of(
    st.integers(0, W - 1), st.integers(0, H - 1), st.sampled_from([0, W - 1, H - 1, W, H, MAX_COORDINATE, MAX_COORDINATE + 1, -1]),
)
number = st.one_of(
    st.integers(-5, 120), st.sampled_from(HUGE + NONFINITE), st.floats(allow_nan=True, allow_infinity=True),
)
wild = st.one_of(coord, number, st.sampled_from(JUNK), st.text(max_size=12))
amount = st.one_of(st.integers(1, 5), st.sampled_from([0, MAX_SCROLL_AMOUNT, MAX_SCROLL_AMOUNT + 1, 10**37]), wild)
# Durations: short real waits, the budget's edge (refused), and every kind of wrong value.
seconds = st.one_of(
    st.sampled_from([0, 0.01, 0.05, BUDGET.action, 20, 21, -1, 1e300, 10**400, "1", None, True, [1]]), st.sampled_from(NONFINITE),
)
key_names = st.sampled_from([
    "Return", "Tab", "Escape", "BackSpace", "Delete", "Up", "Page_Down", "space", "a", "Z", "é", "東", "🚀",
    "ctrl", "shift", "alt", "super", "meta", "cmd", "F1", "F12", "F13", "F24", "Retrun", "", "+", "minus", "KP_Enter",
])  # fmt: skip
key_text = st.one_of(
    st.lists(st.lists(key_names, min_size=1, max_size=6).map("+".join), min_size=1, max_size=4).map(" ".join),
    st.text(max_size=30),
    st.sampled_from(["ctrl+shift+alt+meta+F13", "ctrl+F24", " ".join(["Tab"] * 100), "ctrl+" * 10 + "a"]),
)
text = st.one_of(
    st.text(max_size=30), st.sampled_from(["", "a" * (MAX_TYPE_CHARS + 1), "\r\n", "Zoë — 東京 🚀", "\ud800"]),
)
urls = st.one_of(
    st.sampled_from([
        "/", "/page2", "page2", "/counter?n=3", "/nocontent", "/download", "/missing", "http://playground.localhost/page2",
        "http://example.com\\@playground.localhost/", "//example.com/", "http://0x7f.1/", "javascript:alert(1)",
        "http://user@playground.localhost/", "https://evil.example/", "http://playground.localhost:1/", "data:,x",
        "http://[::1]/", "http://ｅxample.com/", "about:blank", "chrome://settings", "http://",
    ]),  # fmt: skip
    st.text(max_size=40),
)
modifiers = st.one_of(st.lists(key_names, max_size=5), wild)
element_id = st.one_of(st.sampled_from([f"e{i}" for i in range(1, 40)]), wild)


def fields_of(name: str) -> dict[str, st.SearchStrategy]:
    """A strategy for each argument an action may take, mostly plausible, often wrong."""
    common = {
        "x": coord, "y": coord, "start_x": coord, "start_y": coord, "end_x": coord, "end_y": coord,
        "x0": coord, "y0": coord, "x1": coord, "y1": coord, "modifiers": modifiers, "amount": amount,
        "direction": st.one_of(st.sampled_from(["up", "down", "left", "right"]), wild), "text": text,
        "key": key_text, "repeat": st.one_of(st.integers(1, 3), st.sampled_from([0, 100, 101, 10**9]), wild),
        "duration": seconds, "url": urls, "element_id": element_id, "button": st.one_of(st.sampled_from(["left", "right", "middle"]), wild),
        "count": st.one_of(st.integers(1, 3), wild), "value": st.one_of(text, st.lists(text, max_size=3)),
        "label": st.one_of(st.sampled_from(["Red", "Green", "Blue"]), text, st.lists(text, max_size=3)),
        "reason": text, "path": st.one_of(st.lists(st.fixed_dictionaries({"x": coord, "y": coord}), max_size=25), wild),
    }  # fmt: skip
    model = ACTION_TYPES[name]
    return {k: common.get(k, wild) for k in model.model_fields if k != "action"}


@st.composite
def canonical(draw: Any) -> Any:
    """A canonical action: a real type with arguments drawn from plausible-or-wrong values, some
    dropped, sometimes an unknown one added; or a dict or text that is not an action at all."""
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.one_of(st.text(max_size=40), st.sampled_from(['{"action": "left_click", "x": 1', "[]", "null", "1e999"]),
                              st.dictionaries(st.text(max_size=8), wild, max_size=4), st.sampled_from(JUNK)))
    name = draw(st.sampled_from(sorted(ACTION_TYPES)))
    fields = fields_of(name)
    chosen = draw(st.lists(st.sampled_from(sorted(fields)), unique=True)) if fields else []
    out: dict[str, Any] = {"action": draw(st.one_of(st.just(name), st.just(name), st.just(name), st.sampled_from([name.upper(), name + "x", 5, None])))}
    if name in ("wait", "hold_key") and "duration" not in chosen:
        chosen.append("duration")  # not the default wait (1 s): real waits are tested elsewhere, not here
    for field in chosen:
        out[field] = draw(fields[field])
    if draw(st.integers(0, 7)) == 0:
        out[draw(st.text(min_size=1, max_size=8))] = draw(wild)
    return out


@st.composite
def anthropic_input(draw: Any) -> Any:
    args = {
        "coordinate": st.one_of(st.tuples(coord, coord).map(list), st.lists(wild, max_size=3)),
        "start_coordinate": st.one_of(st.tuples(coord, coord).map(list), wild), "text": st.one_of(key_text, text, wild),
        "scroll_direction": st.one_of(st.sampled_from(["up", "down", "left", "right"]), wild), "scroll_amount": amount,
        "duration": seconds, "region": st.one_of(st.tuples(coord, coord, coord, coord).map(list), wild), "repeat": wild, "key": key_text,
    }  # fmt: skip
    out = {"action": draw(st.one_of(st.sampled_from(ANTHROPIC_ACTIONS), wild))}
    for field in draw(st.lists(st.sampled_from(sorted(args)), unique=True, max_size=4)):
        out[field] = draw(args[field])
    return out


@st.composite
def openai_input(draw: Any) -> Any:
    keys = st.one_of(st.lists(st.one_of(key_names.map(str.upper), key_names), max_size=5), wild)
    args = {
        "x": coord, "y": coord, "button": st.one_of(st.sampled_from(["left", "right", "wheel", "back", "forward"]), wild),
        "keys": keys, "scroll_x": st.one_of(st.integers(-500, 500), st.sampled_from(HUGE), wild),
        "scroll_y": st.one_of(st.integers(-500, 500), st.sampled_from(HUGE), wild), "text": text,
        "path": st.one_of(st.lists(st.fixed_dictionaries({"x": coord, "y": coord}), max_size=25), wild),
    }  # fmt: skip
    action = {"type": draw(st.one_of(st.sampled_from(OPENAI_ACTIONS), wild))}
    for field in draw(st.lists(st.sampled_from(sorted(args)), unique=True, max_size=4)):
        action[field] = draw(args[field])
    form = draw(st.integers(0, 3))
    if form == 0:
        return action
    if form == 1:
        return {"type": "computer_call", "action": action}
    return {"type": "computer_call", "actions": [action] + draw(st.lists(st.just({"type": "screenshot"}), max_size=1))}


@st.composite
def browsergym_input(draw: Any) -> str:
    name = draw(st.one_of(st.sampled_from(sorted(BROWSERGYM_FUNCTIONS)), st.sampled_from(["tab_close", "eval", "__import__"])))
    literal = st.one_of(coord, st.sampled_from([10**37, -1, 1e300, "Enter", "Control+a", "e5", "'"]), st.text(max_size=10))
    args = draw(st.lists(literal, max_size=4))
    call = f"{name}({', '.join(repr(a) for a in args)})"
    return draw(st.one_of(st.just(call), st.just(f"```python\n{call}\n```"), st.text(max_size=30), st.just(call + "\n" + call)))


inputs = st.one_of(
    canonical().map(lambda a: ("canonical", a)),  # half the inputs are canonical: they all reach env.step
    canonical().map(lambda a: ("canonical", a)),
    canonical().map(lambda a: ("canonical", a)),
    anthropic_input().map(lambda a: ("anthropic", a)),
    openai_input().map(lambda a: ("openai", a)),
    browsergym_input().map(lambda a: ("browsergym", a)),
)
CONVERT = {
    "anthropic": lambda a: from_anthropic(a, screen=(W, H)),
    "openai": lambda a: from_openai(a, screen=(W, H)),
    "browsergym": lambda a: from_browsergym(a, screen=(W, H)),
}


# -- without a browser: the adapters and the parser ------------------------------------------------------
@settings(FUZZ, max_examples=2000)
@given(item=inputs)
def test_adapters_and_parser_raise_only_action_errors(item):  # noqa: ANN001
    """Every input becomes actions or an ActionError with a message; nothing else escapes."""
    from sandbox.actions import parse_action

    dialect, payload = item
    try:
        actions = parse_action(payload) if dialect == "canonical" else CONVERT[dialect](payload)
    except ActionError as exc:
        assert str(exc) and len(str(exc)) < 2000
        return
    for action in actions if isinstance(actions, list) else [actions]:
        assert parse_action(action.to_dict()) == action  # what the trajectory stores reads back the same


# -- the run -------------------------------------------------------------------------------------------
class Fuzzer:
    """One env on the playground, reused across examples (reset when an episode ends)."""

    def __init__(self, runtime: Any) -> None:
        self.loop = background_loop()
        self.env = AsyncSandboxEnv(
            free_spec("playground", "/", "fuzz", max_steps=10**6), runtime=runtime,
            observe=ObserveOptions(screenshot="none"), budget=BUDGET,
        )
        self.steps = self.refused_by_adapters = self.cuts = self.resets = self.examples = 0
        self.slowest = 0.0
        self.recent: collections.deque = collections.deque(maxlen=30)  # for failure messages: the env is shared
        self.loop.run(self.env.reset(seed=0))

    def step(self, action: Any) -> tuple[dict, dict]:
        t0 = time.perf_counter()
        obs, reward, terminated, truncated, info = self.loop.run(self.env.step(action))
        elapsed = time.perf_counter() - t0
        self.recent.append((f"{action!r:.200}", round(elapsed, 2), obs["last_action_error"][:120]))
        self.steps += 1
        self.slowest = max(self.slowest, elapsed)
        assert elapsed < STEP_LIMIT_S, f"step took {elapsed:.1f} s: {action!r:.300}"
        assert isinstance(obs["url"], str) and isinstance(obs["last_action_error"], str)
        assert info["error"] == (obs["last_action_error"] or None) or terminated or truncated
        self.cuts += bool(info.get("cut"))
        if terminated or truncated:
            self.loop.run(self.env.reset(seed=0))
            self.resets += 1
        return obs, info

    def send(self, dialect: str, payload: Any) -> None:
        if dialect == "canonical":
            self.step(payload)
            return
        try:
            actions = CONVERT[dialect](payload)
        except ActionError:
            self.refused_by_adapters += 1  # refused before the step, with a message: fine
            return
        for action in actions if isinstance(actions, list) else [actions]:
            if isinstance(action, Wait) and action.duration > SHORT_WAIT_S:
                action = Wait(duration=SHORT_WAIT_S)  # the dialects' default waits (1 s) would dominate the run
            self.step(action.to_dict())

    def js(self, expression: str) -> Any:
        return self.loop.run(self.env.page.evaluate(expression))

    def refresh_element_ids(self) -> None:
        self.loop.run(self.env.episode.observe_elements())  # element ids e1... now name real elements

    def check_usable(self) -> None:
        """The episode still works: a goto, a plain click on the button, typing into the Name field."""
        if "left" in self.env.episode.executor.buttons_down:  # held on purpose by left_mouse_down
            self.ok({"action": "left_mouse_up"})
        for _ in range(3):  # a tab opened by an earlier action (ctrl+click on a link) may take over once
            obs, info = self.step({"action": "goto", "url": "/"})
            if info.get("cut"):  # the machine was too busy for the budget: a cut is not a broken episode
                continue
            assert obs["last_action_error"] == "", "\n".join(map(str, self.recent))
            if obs["url"] == "http://playground.localhost/":
                break
        assert obs["url"] == "http://playground.localhost/" and obs["title"] == "Playground", obs["url"]
        self.ok({"action": "left_click", "x": BTN[0], "y": BTN[1]})
        clicks = [e for e in self.js("window.sbxLog") if e["kind"] == "click"]
        assert len(clicks) == 1 and clicks[0]["mods"] == [], clicks
        self.ok({"action": "left_click", "x": TEXT[0], "y": TEXT[1]})
        self.ok({"action": "type", "text": "still typing"})
        assert self.js("document.getElementById('text').value") == "still typing"

    def ok(self, action: dict) -> tuple[dict, dict]:
        obs, info = self.step(action)
        assert obs["last_action_error"] == "", "\n".join(map(str, self.recent))
        return obs, info


@pytest.fixture(scope="module")
def fuzzer(sbx_runtime):  # noqa: ANN001
    f = Fuzzer(sbx_runtime)
    yield f
    background_loop().run(f.env.close())
    print(f"\nfuzz: {f.steps} steps, {f.refused_by_adapters} inputs refused by adapters, {f.cuts} cut, "
          f"{f.resets} resets, slowest step {f.slowest:.2f} s")


@pytest.mark.slow
@pytest.mark.parametrize("examples", [pytest.param(SAMPLE_EXAMPLES, id="sample"), pytest.param(EXAMPLES, id="all", marks=pytest.mark.long)])
def test_no_action_breaks_or_stalls_the_episode(fuzzer, examples: int):  # noqa: ANN001
    first_example, first_step = fuzzer.examples, fuzzer.steps + fuzzer.refused_by_adapters

    @settings(FUZZ, max_examples=examples)
    @given(data=st.data())
    def example(data: st.DataObject) -> None:
        fuzzer.examples += 1
        fuzzer.refresh_element_ids()
        for _ in range(ACTIONS_PER_EXAMPLE):
            dialect, payload = data.draw(inputs)
            fuzzer.send(dialect, payload)
        fuzzer.check_usable()

    example()
    # the run itself is checked too: every example ran, and with it thousands of inputs
    assert fuzzer.examples - first_example >= examples
    assert fuzzer.steps + fuzzer.refused_by_adapters - first_step >= examples * ACTIONS_PER_EXAMPLE

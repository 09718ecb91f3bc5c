"""The studio in real Chromium: a person (this test, in its own browser) records a CRM task on the
live view with mouse and keyboard, finishes and sees the verifier pass; the trajectory loads and
replays to the same verdict. A free exploration becomes a task draft that validates."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn
import yaml
from playwright.sync_api import Page, expect

from sandbox.studio.server import Studio, StudioOptions, create_app
from sandbox.trajectory import load_episode

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("studio")]  # one studio (one Chromium) per worker
TASK = "crm.opportunity-update-amount"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class StudioServer:
    url: str
    studio: Studio

    def run(self, coro: Any, timeout: float = 60) -> Any:
        """Run a coroutine on the studio's loop (where the sandboxed browser lives)."""
        return asyncio.run_coroutine_threadsafe(coro, self.studio.loop).result(timeout)


@pytest.fixture(scope="module")
def studio(store, tmp_path_factory) -> StudioServer:  # noqa: ANN001
    out = tmp_path_factory.mktemp("studio")
    app = create_app(StudioOptions(
        out_dir=out / "runs", drafts_dir=out / "drafts", store=store, host_mode="thread", extra_apps=("playground",),
    ))  # fmt: skip
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the studio did not start"
        time.sleep(0.02)
    yield StudioServer(url=f"http://localhost:{port}", studio=app.state.studio)
    server.should_exit = True
    thread.join(timeout=20)


class Person:
    """Plays the person: finds things on the sandboxed page and acts on the streamed view."""

    def __init__(self, page: Page, studio: StudioServer) -> None:
        self.page = page
        self.studio = studio
        self.view = page.get_by_label("Live view of the sandboxed browser")

    @property
    def session(self):  # noqa: ANN201
        sid = re.search(r"/sessions/([^/?#]+)", self.page.url).group(1)
        return self.studio.studio.sessions[sid]

    def where(self, locate) -> tuple[float, float]:  # noqa: ANN001
        """Screen point (in the studio page) of an element of the sandboxed page, found by `locate(page)`."""

        async def box() -> dict:
            loc = locate(self.session.episode.page)
            await loc.wait_for(state="attached")
            return await loc.bounding_box()

        b = self.studio.run(box())
        v = self.view.bounding_box()
        scale = v["width"] / 1280
        return v["x"] + (b["x"] + b["width"] / 2) * scale, v["y"] + (b["y"] + b["height"] / 2) * scale

    def at(self, x: int, y: int) -> tuple[float, float]:
        """Screen point (in the studio page) of a viewport point of the sandboxed page."""
        v = self.view.bounding_box()
        scale = v["width"] / 1280
        return v["x"] + x * scale, v["y"] + y * scale

    def click(self, locate) -> None:  # noqa: ANN001
        x, y = self.where(locate)
        self.page.mouse.move(x, y)
        self.page.mouse.click(x, y)

    def sees_address(self, pattern: str) -> None:
        try:
            expect(self.page.get_by_label("Address")).to_have_text(re.compile(pattern))
        except AssertionError:
            print("steps:", self.page.locator("#steps").inner_text(), "| pending:", self.page.locator("#pending").inner_text())
            print("warnings:", self.session.warnings, "focus:", self.page.evaluate("document.activeElement && document.activeElement.id"))
            self.page.screenshot(path="/tmp/studio-fail.png")
            raise


def test_record_a_crm_task_on_the_live_view_then_replay_it(studio: StudioServer, browser) -> None:  # noqa: ANN001
    inst = studio.studio.tasks.instance(TASK, 0)
    opp, amount = inst.params["opp"], inst.params["new_amount"]
    page = browser.new_page(viewport={"width": 1720, "height": 1000})
    page.goto(studio.url + "/")
    page.get_by_label("Task", exact=True).select_option(TASK)
    page.get_by_role("button", name="Record task").click()
    page.wait_for_url(re.compile(r"/sessions/"))
    person = Person(page, studio)
    expect(page.get_by_text(inst.instruction.strip()[:40])).to_be_visible()
    person.sees_address(re.escape(inst.start_url) + "$")

    # Global search: click the box, type the name, Enter; open the result.
    person.click(lambda p: p.get_by_role("banner").get_by_role("searchbox", name="Search"))
    page.keyboard.type(opp["name"])
    page.keyboard.press("Enter")
    person.sees_address(r"/search\?q=")
    person.click(lambda p: p.get_by_role("main").get_by_role("link", name=opp["name"], exact=True).first)
    person.sees_address(rf"/opportunities/{opp['id']}$")
    # Inline edit of the amount: pencil, select all, type, Save.
    person.click(lambda p: p.get_by_role("button", name="Edit Amount"))
    form = lambda p: p.get_by_role("form", name="Edit Amount")  # noqa: E731
    person.click(lambda p: form(p).get_by_label("Amount"))
    page.keyboard.press("Control+a")
    page.keyboard.type(str(amount))
    person.click(lambda p: form(p).get_by_role("button", name="Save"))
    expect(page.locator("#steps li")).to_have_count(8)  # click, type, key, click, click, click, key, type
    expect(page.locator("#pending")).to_contain_text("left click")  # Save: committed by the next input
    page.get_by_label("Why (a sentence of reasoning for the last step)").fill("Saving commits the new amount.")
    page.get_by_role("button", name="Add note").click()
    session = person.session
    with session.episode.world.connect() as conn:  # the world really changed (Save went through at once)
        assert conn.execute("select amount from crm_opportunity where id = ?", (opp["id"],)).fetchone()[0] == amount
    page.get_by_label("Answer").fill("Done.")
    page.get_by_role("button", name="Finish with answer").click()
    verdict = page.get_by_role("region", name="Verdict")
    expect(verdict).to_contain_text("Passed")
    expect(verdict.locator("li.pass").first).to_be_visible()
    assert session.episode.world.path.exists() is False  # a finished recording lets go of its world

    ep = load_episode(session.folder)
    assert ep.finished and ep.record.source == "human" and ep.record.task == TASK and ep.verdict.passed
    actions = [s.parsed for s in ep.steps]
    kinds = [a["action"] for a in actions]
    assert kinds == ["left_click", "type", "key", "left_click", "left_click", "left_click", "key", "type", "left_click", "answer"]
    assert actions[1] == {"action": "type", "text": opp["name"]} and actions[2] == {"action": "key", "key": "Return"}
    assert actions[6] == {"action": "key", "key": "ctrl+a"} and actions[7] == {"action": "type", "text": str(amount)}
    assert ep.steps[8].thought == "Saving commits the new amount."
    # what each click was on, and the target the player finds it by (checked on the page while recording)
    assert ep.steps[4].target == {"role": "button", "name": "Edit Amount", "tag": "button",
                                  "oracle": {"role": "button", "name": "Edit Amount"}}
    assert ep.steps[8].target["name"] == "Save"
    assert any(s.changes for s in ep.steps[8:9]), "the Save step carries the world change"
    assert all(ep.screenshot_path(i) for i in range(len(ep.steps) + 1))

    from sandbox.replay import replay_async

    result = studio.run(replay_async(ep.path, runtime=studio.studio.runtime, source=studio.studio.tasks), timeout=120)
    assert result.same, result.differences
    assert result.replayed["passed"]
    page.close()


def open_opportunity(store) -> dict:  # noqa: ANN001
    """An open opportunity of seed 0 with an amount (the page the exploration starts on), owned by the
    studio's default user, the first sales rep (opportunities are private to their owners), without
    products (whose amount rolls up from them and has no pencil)."""
    import sqlite3

    conn = sqlite3.connect(store.template(0))
    try:
        row = conn.execute(
            "select o.id, o.name, o.amount from crm_opportunity o where o.stage not like 'Closed%' and o.amount > 0 "
            "and o.owner_id = (select min(id) from identity_user where role = 'sales_rep' and active) "
            "and not exists (select 1 from crm_opportunity_line_item i where i.opportunity_id = o.id) order by o.id limit 1"
        ).fetchone()
    finally:
        conn.close()
    return {"id": row[0], "name": row[1], "amount": row[2]}


def test_free_exploration_drafts_a_task(studio: StudioServer, browser, store) -> None:  # noqa: ANN001
    opp = open_opportunity(store)
    page = browser.new_page(viewport={"width": 1720, "height": 1000})
    page.goto(studio.url + "/")
    form = page.get_by_role("form", name="Explore a world")
    form.get_by_label("Start page").fill(f"/opportunities/{opp['id']}")
    form.get_by_role("button", name="Explore").click()
    page.wait_for_url(re.compile(r"/sessions/"))
    person = Person(page, studio)
    person.sees_address(rf"/opportunities/{opp['id']}$")
    new_amount = int(opp["amount"]) + 1234
    person.click(lambda p: p.get_by_role("button", name="Edit Amount"))
    edit = lambda p: p.get_by_role("form", name="Edit Amount")  # noqa: E731
    person.click(lambda p: edit(p).get_by_label("Amount"))
    page.keyboard.press("Control+a")
    page.keyboard.type(str(new_amount))
    person.click(lambda p: edit(p).get_by_role("button", name="Save"))
    expect(page.locator("#pending")).to_contain_text("left click")
    page.get_by_role("button", name="Finish with answer").click()
    expect(page.get_by_role("region", name="Verdict")).to_contain_text("no verifier")

    page.get_by_role("link", name="Draft a task from this recording").click()
    expect(page.get_by_role("heading", name="What the recording changed")).to_be_visible()
    expect(page.get_by_role("main")).to_contain_text(f"crm_opportunity #{opp['id']}")
    page.get_by_label("Instruction").fill(f'Change the amount of the opportunity "{opp["name"]}" to ${new_amount:,}.')
    page.get_by_role("button", name="Save draft").click()
    expect(page.get_by_role("status")).to_contain_text("Saved to")

    drafts = studio.studio.options.drafts_dir
    (path,) = list((drafts / "crm").glob("*.yaml"))
    data = yaml.safe_load(path.read_text())
    # The name typed into the instruction is the drawn record's, and so is the persona: its owner.
    (p,) = [k for k in data["params"] if not k.startswith(("other_", "alt_"))]
    assert data["instruction"] == f'Change the amount of the opportunity "{{{{ {p}.name }}}}" to ${new_amount:,}.'
    assert data["persona"] == f"{{{{ {p}.owner }}}}" and data["start_url"] == f"/opportunities/{{{{ {p}.id }}}}"
    assert f"!= {new_amount}" in data["params"][p]["sql"] and "where id =" not in data["params"][p]["sql"]
    # only deals without products: their amount is typed, not rolled up
    assert "not exists (select 1 from \"crm_opportunity_line_item\"" in data["params"][p]["sql"]
    assert {"kind": "changes"}.items() <= data["verifier"][-1].items()
    kinds = [nm["kind"] for nm in data["near_misses"]]
    assert kinds[:2] == ["wrong_record", "wrong_value"] and "damage" in kinds
    # The presses are semantic targets the player finds (checked while recording), not coordinates.
    assert data["oracle"][0]["click"] == {"role": "button", "name": "Edit Amount"}
    assert "on button 'Edit Amount'" in data["oracle"][0]["note"]  # the author still sees what each press was on
    kinds = [next(iter(step)) for step in data["oracle"]]
    assert kinds == ["click", "click", "key", "type", "click"] and data["oracle"][3] == {"type": str(new_amount)}
    assert data["oracle"][4]["click"]["name"] == "Save"
    validate_drafts(studio, drafts, data["id"], seeds=[0, 1, 2, 3, 4])
    page.close()


def validate_drafts(studio: StudioServer, root: Path, task_id: str, *, seeds: list[int]) -> None:
    """What `sandbox validate --dir <drafts> --tasks <id> --seeds 0-4` runs: at every seed the oracle
    passes with score 1, the no-op agent and every near-miss fail."""
    from tasks.registry import TaskRegistry
    from tasks.validate import validate_async

    registry = TaskRegistry(root, store=studio.studio.runtime.store)
    report = studio.run(validate_async(registry, [task_id], seeds, workers=2, quick=True, with_adversaries=False,
                                      runtime=studio.studio.runtime), timeout=600)
    solutions = {o.solution for o in report.outcomes}
    assert {"oracle", "noop", "wrong-record-1", "wrong-value-1", "extra-change-1", "skip-last-save"} <= solutions
    assert {o.seed for o in report.outcomes if o.solution == "oracle" and o.passed} == set(seeds)
    assert report.ok, [(o.seed, o.solution, o.passed, o.error, o.reason) for o in report.disagreements]


# -- every kind of input, on the playground: live view, headed capture, replay -------------------------
PLAYGROUND_ACTIONS = [
    {"action": "left_click", "x": 100, "y": 75},
    {"action": "double_click", "x": 100, "y": 75},
    {"action": "left_click", "x": 100, "y": 75, "modifiers": ["shift"]},
    {"action": "right_click", "x": 100, "y": 75},
    {"action": "left_click_drag", "start_x": 50, "start_y": 150, "end_x": 150, "end_y": 160},
    {"action": "scroll", "x": 170, "y": 275, "direction": "down", "amount": 3},
    {"action": "left_click", "x": 570, "y": 210},
    {"action": "type", "text": "Hi there"},
    {"action": "key", "key": "ctrl+a"},
    {"action": "type", "text": "Bye"},
]
FINAL_STATE_JS = """() => ({
    text: document.getElementById('text').value,
    handle: [document.getElementById('handle').offsetLeft, document.getElementById('handle').offsetTop],
    scrolled: document.getElementById('scroller').scrollTop,
    kinds: window.sbxLog.map(e => e.kind).filter(k => ['click', 'dblclick', 'contextmenu', 'drop'].includes(k)),
})"""


def same_actions(recorded: list[dict]) -> None:
    """The recorded actions are the expected ones (a drag's waypoints depend on the pointer's path)."""
    got = [{k: v for k, v in a.items() if k != "path"} for a in recorded]
    assert got == PLAYGROUND_ACTIONS


def replayed_state(studio: StudioServer, spec, actions: list[dict]) -> dict:  # noqa: ANN001
    """Play the actions with the environment in a fresh episode and read the page's final state."""
    from sandbox.episode import Episode

    async def play() -> dict:
        episode, _obs, _info = await Episode.open(studio.studio.runtime, spec)
        try:
            for action in actions:
                result = await episode.step(action)
                assert not result.info["error"], result.info["error"]
            return await episode.page.evaluate(FINAL_STATE_JS)
        finally:
            await episode.close()

    return studio.run(play())


EXPECTED_STATE = {"text": "Bye", "handle": [120, 130], "scrolled": 300}  # and the same click events as a replay


def final_state(studio: StudioServer, page) -> dict:  # noqa: ANN001
    state = studio.run(page.evaluate(FINAL_STATE_JS))
    assert {k: state[k] for k in EXPECTED_STATE} == EXPECTED_STATE
    return state


def test_every_input_kind_on_the_live_view_records_and_replays(studio: StudioServer, browser) -> None:  # noqa: ANN001
    page = browser.new_page(viewport={"width": 1720, "height": 1000})
    page.goto(studio.url + "/")
    form = page.get_by_role("form", name="Explore a world")
    form.get_by_label("App").select_option("playground")
    form.get_by_role("button", name="Explore").click()
    page.wait_for_url(re.compile(r"/sessions/"))
    person = Person(page, studio)
    person.sees_address(r"playground\.localhost:\d+/$")
    m, k = page.mouse, page.keyboard
    m.click(*person.at(100, 75))
    m.dblclick(*person.at(100, 75))
    k.down("Shift")
    m.click(*person.at(100, 75))
    k.up("Shift")
    m.click(*person.at(100, 75), button="right")
    m.move(*person.at(50, 150))
    m.down()
    for i in range(1, 6):
        m.move(*person.at(50 + 20 * i, 150 + 2 * i))
    m.up()
    m.move(*person.at(170, 275))
    m.wheel(0, 100)
    m.wheel(0, 200)
    m.click(*person.at(570, 210))
    k.type("Hi there")
    k.press("Control+a")
    k.type("Bye")
    # A rest over "Hover me" changes the page (its mouseenter handler): a hover step, committed by the
    # next press elsewhere. Resting over plain text changes nothing: no step.
    m.move(*person.at(700, 600))
    m.move(*person.at(100, 400))
    expect(page.locator("#pending")).to_contain_text("mouse move at (100, 400)")
    m.click(*person.at(900, 650))
    expect(page.locator("#pending")).to_contain_text("left click at (900, 650)")
    session = person.session
    live = final_state(studio, session.episode.page)  # the person's input reached the page
    page.get_by_role("button", name="Finish with answer").click()
    expect(page.get_by_role("region", name="Verdict")).to_contain_text("Finished")
    ep = load_episode(session.folder)
    recorded = [s.parsed for s in ep.steps][:-1]
    assert recorded[-2:] == [{"action": "mouse_move", "x": 100, "y": 400}, {"action": "left_click", "x": 900, "y": 650}]
    recorded = recorded[:-2]
    same_actions(recorded)
    assert recorded[4]["path"], "a drag keeps waypoints"
    assert replayed_state(studio, session.spec, recorded) == live  # the env replays it to the same page
    page.close()


def test_headed_capture_turns_real_dom_events_into_the_same_actions(studio: StudioServer) -> None:
    """Headed mode's capture script, run here in the headless browser: trusted DOM events in, actions out."""
    from sandbox.spec import free_spec
    from sandbox.studio.session import StudioSession

    spec = free_spec("playground", "/")

    async def person_uses_the_window() -> StudioSession:
        session = await StudioSession(runtime=studio.studio.runtime, spec=spec, run=studio.studio.run, mode="headed").start()
        page = session.episode.page
        m, k = page.mouse, page.keyboard
        await m.click(100, 75)
        await m.dblclick(100, 75)
        await k.down("Shift")
        await m.click(100, 75)
        await k.up("Shift")
        await m.click(100, 75, button="right")
        await m.move(50, 150)
        await m.down()
        await m.move(150, 160, steps=5)
        await m.up()
        await m.move(170, 275)
        await m.wheel(0, 100)
        await m.wheel(0, 200)
        await m.click(570, 210)
        await k.type("Hi there")
        await k.press("Control+a")
        await k.type("Bye")
        # The page reports its events through a binding, asynchronously: wait until the session has
        # handled the last one (it announces every change of the step in progress).
        updates = session.live.subscribe()
        while session.recorder.describe_pending() != {"action": "type", "text": "Bye"}:
            await asyncio.wait_for(updates.next(), 15)
        session.live.unsubscribe(updates)
        session.final = await page.evaluate(FINAL_STATE_JS)
        await session.command("finish", {"kind": "answer", "text": "Done."})
        await session.close()
        return session

    session = studio.run(person_uses_the_window())
    assert {k: session.final[k] for k in EXPECTED_STATE} == EXPECTED_STATE
    ep = load_episode(session.folder)
    assert ep.record.agent.config == {"mode": "headed"}
    same_actions([s.parsed for s in ep.steps][:-1])
    assert all(ep.screenshot_path(i) for i in range(len(ep.steps) + 1))


def test_undo_replays_all_but_the_last_step_and_restart_starts_over(studio: StudioServer, browser) -> None:  # noqa: ANN001
    page = browser.new_page(viewport={"width": 1100, "height": 720})  # a small window: the view is scaled down
    page.goto(studio.url + "/")
    form = page.get_by_role("form", name="Explore a world")
    form.get_by_label("App").select_option("playground")
    form.get_by_label("Start page").fill("/counter")
    form.get_by_role("button", name="Explore").click()
    page.wait_for_url(re.compile(r"/sessions/"))
    person = Person(page, studio)
    person.sees_address("/counter$")
    assert person.view.bounding_box()["width"] < 800
    counter = lambda: studio.run(person.session.episode.page.inner_text("#block"))  # noqa: E731
    for _ in range(3):
        page.mouse.click(*person.at(520, 30))
    page.mouse.click(*person.at(520, 130))  # "Increment (new page)": a link to /counter?n=4
    person.sees_address(r"/counter\?n=4&")
    expect(page.locator("#steps li")).to_have_count(3)  # the link click is still pending
    page.get_by_role("button", name="Undo last step").click()  # drops the pending link click
    expect(page.locator("#steps li")).to_have_count(3)
    person.sees_address("/counter$")
    assert counter() == "3"
    page.get_by_role("button", name="Undo last step").click()
    expect(page.locator("#steps li")).to_have_count(2)
    assert counter() == "2"
    page.get_by_label("Why (a sentence of reasoning for the last step)").fill("Two is enough.")
    page.get_by_role("button", name="Add note").click()
    expect(page.locator("#steps li").nth(1)).to_contain_text("Two is enough.")
    page.locator("#steps li").first.click()  # a note for an earlier step
    page.get_by_label("Why (a sentence of reasoning for step 1)").fill("Start counting.")
    page.get_by_role("button", name="Add note").click()
    expect(page.locator("#steps li").first).to_contain_text("Start counting.")
    assert [s.thought for s in person.session.steps] == ["Start counting.", "Two is enough."]
    page.get_by_role("button", name="Restart").click()
    expect(page.locator("#steps li")).to_have_count(0)
    assert counter() == "0"
    page.mouse.click(*person.at(520, 30))
    page.get_by_role("button", name="Finish with answer").click()
    expect(page.get_by_role("region", name="Verdict")).to_contain_text("Finished")
    ep = load_episode(person.session.folder)
    assert [s.parsed["action"] for s in ep.steps] == ["left_click", "answer"]
    page.close()


def test_bad_input_is_refused_and_the_step_limit_ends_a_recording(studio: StudioServer) -> None:
    import httpx

    from sandbox.spec import free_spec
    from sandbox.studio.session import StudioSession

    http = httpx.Client(timeout=60)  # opening a session on a loaded machine can take seconds
    assert http.post(studio.url + "/api/sessions/nope/input", json=[]).status_code == 404
    headed = http.post(studio.url + "/sessions", data={"app": "playground", "mode": "headed"})
    assert headed.status_code == 400 and "headed recording is off" in headed.text
    reply = http.post(studio.url + "/sessions", data={"app": "playground", "start_url": "/counter"})
    assert reply.status_code == 303
    sid = reply.headers["location"].rsplit("/", 1)[-1]
    bad = http.post(f"{studio.url}/api/sessions/{sid}/input", json=[{"type": "down", "x": -5, "y": 10}])
    assert bad.status_code == 422 and "malformed input event" in bad.json()["error"]
    assert http.post(f"{studio.url}/api/sessions/{sid}/undo").json() == {"error": "there is nothing to undo"}
    assert http.post(f"{studio.url}/api/sessions/{sid}/close").json() == {"closed": sid}

    async def three_clicks_of_three() -> StudioSession:
        spec = free_spec("playground", "/counter", max_steps=3)
        session = await StudioSession(runtime=studio.studio.runtime, spec=spec, run=studio.studio.run).start()
        click = [{"type": "down", "x": 520, "y": 30}, {"type": "up", "x": 520, "y": 30}]
        session.submit(click * 4)  # the fourth click commits the third step: the limit
        updates = session.live.subscribe()
        while not session.finished:
            await asyncio.wait_for(updates.next(), 15)
        await session.close()
        return session

    session = studio.run(three_clicks_of_three())
    ep = load_episode(session.folder)
    assert ep.finished and ep.record.end_reason == "max_steps" and len(ep.steps) == 3

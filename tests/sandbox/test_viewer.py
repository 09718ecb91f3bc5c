"""The viewer: a big run's index is filtered, sorted and paged without reading episodes; in real
Chromium a person opens a real run, opens an episode, steps through it by keyboard and sees the checks."""

from __future__ import annotations

import io
import threading
import time

import orjson
import pytest
import uvicorn
from fastapi.testclient import TestClient
from PIL import Image, ImageDraw
from playwright.sync_api import expect

from sandbox.run import BackgroundRuntime, RunConfig, catalog
from sandbox.trajectory import AgentInfo, EpisodeRecord, RunDir, StepRecord, episode_name
from sandbox.viewer import create_app
from sandbox.viewer.overlay import shapes

# One test worker runs the whole module, so its module-scoped runs (or runtime) are made once.
pytestmark = pytest.mark.xdist_group("viewer-runs")


def shot(i: int) -> bytes:
    img = Image.new("RGB", (640, 400), (245, 245, 250))
    ImageDraw.Draw(img).rectangle([50 + 40 * i, 50, 150 + 40 * i, 120], fill=(20, 90, 200))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


@pytest.fixture(scope="module")
def big_run(tmp_path_factory) -> RunDir:  # noqa: ANN001
    """2,500 results (most without an episode folder: the index must not need them) and 2 real episodes."""
    run = RunDir.create(tmp_path_factory.mktemp("big") / "run", {"agent": "synthetic", "tasks": ["crm.*"], "seeds": "0-499"})
    for n in range(2):
        rec = EpisodeRecord(id=episode_name(f"crm.task-{n}", n), task=f"crm.task-{n}", seed=n, agent=AgentInfo(name="synthetic"),
                            instruction="Set the phone to <script>alert(1)</script>", app="crm", difficulty="easy", tags=["edit"])  # fmt: skip
        w = run.episode_writer(rec)
        w.screenshot(0, shot(0))
        acts = [{"action": "left_click", "x": 100, "y": 80}, {"action": "type", "text": "555-0100"},
                {"action": "left_click_drag", "start_x": 10, "start_y": 10, "end_x": 300, "end_y": 200}]  # fmt: skip
        for i, a in enumerate(acts, 1):
            w.step(StepRecord(step=i, action=a, parsed=a, url="http://crm.localhost/a", milestones=["phone-saved"] if i == 2 else None),
                   screenshot=shot(i))
        milestones = [{"name": "phone-saved", "sentence": "the phone is 555-0100", "weight": 2.0, "reached": True, "step": 2},
                      {"name": "noted", "sentence": "a note says why", "weight": 1.0, "reached": False, "step": None}]
        run.add_result(w.finish(verdict={"passed": True, "score": 1.0, "reason": "ok", "checks": []}, milestones=milestones))
    lines = []
    for n in range(2, 2500):
        lines.append({"id": episode_name(f"crm.task-{n % 25}", n), "task": f"crm.task-{n % 25}", "seed": n, "passed": n % 3 == 0,
                      "score": (n % 3) / 2, "steps": n % 17, "outcome": "error" if n % 50 == 0 else ("passed" if n % 3 == 0 else "failed"),
                      "app": "crm", "difficulty": ("easy", "medium", "hard")[n % 3], "tags": ["edit" if n % 2 else "search"],
                      "duration_s": n / 100, "reason": "r"})  # fmt: skip
    with open(run.results_path, "ab") as f:
        f.write(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    return run


def test_index_filters_sorts_and_pages_a_big_run(big_run):  # noqa: ANN001
    client = TestClient(create_app(big_run.path))
    page = client.get("/?per=50")
    assert page.status_code == 200 and 'data-testid="matched">2500 of 2500' in page.text
    assert page.text.count('class="ep-link"') == 50 and "Page 1 of 50" in page.text
    data = client.get("/api/results?outcome=passed&difficulty=easy&sort=score&dir=desc&per=25").json()
    assert data["matched"] == sum(1 for n in range(2, 2500) if n % 3 == 0 and n % 50) + 2
    assert all(r["outcome"] == "passed" and r["difficulty"] == "easy" for r in data["results"]) and len(data["results"]) == 25
    by_steps = client.get("/api/results?sort=steps&dir=desc&per=200").json()["results"]
    assert [r["steps"] for r in by_steps] == sorted((r["steps"] for r in by_steps), reverse=True) and by_steps[0]["steps"] == 16
    assert client.get("/api/results?q=crm.task-1?&per=200").json()["matched"] == 1000  # glob: task-10..19
    assert client.get("/api/results?tag=search&min_score=0.4&max_score=0.6").json()["matched"] == sum(
        1 for n in range(2, 2500) if n % 2 == 0 and n % 3 == 1)
    # New lines appended while the viewer runs show up on the next request.
    with open(big_run.results_path, "ab") as f:
        f.write(orjson.dumps({"id": "late__s1", "task": "late", "seed": 1, "passed": True, "score": 1, "steps": 1}) + b"\n")
    assert client.get("/api/results").json()["total"] == 2501

    ep = client.get("/episodes/crm.task-0__s0")
    assert ep.status_code == 200 and "&lt;script&gt;alert(1)&lt;/script&gt;" in ep.text and "<script>alert(1)" not in ep.text
    # milestones: the step that reached one is marked on the timeline (with its name) and they are listed
    assert ep.text.count('data-testid="milestone-flag"') == 1 and "⚑ phone-saved" in ep.text and 'class=" milestone"' in ep.text
    assert "1 of 2 reached" in ep.text and 'data-show="2">step 2<' in ep.text and "never reached" in ep.text and "weight 2.0" in ep.text
    assert client.get("/episodes/crm.task-0__s0/screenshots/2.png").content[:4] == b"\x89PNG"
    assert client.get("/episodes/crm.task-0__s0/thumbs/1.jpg").headers["content-type"] == "image/jpeg"
    diff = client.get("/episodes/crm.task-0__s0/diff/0/1.png")
    assert diff.status_code == 200 and 0 < float(diff.headers["x-changed-share"]) < 0.2
    for bad in ("/episodes/nope", "/episodes/..%2F..%2Fetc", "/episodes/crm.task-0__s0/screenshots/99.png", "/episodes/.hidden"):
        assert client.get(bad).status_code == 404, bad


def test_overlay_shapes():
    assert shapes({"action": "left_click", "x": 10, "y": 20}, 640, 400)["kind"] == "click"
    assert shapes({"action": "double_click", "x": 10, "y": 20}, 640, 400)["rings"] == 2
    drag = shapes({"action": "left_click_drag", "start_x": 1, "start_y": 2, "end_x": 30, "end_y": 40, "path": [{"x": 5, "y": 6}]}, 640, 400)
    assert drag["kind"] == "drag" and drag["points"] == "1,2 5,6 30,40"
    scroll = shapes({"action": "scroll", "x": 100, "y": 100, "direction": "up", "amount": 2}, 640, 400)
    assert scroll["kind"] == "scroll" and scroll["ey"] < 100 and scroll["ex"] == 100
    typed = shapes({"action": "type", "text": "hello"}, 640, 400, cursor=(50, 60))
    assert typed["kind"] == "text" and "hello" in typed["label"] and (typed["x"], typed["y"]) == (50, 60)
    assert shapes({"action": "key", "key": "ctrl+a"}, 640, 400)["kind"] == "banner"
    assert shapes(None, 640, 400)["kind"] == "none"


@pytest.fixture(scope="module")
def real_run(store, tmp_path_factory):  # noqa: ANN001
    """A real oracle run of one task that changes the world."""
    from tasks.registry import TaskRegistry

    source = TaskRegistry(store=store)
    task = catalog(source)[0].id
    with BackgroundRuntime(store=store) as env:
        result = env.run(RunConfig(agent="oracle", tasks=[task], seeds="2", workers=1, out=tmp_path_factory.mktemp("real") / "run"), source=source)
    assert result.results[0]["passed"]
    return result


def _serve(path):  # noqa: ANN001, ANN202
    from tests.conftest import free_port

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(path), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the viewer did not start"
        time.sleep(0.01)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=5)


@pytest.fixture(scope="module")
def viewer_url(real_run):  # noqa: ANN001
    yield from _serve(real_run.out)


@pytest.mark.browser
def test_a_milestone_in_the_list_opens_the_step_that_reached_it(browser, big_run):  # noqa: ANN001
    for url in _serve(big_run.path):
        page = browser.new_page()
        page.goto(url + "/episodes/crm.task-0__s0#step-3")
        counter = page.get_by_test_id("step-counter")
        expect(counter).to_have_text("Step 3 of 3")
        expect(page.get_by_role("button", name="Step 2: ", exact=False)).to_have_attribute("title", "Milestones reached: phone-saved")
        page.get_by_test_id("milestones").get_by_role("button", name="step 2").click()
        expect(counter).to_have_text("Step 2 of 3")
        expect(page.get_by_test_id("step-milestones")).to_have_text("reached phone-saved")
        page.close()


@pytest.mark.browser
def test_person_opens_a_run_steps_through_an_episode_and_sees_the_checks(browser, viewer_url, real_run):  # noqa: ANN001
    line = real_run.results[0]
    page = browser.new_page(viewport={"width": 1500, "height": 950})
    page.goto(viewer_url + "/")
    expect(page.get_by_test_id("success-rate")).to_have_text("100%")
    expect(page.locator("#episodes tbody tr")).to_have_count(1)
    page.get_by_role("link", name=line["task"]).click()
    page.wait_for_url(f"**/episodes/{line['id']}*")
    expect(page.get_by_test_id("outcome")).to_have_text("passed")

    counter = page.get_by_test_id("step-counter")
    expect(counter).to_have_text(f"Step 1 of {line['steps']}")
    expect(page.locator(".step-detail:not([hidden]) h2")).to_contain_text("Step 1")
    page.keyboard.press("ArrowRight")
    expect(counter).to_have_text(f"Step 2 of {line['steps']}")
    page.keyboard.press("End")
    expect(counter).to_have_text(f"Step {line['steps']} of {line['steps']}")
    expect(page.locator(".step-detail:not([hidden]) h2")).to_contain_text(f"Step {line['steps']}")
    page.keyboard.press("ArrowLeft")
    expect(counter).to_have_text(f"Step {line['steps'] - 1} of {line['steps']}")
    page.keyboard.press("Home")
    expect(counter).to_have_text(f"Start ({line['steps']} steps)")

    # The large screenshot of a step shows the action drawn on it; its world changes are listed.
    changing = next(i for i, s in enumerate(_steps(real_run, line), 1) if s.changes)
    for _ in range(changing):
        page.keyboard.press("ArrowRight")
    expect(counter).to_have_text(f"Step {changing} of {line['steps']}")
    shown = page.locator(".shot:not([hidden])")
    img = shown.locator(".frame.before img")
    expect(img).to_be_visible()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=img.element_handle())
    expect(shown.locator("svg.overlay, .banner").first).to_be_attached()
    expect(page.locator(".step-detail:not([hidden]) table.changes tbody tr").first).to_be_visible()

    # Before/after difference, by keyboard.
    page.keyboard.press("d")
    diff = shown.locator(".frame.diff img")
    expect(diff).to_be_visible()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=diff.element_handle())

    # The verdict's checks, each with what was expected and what was found.
    checks = page.locator("[data-testid=checks] > li.check")
    expect(checks.first).to_be_visible()
    assert checks.count() >= 1
    expect(checks.first.locator(".mark")).to_have_text("✔")
    expect(page.locator("[data-testid=checks] dl.ea dt", has_text="expected").first).to_be_visible()

    # The filmstrip jumps to a step; Escape goes back to the run.
    page.locator(".filmstrip [data-goto='1']").click()
    expect(counter).to_have_text(f"Step 1 of {line['steps']}")
    page.keyboard.press("Escape")
    page.wait_for_url(viewer_url + "/")
    page.close()


def _steps(real_run, line):  # noqa: ANN001, ANN202
    from sandbox.trajectory import load_episode

    return load_episode(real_run.out / "episodes" / line["id"]).steps

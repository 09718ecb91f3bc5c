"""Grading, agreement and comparing runs on real runs (the oracle and noop agents on a real task):
in real Chromium a person grades episodes blind with clicks and keys and ranks them by dragging;
`sandbox agreement` reports numbers worked out by hand; two runs are compared side by side."""

from __future__ import annotations

import contextlib
import datetime
import json
import re
import shutil
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest
import uvicorn
from fastapi.testclient import TestClient
from playwright.sync_api import expect

from sandbox.run import BackgroundRuntime, RunConfig
from sandbox.trajectory import LabelStore, rank_labels
from sandbox.viewer import create_app
from sandbox.viewer.agreement import report

# One test worker runs the whole module, so its module-scoped runs (or runtime) are made once.
pytestmark = pytest.mark.xdist_group("grading-runs")

TASK = "crm.opportunity-close-won"


@pytest.fixture(scope="module")
def runs(store, tmp_path_factory) -> dict[str, Path]:  # noqa: ANN001
    """The oracle and noop on seeds 0-1, and noop again on seed 0 only."""
    from tasks.registry import TaskRegistry

    source = TaskRegistry(store=store)
    root = tmp_path_factory.mktemp("graded")
    out = {}
    with BackgroundRuntime(store=store) as env:
        for name, agent, seeds in (("oracle", "oracle", "0-1"), ("noop", "noop", "0-1"), ("noop-again", "noop", "0")):
            result = env.run(RunConfig(agent=agent, tasks=[TASK], seeds=seeds, workers=1, out=root / name), source=source)
            assert all(r["passed"] == (agent == "oracle") for r in result.results), result.results
            out[name] = result.out
    return out


def copies(runs: dict[str, Path], tmp_path: Path, *names: str) -> list[Path]:
    """Fresh copies of the runs (same folder names, so the same viewer keys), for a test's own labels."""
    return [Path(shutil.copytree(runs[n], tmp_path / n)) for n in names]


@contextlib.contextmanager
def served(app) -> Iterator[str]:  # noqa: ANN001
    from tests.conftest import free_port

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the viewer did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=5)


def latest(run: Path) -> dict[str, dict]:
    """The last line per episode of a run's labels.jsonl (one grader in these tests)."""
    out = {}
    for line in (run / "labels.jsonl").read_text().splitlines():
        obj = json.loads(line)
        out[obj["episode"]] = obj
    return out


S0, S1 = f"{TASK}__s0", f"{TASK}__s1"


@pytest.mark.browser
def test_grade_blind_with_clicks_and_keys_then_rank_by_dragging(browser, runs, tmp_path):  # noqa: ANN001
    oracle, noop = copies(runs, tmp_path, "oracle", "noop")
    page = browser.new_page(viewport={"width": 1500, "height": 950})
    with served(create_app([oracle, noop], grade=True, grader="ana")) as url:
        page.goto(url + "/")
        expect(page.get_by_test_id("grading-mode")).to_contain_text("ana")
        expect(page.get_by_test_id("graded")).to_have_text("0 of 4 graded")
        expect(page.locator(".badge.passed, .badge.failed")).to_have_count(0)  # blind: no verifier verdicts

        # The first episode of the queue (task, seed, then run): the oracle's seed 0.
        page.get_by_test_id("start-grading").click()
        page.wait_for_url(f"**/runs/oracle/episodes/{S0}*")
        expect(page.get_by_test_id("outcome")).to_have_count(0)
        expect(page.locator("section.verdict")).to_have_count(0)
        assert "checks passed" not in page.content()
        panel = page.locator("section.grade")
        expect(panel.get_by_test_id("grade-status")).to_have_text("not graded yet")

        page.keyboard.press("p")  # pass: the score follows (1) until the grader types one
        expect(panel).to_have_attribute("data-saves", "1")
        expect(panel.get_by_role("button", name="Pass")).to_have_attribute("aria-pressed", "true")
        expect(panel.get_by_label("Score")).to_have_value("1")
        panel.get_by_label("Score").fill("0.9")
        panel.get_by_label("Score").press("Enter")
        expect(panel).to_have_attribute("data-saves", "2")
        panel.get_by_label("Comment").fill("closed the right deal")
        panel.get_by_label("Comment").press("Escape")  # leaves the field, which saves it
        expect(panel).to_have_attribute("data-saves", "3")
        expect(panel.get_by_test_id("grade-status")).to_contain_text("saved")

        page.keyboard.press("n")  # the next episode: the noop's seed 0
        page.wait_for_url(f"**/runs/noop/episodes/{S0}*")
        panel = page.locator("section.grade")
        panel.get_by_role("button", name="Fail").click()
        expect(panel).to_have_attribute("data-saves", "1")
        expect(panel.get_by_label("Score")).to_have_value("0")
        page.keyboard.press("N")  # back: the oracle's label is shown as saved
        page.wait_for_url(f"**/runs/oracle/episodes/{S0}*")
        expect(page.locator("section.grade").get_by_label("Score")).to_have_value("0.9")
        expect(page.locator("section.grade").get_by_label("Comment")).to_have_value("closed the right deal")

        mine = latest(oracle)[S0]
        assert (mine["grader"], mine["passed"], mine["score"], mine["comment"]) == ("ana", True, 0.9, "closed the right deal")
        assert datetime.datetime.fromisoformat(mine["time"]).utcoffset() == datetime.timedelta(0)  # ISO 8601, UTC
        assert len((oracle / "labels.jsonl").read_text().splitlines()) == 3  # one line per save, the latest wins
        assert {k: latest(noop)[S0][k] for k in ("passed", "score", "comment")} == {"passed": False, "score": 0.0, "comment": None}
        assert not any(p.name == "labels.jsonl" for p in (oracle / "episodes").rglob("*"))  # beside the run, not in episodes

        # Rank the task's four episodes: the queue order first, then drag the last to the top.
        page.locator("section.grade").get_by_test_id("rank-link").click()
        page.wait_for_url(f"**/rank/{TASK}")
        items = page.locator("ol.ranking > li")
        expect(items).to_have_count(4)
        order = lambda: [li.get_attribute("data-key") for li in items.all()]  # noqa: E731
        assert order() == [f"oracle/{S0}", f"noop/{S0}", f"oracle/{S1}", f"noop/{S1}"]
        items.nth(3).drag_to(items.nth(0), target_position={"x": 30, "y": 4})
        ranking = page.locator("ol.ranking")
        expect(ranking).to_have_attribute("data-saves", "1")
        expect(page.get_by_test_id("rank-status")).to_have_text("ranking of 4 episodes saved")
        assert order() == [f"noop/{S1}", f"oracle/{S0}", f"noop/{S0}", f"oracle/{S1}"]
        items.nth(1).focus()  # and by keyboard: the oracle's seed 0 one place down
        page.keyboard.press("Alt+ArrowDown")
        expect(ranking).to_have_attribute("data-saves", "2")
        assert order() == [f"noop/{S1}", f"noop/{S0}", f"oracle/{S0}", f"oracle/{S1}"]
        page.reload()
        assert order() == [f"noop/{S1}", f"noop/{S0}", f"oracle/{S0}", f"oracle/{S1}"]

    o, n = latest(oracle), latest(noop)
    assert (n[S1]["rank"], n[S0]["rank"], o[S0]["rank"], o[S1]["rank"]) == (1, 2, 3, 4)
    assert len({o[S0]["ranking"], o[S1]["ranking"], n[S0]["ranking"], n[S1]["ranking"]}) == 1  # one ranking across both runs
    assert (o[S0]["passed"], o[S0]["score"], o[S0]["comment"]) == (True, 0.9, "closed the right deal")  # ranking kept the grade
    assert n[S1]["passed"] is None and o[S1]["passed"] is None  # ranked, not graded
    page.close()


def test_agreement_on_labelled_real_runs(runs, tmp_path):  # noqa: ANN001
    """Verifier: the oracle passes (score 1), noop fails (a lower score). People: the oracle's seed 1 fails."""
    oracle, noop = copies(runs, tmp_path, "oracle", "noop")
    results = {(p.name, r["seed"]): r for p in (oracle, noop) for r in map(json.loads, (p / "results.jsonl").read_text().splitlines())}
    assert all(results["oracle", s]["score"] == 1.0 > results["noop", s]["score"] == results["noop", 0]["score"] for s in (0, 1))
    human = {("oracle", 0): (True, 0.9), ("oracle", 1): (False, 0.3), ("noop", 0): (False, 0.1), ("noop", 1): (False, 0.0)}
    for (name, seed), (passed, score) in human.items():
        LabelStore(tmp_path / name).add(f"{TASK}__s{seed}", "ana", passed=passed, score=score, comment="saved only half" if name == "oracle" and seed else None)
    ranks = {("oracle", 0): 1, ("noop", 0): 2, ("oracle", 1): 3, ("noop", 1): 4}
    for name in ("oracle", "noop"):
        store = LabelStore(tmp_path / name)
        store.append(rank_labels("ana", {f"{TASK}__s{s}": r for (n, s), r in ranks.items() if n == name}, store.for_grader("ana"), "one-ranking"))

    rep = report([oracle, noop])
    b = rep["templates"][TASK]
    # Accuracy 3/4. Kappa: pv 1/2, ph 1/4, pe 1/2*1/4 + 1/2*3/4 = 1/2, po 3/4: (3/4 - 1/2) / (1/2) = 1/2.
    assert (b["episodes"], b["labelled"], b["judgements"], b["agree"], b["accuracy"], b["kappa"]) == (4, 4, 4, 3, 0.75, 0.5)
    # Tau by rank: verifier (1, v, 1, v) with v < 1 against ranks 1, 2, 3, 4: 3 concordant pairs, 1 discordant,
    # 2 tied in the verifier: tau-b = (3 - 1) / sqrt((4 + 2) * 4) = 0.408. By score: 4 concordant, 2 ties: 4 / sqrt(24).
    assert b["tau_basis"] == "rank" and b["tau"] == pytest.approx(2 / 24**0.5) and b["tau_score"] == pytest.approx(4 / 24**0.5)
    assert rep["overall"]["kappa"] == 0.5 and rep["overall"]["tau_rank"] == pytest.approx(2 / 24**0.5)
    [d] = rep["disagreements"]
    assert (d["run"], d["episode"], d["verifier_passed"], d["human_passed"], d["comment"]) == ("oracle", S1, True, False, "saved only half")
    assert d["url"] == f"http://127.0.0.1:8790/runs/oracle/episodes/{S1}"
    # The link is where a viewer on the same runs serves that episode.
    page = TestClient(create_app([oracle, noop])).get(d["url"].removeprefix("http://127.0.0.1:8790"))
    assert page.status_code == 200 and f"{TASK} <span class=\"muted\">seed 1</span>" in page.text and "saved only half" in page.text


@pytest.mark.browser
def test_compare_two_runs_side_by_side(browser, runs, tmp_path):  # noqa: ANN001
    oracle, noop, again = copies(runs, tmp_path, "oracle", "noop", "noop-again")
    page = browser.new_page(viewport={"width": 1500, "height": 950})
    with served(create_app([oracle, noop])) as url:
        page.goto(url + "/")
        expect(page.get_by_test_id("success-oracle")).to_have_text("100%")
        expect(page.get_by_test_id("success-noop")).to_have_text("0%")
        rows = page.locator("#compare tbody tr")
        expect(rows).to_have_count(2)
        expect(rows.nth(0).locator("td.cell").nth(0)).to_contain_text("passed")
        expect(rows.nth(0).locator("td.cell").nth(1)).to_contain_text("failed")
        _group_rows_keep_their_height(page)

        rows.nth(1).get_by_role("link", name="side by side").click()
        page.wait_for_url(re.compile(r"/side\?left="))
        left, right = page.get_by_test_id("panel-1"), page.get_by_test_id("panel-2")
        expect(left.locator(".ep-head")).to_contain_text("oracle")
        expect(right.locator(".ep-head")).to_contain_text("noop")
        expect(left.locator(".ep-head")).to_contain_text("seed 1")
        expect(left.locator("section.verdict .badge")).to_have_text("passed")
        expect(right.locator("section.verdict .badge")).to_have_text("failed")
        steps = json.loads((oracle / "results.jsonl").read_text().splitlines()[1])["steps"]
        expect(left.get_by_test_id("step-counter")).to_have_text(f"Step 1 of {steps}")
        expect(right.get_by_test_id("step-counter")).to_have_text("Start (0 steps)")
        page.keyboard.press("ArrowRight")  # keys move both episodes
        expect(left.get_by_test_id("step-counter")).to_have_text(f"Step 2 of {steps}")
        img = left.locator(".shot:not([hidden]) .frame.before img")
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=img.element_handle())
        left.locator(".filmstrip [data-goto='5']").click()  # its filmstrip moves one
        expect(left.get_by_test_id("step-counter")).to_have_text(f"Step 5 of {steps}")

        # A run's own page is one click away; its group tables keep compact rows too.
        page.goto(url + "/runs/oracle/")
        page.locator("details.groups summary").click()
        _group_rows_keep_their_height(page)

    with served(create_app([noop, again])) as url:  # noop twice: seed 0 the same, seed 1 only in one run
        page.goto(url + "/")
        expect(page.locator("#compare tbody tr")).to_have_count(2)
        page.get_by_label("Only where the runs differ").check()
        page.wait_for_url(re.compile(r"/compare\?.*differ=1"))
        expect(page.locator("#compare tbody tr")).to_have_count(1)
        expect(page.locator("#compare tbody tr td").nth(1)).to_have_text("1")
        expect(page.locator("#compare tbody tr td.cell").nth(1)).to_have_text("not run")
    page.close()


def _group_rows_keep_their_height(page) -> None:  # noqa: ANN001
    """The difficulty table (one row) beside the tag table (three): its row is as tall as a tag row."""
    one = page.locator("table[aria-label='By difficulty'] tbody tr").first.bounding_box()
    tags = page.locator("table[aria-label='By tag'] tbody tr")
    expect(tags).to_have_count(3)
    tag = tags.first.bounding_box()
    assert abs(one["height"] - tag["height"]) < 2, (one, tag)


def test_view_command_needs_a_grader_name(runs):  # noqa: ANN001
    from typer.testing import CliRunner

    from sandbox.cli import app as cli

    out = CliRunner().invoke(cli, ["view", str(runs["oracle"]), "--grade"])
    assert out.exit_code == 2 and "--grader NAME" in out.output
    out = CliRunner().invoke(cli, ["view", str(runs["oracle"]), "--grader", "ana"])
    assert out.exit_code == 2 and "add --grade" in out.output


def test_blind_grading_hides_verdicts_and_the_label_api_says_what_is_wrong(runs, tmp_path):  # noqa: ANN001
    oracle, noop = copies(runs, tmp_path, "oracle", "noop")
    blind = TestClient(create_app([oracle, noop], grade=True, grader="ana"), follow_redirects=False)
    assert blind.get("/runs/oracle/").headers["location"] == "/" and blind.get("/compare").headers["location"] == "/"
    for path in (f"/runs/oracle/episodes/{S0}", f"/side?left=oracle/{S0}&right=noop/{S0}", f"/rank/{TASK}", "/"):
        text = blind.get(path).text
        assert "checks passed" not in text and 'class="badge passed"' not in text and 'class="card verdict"' not in text, path
    seen = TestClient(create_app([oracle, noop], grade=True, grader="ana", show_verdict=True))
    assert 'data-testid="outcome">passed' in seen.get(f"/runs/oracle/episodes/{S0}").text
    assert "<th>Verifier</th>" in seen.get("/").text

    post = blind.post
    assert post("/api/label", json={"run": "oracle", "episode": "nope__s0", "passed": True}).status_code == 404
    assert post("/api/label", json={"run": "other", "episode": S0, "passed": True}).json()["detail"].startswith("no run 'other'")
    bad = post("/api/label", json={"run": "oracle", "episode": S0, "score": -0.5})
    assert bad.status_code == 422 and "score" in bad.json()["detail"]
    assert post("/api/rank", json={"task": TASK, "order": [f"oracle/{S0}", f"oracle/{S0}"]}).json()["detail"] == "the ranking names an episode twice"
    assert "not of other.task" in post("/api/rank", json={"task": "other.task", "order": [f"oracle/{S0}"]}).json()["detail"]
    assert not (oracle / "labels.jsonl").exists()  # nothing half-saved by the bad requests
    browse = TestClient(create_app([oracle, noop]))
    denied = browse.post("/api/label", json={"run": "oracle", "episode": S0, "passed": True})
    assert denied.status_code == 403 and "--grade --grader NAME" in denied.json()["detail"]
    with pytest.raises(ValueError, match="--grader NAME"):
        create_app([oracle], grade=True)

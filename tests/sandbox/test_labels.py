"""Human labels beside a run (labels.jsonl): the latest label per (episode, grader) wins, a grader's
fields merge, lines stay whole when the writer is killed, and `sandbox agreement` computes accuracy,
Cohen's kappa and Kendall's tau on run folders written through the trajectory writer."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sandbox.cli import app as cli
from sandbox.trajectory import AgentInfo, EpisodeRecord, LabelStore, RunDir, StepRecord, TrajectoryError, episode_name, rank_labels
from sandbox.viewer.agreement import AgreementError, cohen_kappa, report

ROOT = Path(__file__).resolve().parents[2]


def test_latest_label_wins_and_fields_merge(tmp_path):  # noqa: ANN001
    store = LabelStore(tmp_path)
    assert store.latest() == {} and not store.exists()
    store.add("t__s0", "ana", passed=False, score=0.2)
    store.add("t__s0", "ana", passed=True)  # score kept
    store.add("t__s0", "bo", passed=False, comment="wrong record")
    store.add("t__s1", "ana", comment="looked fine")
    latest = store.latest()
    assert latest[("t__s0", "ana")].passed is True and latest[("t__s0", "ana")].score == 0.2
    assert latest[("t__s0", "bo")].comment == "wrong record" and latest[("t__s1", "ana")].passed is None
    lines = [json.loads(x) for x in (tmp_path / "labels.jsonl").read_text().splitlines()]
    assert len(lines) == 4 and {"episode", "grader", "time", "passed", "score", "comment"} <= set(lines[0]) and "rank" not in lines[0]
    assert lines[1]["time"].endswith("+00:00") and lines[1]["time"] >= lines[0]["time"]
    # Ranks keep the verdict; a rank-only label of an ungraded episode has passed null.
    store.append(rank_labels("ana", {"t__s1": 1, "t__s0": 2}, store.for_grader("ana"), "t@ana@now"))
    assert store.for_grader("ana")["t__s0"].passed is True and store.for_grader("ana")["t__s0"].rank == 2
    assert [lab.grader for lab in store.for_episode("t__s0")] == ["ana", "bo"]
    for bad, message in (({"score": 1.5}, "less than or equal to 1"), ({"rank": 0}, "greater than or equal to 1")):
        with pytest.raises(ValueError, match=message):
            store.add("t__s0", "ana", **bad)
    with pytest.raises(ValueError, match="bad episode id"):
        store.add("../x", "ana", passed=True)
    with pytest.raises(ValueError, match="single line"):
        store.add("t__s0", "  ", passed=True)


def test_a_torn_tail_is_skipped_then_cut_before_the_next_label(tmp_path):  # noqa: ANN001
    store = LabelStore(tmp_path)
    store.add("t__s0", "ana", passed=True)
    with open(store.path, "ab") as f:
        f.write(b'{"episode": "t__s1", "grader": "an')  # a writer died mid-line
    assert [lab.episode for lab in store.all()] == ["t__s0"]
    store.add("t__s1", "ana", passed=False)
    assert [json.loads(x)["episode"] for x in store.path.read_text().splitlines()] == ["t__s0", "t__s1"]
    store.path.write_text(store.path.read_text() + "not json\n" + '{"episode": "t__s2", "grader": "ana"}\n')
    with pytest.raises(TrajectoryError, match="line 3 is not valid JSON"):
        store.all()


WRITER = """
import sys
from sandbox.trajectory import LabelStore
store = LabelStore(sys.argv[1])
n = 0
while True:
    store.add(f"t__s{n}", "ana", passed=n % 2 == 0, comment="x" * 19000)
    n += 1
"""


def test_labels_stay_whole_when_the_writer_is_killed(tmp_path):  # noqa: ANN001
    """SIGKILL a process appending large labels (several pages each); every line left is whole."""
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], cwd=ROOT, stderr=subprocess.PIPE)
    path = tmp_path / "labels.jsonl"
    deadline = time.monotonic() + 60
    while not (path.exists() and path.stat().st_size > 2_000_000):
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        assert time.monotonic() < deadline, "the writer did not get going"
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    store = LabelStore(tmp_path)
    labels = store.all()
    assert len(labels) > 50 and all(len(lab.comment or "") == 19000 for lab in labels)
    store.add("after", "ana", passed=True)
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and all(json.loads(x) for x in lines[:-1]) and json.loads(lines[-2])["episode"] == "after"


def test_kappa_by_hand():
    assert cohen_kappa([(True, True), (True, False), (False, False), (False, False)]) == (0.5, None)
    value, note = cohen_kappa([(True, True)] * 3)
    assert value is None and "passed every episode" in note
    assert cohen_kappa([])[0] is None
    # Verifier all pass, people split: po = pe = 0.5, kappa 0 (defined).
    assert cohen_kappa([(True, True), (True, False)]) == (0.0, None)


def _run(root: Path, name: str, episodes: list[tuple[str, int, bool, float]]) -> RunDir:
    """A run folder written through the trajectory writer: one step per episode, the given verdicts."""
    run = RunDir.create(root / name, {"agent": name})
    for task, seed, passed, score in episodes:
        rec = EpisodeRecord(id=episode_name(task, seed), task=task, seed=seed, agent=AgentInfo(name=name), app="crm")
        w = run.episode_writer(rec)
        w.step(StepRecord(step=1, action={"action": "wait"}, parsed={"action": "wait"}))
        run.add_result(w.finish(verdict={"passed": passed, "score": score, "reason": "r", "checks": []}))
    return run


@pytest.fixture
def written(tmp_path) -> RunDir:  # noqa: ANN001
    """Two templates with known verdicts and labels (numbers worked out in the test)."""
    run = _run(tmp_path, "mine", [("a.one", 0, True, 0.9), ("a.one", 1, True, 0.6), ("a.one", 2, True, 0.3),
                                  ("a.two", 0, True, 1.0), ("a.two", 1, True, 0.7), ("a.two", 2, False, 0.4), ("a.two", 3, False, 0.0)])  # fmt: skip
    labels = LabelStore(run.path)
    labels.add("a.one__s0", "ana", passed=False, score=0.1)  # superseded below: the latest label wins
    for seed, score in enumerate((0.8, 0.7, 0.2)):
        labels.add(f"a.one__s{seed}", "ana", passed=True, score=score)
    for seed, passed in enumerate((True, False, False, False)):
        labels.add(f"a.two__s{seed}", "ana", passed=passed, score=None)
    labels.append(rank_labels("ana", {"a.two__s1": 1, "a.two__s0": 2, "a.two__s2": 3, "a.two__s3": 4}, labels.for_grader("ana"), "a.two@ana@1"))
    labels.add("a.two__s0", "bo", passed=False)
    labels.add("gone__s9", "ana", passed=True)  # an episode the results do not list
    return run


def test_agreement_numbers_by_hand(written):  # noqa: ANN001
    rep = report([written.path], grader="ana")
    one, two, overall = rep["templates"]["a.one"], rep["templates"]["a.two"], rep["overall"]
    # a.one: 3 judgements, all agree; every verdict "passed": kappa undefined; scores fully concordant.
    assert (one["judgements"], one["agree"], one["accuracy"], one["kappa"]) == (3, 3, 1.0, None)
    assert "passed every episode" in one["kappa_note"]
    assert one["tau_basis"] == "score" and one["tau"] == pytest.approx(1.0)
    # a.two: (T,T) (T,F) (F,F) (F,F): po 3/4, pe 1/2*1/4 + 1/2*3/4 = 1/2, kappa 1/2. Ranks 2,1,3,4 against
    # scores 1, .7, .4, 0: 5 concordant pairs, 1 discordant, no ties: tau = 4/6.
    assert (two["judgements"], two["agree"], two["accuracy"], two["kappa"]) == (4, 3, 0.75, 0.5)
    assert two["tau_basis"] == "rank" and two["tau"] == pytest.approx(2 / 3) and two["tau_score"] is None
    # Overall: 7 judgements, 6 agree; pv 5/7, ph 4/7, pe 26/49, kappa (6/7 - 26/49) / (23/49) = 16/23.
    assert (overall["episodes"], overall["judgements"], overall["agree"]) == (7, 7, 6)
    assert overall["kappa"] == pytest.approx(16 / 23) and overall["tau_rank"] == pytest.approx(2 / 3) and overall["tau_score"] == pytest.approx(1.0)
    assert [(d["episode"], d["verifier_passed"], d["human_passed"]) for d in rep["disagreements"]] == [("a.two__s1", True, False)]
    assert rep["disagreements"][0]["url"] == "http://127.0.0.1:8790/runs/mine/episodes/a.two__s1"
    assert rep["labels_without_result"] == 1
    # Every grader: bo's (T,F) on a.two s0 joins: po 3/5, pv 3/5, ph 1/5, pe 11/25, kappa 4/14.
    both = report([written.path])
    assert both["graders"] == ["ana", "bo"] and both["templates"]["a.two"]["kappa"] == pytest.approx(4 / 14)
    assert len(both["disagreements"]) == 2 and not math.isnan(both["overall"]["kappa"])


def test_agreement_command_and_its_errors(written, tmp_path):  # noqa: ANN001
    runner = CliRunner()
    out = runner.invoke(cli, ["agreement", str(written.path), "--grader", "ana", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["templates"]["a.two"]["kappa"] == 0.5
    text = runner.invoke(cli, ["agreement", str(written.path), "--grader", "ana", "--viewer-url", "http://host:9000/"], env={"COLUMNS": "200"})
    assert text.exit_code == 0 and "a.two" in text.output and "75%" in text.output and "0.67 (rank)" in text.output
    assert "http://host:9000/runs/mine/episodes/a.two__s1" in text.output and "passed every episode" in text.output

    bare = RunDir.create(tmp_path / "bare", {"agent": "x"})
    out = runner.invoke(cli, ["agreement", str(bare.path)])
    assert out.exit_code == 2 and "has no results" in out.output and "sandbox run" in out.output
    unlabelled = _run(tmp_path, "unlabelled", [("a.one", 0, True, 1.0)])
    out = runner.invoke(cli, ["agreement", str(written.path), str(unlabelled.path)])
    assert out.exit_code == 2 and f"{unlabelled.path} has no labels" in out.output and "--grade --grader NAME" in out.output
    out = runner.invoke(cli, ["agreement", str(written.path), "--grader", "cy"])
    assert out.exit_code == 2 and "no labels by 'cy'" in out.output and "ana, bo" in out.output
    not_a_run = tmp_path / "empty"
    not_a_run.mkdir()
    with pytest.raises(AgreementError, match="is not a run folder"):
        report([not_a_run])

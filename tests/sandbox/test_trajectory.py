"""The trajectory format: written as it goes, finished atomically, read back lazily; run folders resume."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap

import numpy as np
import orjson
import pytest
from PIL import Image

from sandbox.trajectory import (
    AgentInfo,
    EpisodeRecord,
    RunDir,
    RunExists,
    StepRecord,
    TrajectoryError,
    episode_name,
    load_episode,
    load_run,
    read_jsonl,
)


def png(color: tuple[int, int, int], size: tuple[int, int] = (32, 20)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


def record(task: str = "crm.edit-phone", seed: int = 1) -> EpisodeRecord:
    return EpisodeRecord(id=episode_name(task, seed), task=task, seed=seed, agent=AgentInfo(name="test"), instruction="Do it", app="crm", tags=["edit"])


VERDICT = {"passed": True, "score": 1.0, "reason": "all 2 checks passed", "checks": [
    {"name": "phone", "sentence": "the phone is 555", "passed": True, "expected": "555", "actual": "555"}]}  # fmt: skip


def test_episode_round_trip(tmp_path):
    run = RunDir.create(tmp_path / "run", {"agent": "test"})
    writer = run.episode_writer(record())
    assert writer.dir.name == "crm.edit-phone__s1.partial"
    writer.screenshot(0, png((255, 0, 0)))
    writer.step(StepRecord(step=1, action={"action": "left_click", "x": 3, "y": 4}, parsed={"action": "left_click", "x": 3, "y": 4},
                           url="http://crm.localhost/", changes={"tables": {}}), screenshot=png((0, 255, 0)))  # fmt: skip
    array = np.zeros((20, 32, 3), dtype=np.uint8)
    writer.step(StepRecord(step=2, action={"action": "answer", "text": "ok"}, parsed={"action": "answer", "text": "ok"}, error=None), screenshot=array)
    rec = writer.finish(verdict=VERDICT, answer="ok", end_reason="answer")
    line = run.add_result(rec)
    assert line["passed"] and line["score"] == 1.0 and line["steps"] == 2 and line["task"] == "crm.edit-phone"

    ep = load_episode(tmp_path / "run" / "episodes" / "crm.edit-phone__s1")
    assert ep.finished and ep.record.outcome == "passed" and ep.record.end_reason == "answer"
    assert ep.verdict.check("phone").expected == "555"
    assert [s.step for s in ep.steps] == [1, 2] and ep.steps[0].screenshot == "screenshots/0001.png"
    assert ep.actions()[0] == {"action": "left_click", "x": 3, "y": 4}
    assert Image.open(io.BytesIO(ep.screenshot(2))).size == (32, 20)
    assert ep.screenshot(0) == png((255, 0, 0)) and ep.screenshot(9) is None
    assert [r["id"] for r in load_run(tmp_path / "run").results()] == ["crm.edit-phone__s1"]


def test_existing_run_needs_resume(tmp_path):
    RunDir.create(tmp_path / "run", {"agent": "a"})
    with pytest.raises(RunExists, match="--resume"):
        RunDir.create(tmp_path / "run", {"agent": "a"})
    with pytest.raises(TrajectoryError, match="not a run folder"):
        load_run(tmp_path / "nothing")
    with pytest.raises(TrajectoryError, match="no episode.json"):
        load_episode(tmp_path)


def test_torn_last_line_is_skipped_but_a_bad_middle_line_is_an_error(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": 2}\n{"a": 3, "b"')
    assert [o["a"] for o in read_jsonl(path)] == [1, 2]
    path.write_bytes(b'{"a": 1}\nnot json\n{"a": 3}\n')
    with pytest.raises(TrajectoryError, match="line 2"):
        list(read_jsonl(path))


def test_resume_repairs_the_index_and_moves_unfinished_episodes_aside(tmp_path):
    run = RunDir.create(tmp_path / "run", {"agent": "a"})
    done = []
    for seed in range(3):
        w = run.episode_writer(record(seed=seed))
        w.step(StepRecord(step=1, action={"action": "wait"}))
        done.append(w.finish(verdict=VERDICT))
    run.add_result(done[0])
    run.add_result(done[0])  # a duplicate line must not count twice
    # done[1] finished but its line was never written (killed between rename and append);
    # done[2]'s line was torn by the kill:
    with open(run.results_path, "ab") as f:
        f.write(orjson.dumps(done[2].result())[:25])
    unfinished = run.episode_writer(record(seed=7))
    unfinished.step(StepRecord(step=1, action={"action": "wait"}))
    unfinished.close()

    resumed = RunDir.create(tmp_path / "run", {"agent": "a"}, resume=True)
    ids = [r["id"] for r in resumed.results()]
    assert sorted(ids) == sorted(r.id for r in done) and len(ids) == len(set(ids))
    assert resumed.finished_ids() == {r.id for r in done}
    assert (tmp_path / "run" / "aborted" / "crm.edit-phone__s7.1" / "steps.jsonl").exists()
    assert not resumed.running()
    assert resumed.meta["resumed_at"]


def test_sigkill_mid_episode_leaves_finished_episodes_whole(tmp_path):
    """A process killed while writing leaves its finished episodes readable and the current one marked."""
    script = textwrap.dedent(f"""
        import os, signal
        from sandbox.trajectory import RunDir, EpisodeRecord, AgentInfo, StepRecord
        run = RunDir.create({str(tmp_path / 'run')!r}, {{"agent": "k"}})
        for seed in range(3):
            w = run.episode_writer(EpisodeRecord(id=f"t__s{{seed}}", task="t", seed=seed, agent=AgentInfo(name="k")))
            for i in range(1, 4):
                w.step(StepRecord(step=i, action={{"action": "wait"}}))
                if seed == 2 and i == 2:
                    os.kill(os.getpid(), signal.SIGKILL)
            run.add_result(w.finish(verdict={{"passed": False, "score": 0.0, "reason": "x", "checks": []}}))
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=os.getcwd(), capture_output=True)
    assert proc.returncode == -9, proc.stderr.decode()
    run = load_run(tmp_path / "run")
    assert run.finished_ids() == {"t__s0", "t__s1"} and run.running() == ["t__s2"]
    partial = run.episode("t__s2")
    assert not partial.finished and partial.record.status == "running" and len(partial.steps) == 2
    assert [len(run.episode(i).steps) for i in ("t__s0", "t__s1")] == [3, 3]


def test_export_rows_and_dataset(tmp_path):
    from sandbox.export import rows

    run = RunDir.create(tmp_path / "run", {"agent": "test"})
    w = run.episode_writer(record())
    w.screenshot(0, png((1, 2, 3)))
    w.step(StepRecord(step=1, action={"action": "left_click", "x": 1, "y": 2}, parsed={"action": "left_click", "x": 1, "y": 2}), screenshot=png((4, 5, 6)))
    w.step(StepRecord(step=2, action={"action": "answer", "text": "ok"}, parsed={"action": "answer", "text": "ok"}), screenshot=png((7, 8, 9)))
    run.add_result(w.finish(verdict=VERDICT, answer="ok"))
    steps = list(rows(run.path))
    assert [r["step"] for r in steps] == [1, 2] and steps[0]["passed"] and steps[0]["task"] == "crm.edit-phone"
    assert steps[1]["screenshot_before"] == png((4, 5, 6)) and steps[1]["screenshot_after"] == png((7, 8, 9))
    assert orjson.loads(steps[0]["action"]) == {"action": "left_click", "x": 1, "y": 2}
    episodes = list(rows(run.path, "episode", images=False))
    assert len(episodes) == 1 and episodes[0]["steps"] == 2 and episodes[0]["final_screenshot"] is None
    datasets = pytest.importorskip("datasets")
    from sandbox.export import to_dataset

    ds = to_dataset(run.path)
    assert len(ds) == 2 and isinstance(ds.features["screenshot_after"], datasets.Image)

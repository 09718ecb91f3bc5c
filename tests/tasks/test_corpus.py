"""`sandbox corpus`: a small corpus built in real Chromium on the env pool, resumed, carded and exported.

One build over three templates x seeds 0-2 in a temporary task folder: a shipped template, a
template whose only parameter has one value (every seed after the first repeats it) and a copy of
the shipped one whose oracle types the wrong text. The build is cut by ``limit`` and run again.
"""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from sandbox.loop import background_loop
from tasks.corpus import CorpusDir, Policy, build_async, compute_card, export
from tasks.corpus.files import DUPLICATES, FAILURES, INSTANCES
from tasks.registry import TASKS_DIR, TaskRegistry

# One test worker runs the whole module, so its module-scoped runs (or runtime) are made once.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("corpus-runtime")]
run = background_loop().run

REAL = "crm.opportunity-set-next-step"
SAME = "crm.answer-code-word"
BROKEN = "crm.opportunity-set-next-step-broken"

CODE_WORD = {
    "id": "answer-code-word", "app": "crm", "title": "Answer with the code word", "category": "answer-lookup",
    "difficulty": "easy", "tags": {"skill": ["answer"], "occupation": ["sales-operations"]},
    "persona": {"role": "sales_manager"}, "start_url": "/opportunities", "max_steps": 5,
    "params": {"word": {"choice": ["Bluebird"]}},
    "instruction": "Reply with the code word {{ word }} and nothing else.",
    "verifier": [{"kind": "answer", "match": "exact", "expected": "{{ word }}"}, {"kind": "changes"}],
    "oracle": [{"answer": "{{ word }}"}],
    "near_misses": [{"name": "other-word", "kind": "wrong_answer", "answer": "Redstart"}],
}  # fmt: skip


@pytest.fixture(scope="module")
def runtime(registry: TaskRegistry):
    from sandbox.runtime import Runtime, default_apps

    rt = run(Runtime.start(store=registry.store, apps=default_apps()))
    yield rt
    run(rt.close())


@pytest.fixture(scope="module")
def folder(tmp_path_factory, registry: TaskRegistry) -> TaskRegistry:  # noqa: ANN001
    root = tmp_path_factory.mktemp("corpus-tasks")
    (root / "crm").mkdir()
    shutil.copy(TASKS_DIR / "crm" / "opportunity-set-next-step.yaml", root / "crm")
    (root / "crm" / "answer-code-word.yaml").write_text(yaml.safe_dump(CODE_WORD, sort_keys=False))
    broken = yaml.safe_load((TASKS_DIR / "crm" / "opportunity-set-next-step.yaml").read_text())
    broken["id"] = "opportunity-set-next-step-broken"
    broken["oracle"][-1]["args"]["text"] = "{{ step_text }} (draft)"  # the oracle types the wrong text
    (root / "crm" / "opportunity-set-next-step-broken.yaml").write_text(yaml.safe_dump(broken, sort_keys=False))
    return TaskRegistry(root, store=registry.store)


def _keys(corpus: CorpusDir, name: str) -> list[tuple[str, int]]:
    return [(r["id"], r["seed"]) for r in corpus.records(name)]


@pytest.mark.slow
def test_build_resume_card_and_export(folder: TaskRegistry, runtime, tmp_path) -> None:  # noqa: ANN001
    out = tmp_path / "corpus"
    ids = folder.task_ids()
    policy = Policy(full_seeds=1)
    events: list[tuple[str, str, int]] = []

    def note(kind: str, rec: dict) -> None:
        events.append((kind, rec["id"], rec["seed"]))

    # the first run stops after two instances (seed 0 of the first two templates): an interrupted build
    first = run(build_async(folder, ids, [0, 1, 2], out, workers=2, policy=policy, limit=2, runtime=runtime, on_event=note))
    corpus = CorpusDir(out)
    assert (first.proven, first.failed, first.duplicates) == (2, 0, 0), [(f["id"], f["seed"], f["reasons"]) for f in corpus.failures()]
    assert sorted(_keys(corpus, INSTANCES)) == [(SAME, 0), (REAL, 0)]
    with open(out / INSTANCES, "ab") as f:  # a crash in the middle of a line
        f.write(b'{"id": "crm.opportunity-set-ne')

    second = run(build_async(folder, ids, [0, 1, 2], out, workers=2, policy=policy, runtime=runtime, on_event=note))
    assert second.skipped == 2 and second.proven == 2 and second.failed == 3 and second.duplicates == 2
    proven, failed, dups = _keys(corpus, INSTANCES), _keys(corpus, FAILURES), _keys(corpus, DUPLICATES)
    assert sorted(proven) == [(SAME, 0), (REAL, 0), (REAL, 1), (REAL, 2)], "each instance once, the torn line dropped"
    assert sorted(failed) == [(BROKEN, 0), (BROKEN, 1), (BROKEN, 2)]
    assert sorted(dups) == [(SAME, 1), (SAME, 2)]
    assert all(r["same_as"] == 0 for r in corpus.duplicates())
    assert sorted(events) == sorted([("proven", i, s) for i, s in proven] + [("failed", i, s) for i, s in failed]
                                    + [("duplicate", i, s) for i, s in dups])
    for f in corpus.failures():
        assert f["stage"] == "prove" and any(r.startswith("oracle: the oracle must pass") for r in f["reasons"]), f["reasons"]

    # a third run has nothing left to do
    third = run(build_async(folder, ids, [0, 1, 2], out, workers=2, policy=policy, runtime=runtime))
    assert (third.skipped, third.proven, third.failed, third.episodes) == (9, 0, 0, 0)

    records = {(r["id"], r["seed"]): r for r in corpus.instances()}
    real0, real1 = records[(REAL, 0)], records[(REAL, 1)]
    inst = folder.instance(REAL, 1)
    assert real1["instruction"] == inst.instruction and real1["persona"] == inst.persona and real1["start_url"] == inst.start_url
    assert real1["params"]["opp"]["id"] == inst.params["opp"]["id"] and real1["max_steps"] == 15
    assert real1["verifier"][0]["expect"][0]["where"] == {"id": inst.params["opp"]["id"]}  # rendered, no {{ }}
    assert "{{" not in json.dumps(real1["verifier"])
    assert real1["interfaces"] == ["gui", "tools"] and real1["tags"]["skill"] and real1["category"] == "single-field-edit"
    assert real1["oracle_steps"] > 2 and real1["tool_oracle_steps"] >= 2
    # the first seed plays every near-miss and adversary; the others the oracles and the browserless solutions
    assert real0["proof"]["level"] == "full" and {"into-description", "truncated", "adv-signed-out"} <= set(real0["proof"]["solutions"])
    assert real1["proof"]["level"] == "core" and set(real1["proof"]["solutions"]) == {"oracle", "tool-oracle", "noop", "adv-give-up"}
    assert real1["proof"]["seconds"] > 0

    card = compute_card(corpus)
    assert (card["instances"], card["failed"], card["duplicates"], card["templates_with_instances"]) == (4, 3, 2, 2)
    assert card["by_app"] == {"crm": 4} and card["by_category"] == {"answer-lookup": 1, "single-field-edit": 3}
    same = card["per_template"][SAME]
    assert (same["proven"], same["duplicates"], same["distinct_params"], same["seeds"]) == (1, 2, 1, 3)
    assert card["per_template"][REAL]["distinct_params"] == 3 and card["per_template"][BROKEN]["failed"] == 3
    assert card["small_pool"] == [{"id": SAME, "distinct": 1, "seeds": 3, "duplicates": 2}]
    assert [(f["id"], f["seed"]) for f in card["failures"]] == sorted(failed)
    assert card["proof"] == {**card["proof"], "full": 2, "core": 2, "full_seeds": 1}
    assert card["proof"]["cost"]["full"]["episodes_mean"] > card["proof"]["cost"]["core"]["episodes_mean"]
    assert json.loads((out / "card.json").read_text())["instances"] == 4  # the build wrote the card
    assert "| crm.answer-code-word | 1 | 3 | 2 |" in (out / "CARD.md").read_text()

    # the Hugging Face export loads back with datasets, one row per proven instance
    datasets = pytest.importorskip("datasets")
    info = export(out, tmp_path / "hf")
    assert info["rows"] == 4 and info["format"] == "parquet"
    readme = (tmp_path / "hf" / "README.md").read_text()
    header = yaml.safe_load(readme.split("---")[1])
    assert header["configs"][0]["data_files"][0]["path"] == "data/train-*.parquet" and header["license"] == "apache-2.0"
    ds = datasets.load_dataset(str(tmp_path / "hf"), split="train", cache_dir=str(tmp_path / "hf-cache"))
    assert len(ds) == 4 and {"instruction", "params", "verifier", "skill_tags", "interfaces", "oracle_steps"} <= set(ds.column_names)
    row = next(r for r in ds if r["id"] == REAL and r["seed"] == 1)
    assert row["instruction"] == real1["instruction"] and json.loads(row["params"]) == real1["params"]
    assert row["proof"] == "core" and row["skill_tags"] == real1["tags"]["skill"]


def test_cli_errors_say_what_to_do(tmp_path) -> None:  # noqa: ANN001
    from typer.testing import CliRunner

    from sandbox.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["corpus", "card", str(tmp_path / "missing")])
    assert res.exit_code == 2 and "sandbox corpus build --out" in res.output
    res = runner.invoke(app, ["corpus", "build", "--out", str(tmp_path / "c"), "-s", "0", "-t", "nothing-matches-*"])
    assert res.exit_code == 2 and "no task matches" in res.output
    (tmp_path / "empty").mkdir()
    res = runner.invoke(app, ["corpus", "export", str(tmp_path / "empty"), str(tmp_path / "hf")])
    assert res.exit_code == 2 and "no proven instance" in res.output
    res = runner.invoke(app, ["corpus", "export", str(tmp_path / "empty"), str(tmp_path / "hf"), "--format", "csv"])
    assert res.exit_code == 2 and "unknown export format" in res.output
    # Ray options are checked before anything runs (the cluster tests play on Ray)
    res = runner.invoke(app, ["corpus", "build", "--out", str(tmp_path / "c"), "-s", "0", "-t", "crm.lead-rate-hot", "--ray", "not an address"])
    assert res.exit_code == 2 and "the Ray address must be" in res.output and not (tmp_path / "c").exists()
    res = runner.invoke(app, ["corpus", "build", "--out", str(tmp_path / "c"), "-s", "0", "-t", "crm.lead-rate-hot", "--ray-actors", "2"])
    assert res.exit_code == 2 and "--ray-actors needs --ray" in res.output and not (tmp_path / "c").exists()


def test_a_failure_without_a_wrong_verdict_is_tried_again(tmp_path) -> None:  # noqa: ANN001
    corpus = CorpusDir(tmp_path, create=True)
    corpus.append(FAILURES, {"id": "crm.a", "seed": 0, "key": "k0", "retry": False, "reasons": ["noop: it passed"]})
    corpus.append(FAILURES, {"id": "crm.a", "seed": 1, "key": "k1", "retry": True, "reasons": ["oracle: the episode did not finish"]})
    corpus.append(FAILURES, {"id": "crm.a", "seed": 2, "key": "k2", "retry": True, "reasons": ["oracle: the episode did not finish"]})
    corpus.append(INSTANCES, {"id": "crm.a", "seed": 2, "key": "k2"})  # tried again, and proven
    assert set(corpus.done()) == {("crm.a", 0), ("crm.a", 2)}
    assert [(f["id"], f["seed"]) for f in corpus.failures()] == [("crm.a", 0), ("crm.a", 1)]
    with open(tmp_path / FAILURES, "ab") as f:
        f.write(b'{"id": "crm.a", "se')  # torn by a crash: skipped when read, cut when a build opens the folder
    assert len(corpus.records(FAILURES)) == 3
    CorpusDir(tmp_path, create=True)
    assert (tmp_path / FAILURES).read_bytes().endswith(b"\"seed\":2}\n")


def test_a_decision_made_with_another_template_or_world_is_played_again(tmp_path, registry: TaskRegistry) -> None:  # noqa: ANN001
    from tasks.corpus.build import Renderer, current_versions

    root = tmp_path / "tasks"
    (root / "crm").mkdir(parents=True)
    shutil.copy(TASKS_DIR / "crm" / "opportunity-set-next-step.yaml", root / "crm")
    folder = TaskRegistry(root, store=registry.store)
    now = current_versions(folder)(REAL, 0)
    corpus = CorpusDir(tmp_path / "c", create=True)
    corpus.append(INSTANCES, {"id": REAL, "seed": 0, "key": "k0", **now, "decided_at": "2026-01-01T00:00:00"})
    corpus.append(INSTANCES, {"id": REAL, "seed": 1, "key": "k1", **now, "world_version": "older", "decided_at": "2026-01-01T00:00:00"})
    corpus.append(DUPLICATES, {"id": REAL, "seed": 2, "key": "k0", "same_as": 0})  # written before records had versions
    renderer = Renderer(folder, [REAL], corpus, Policy())
    assert [c.seed for s in (0, 1, 2) for c in renderer.render(s)] == [1, 2]
    assert (renderer.result.skipped, renderer.result.stale) == (1, 2)
    # The template file changes (a comment is enough): every seed is stale.
    path = root / "crm" / "opportunity-set-next-step.yaml"
    path.write_text(path.read_text() + "\n# reviewed\n")
    folder = TaskRegistry(root, store=registry.store)
    assert set(corpus.done(current_versions(folder))) == set()
    # The latest decision counts: a later failure supersedes the older proof, a proof the older failure.
    corpus.append(FAILURES, {"id": REAL, "seed": 0, "key": "k0", "retry": False, "reasons": ["x"], "decided_at": "2026-02-01T00:00:00"})
    corpus.append(FAILURES, {"id": REAL, "seed": 3, "key": "k3", "retry": False, "reasons": ["x"], "decided_at": "2026-01-01T00:00:00"})
    corpus.append(INSTANCES, {"id": REAL, "seed": 3, "key": "k3", "decided_at": "2026-02-01T00:00:00"})
    assert {r["seed"] for r in corpus.decided(INSTANCES)} == {1, 3}
    assert [r["seed"] for r in corpus.failures()] == [0]


@pytest.mark.slow
def test_an_episode_that_cannot_be_played_is_played_once_more_before_it_is_decided(runtime, registry: TaskRegistry, tmp_path) -> None:  # noqa: ANN001
    root = tmp_path / "tasks"
    (root / "crm").mkdir(parents=True)
    # the oracle's first click names no link precisely: an episode error, never a verdict
    stuck = {**CODE_WORD, "id": "answer-after-a-vague-click", "oracle": [{"click": {"role": "link"}}, {"answer": "{{ word }}"}]}
    (root / "crm" / "answer-after-a-vague-click.yaml").write_text(yaml.safe_dump(stuck, sort_keys=False))
    folder = TaskRegistry(root, store=registry.store)
    events: list[str] = []
    out = tmp_path / "corpus"
    res = run(build_async(folder, folder.task_ids(), [0], out, workers=2, policy=Policy(full_seeds=0), runtime=runtime,
                          on_event=lambda kind, rec: events.append(kind)))  # fmt: skip
    (rec,) = CorpusDir(out).failures()
    solutions = [o["solution"] for o in rec["outcomes"]]
    assert (res.failed, res.proven, events) == (1, 0, ["failed"])
    assert res.episodes == len(solutions) + 1  # the oracle's episode twice, every other once
    assert sorted(solutions) == sorted(set(solutions)) and "oracle" in solutions and "noop" in solutions
    assert rec["retry"] and "visible elements match" in next(o["error"] for o in rec["outcomes"] if o["solution"] == "oracle")

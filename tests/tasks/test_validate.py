"""The CI sample of `sandbox validate`: every template at seed 0, on the env pool, in real Chromium.

The sweeps and the verdicts played twice (marked ``long``) run in `make test-long`, which CI runs after
`make test`, and in `make validate` (every GUI oracle); `make test` keeps this module's other tests (the
sample's rules, a bad instance).

The oracle (and the tool oracle where a task allows tools) must pass with score 1; the no-op agent
and the near-misses must fail. The GUI oracle plays for one template in ``GUI_ORACLE_EVERY`` (a fixed
half, chosen by the task id; the tool oracle, the no-op agent and the direct near-misses run for
every template): the corpus build and `make validate` play every template's GUI oracle, and CI stays
within its time on two cores. Every direct near-miss (world changes and an answer, graded without a
browser) runs; of the near-misses played through the GUI, one in every ``GUI_NEAR_MISS_EVERY``-th
template (a fixed choice that varies between templates), and the generic adversaries, which replay the
oracle, for one template in ``ADVERSARY_EVERY`` (a fixed share of each app; one of those that replay the oracle in the browser). The full run (every near-miss and adversary, three
seeds, twice) is `sandbox validate --seeds 0,1,2 --repeat 2` (tasks/README.md). One test per app, so
the test workers share the work. The long-horizon templates (many apps, 50-150 oracle steps) have a
test of their own: every one's no-op agent and direct near-misses (graded without a browser), and the GUI
oracle of a fixed few (``LONG_GUI``), so adding long templates does not make CI slower. The full check of
the long templates is `sandbox validate -t 'category:long-horizon' -s 0,1,2 -w 2` (tasks/README.md).
"""

from __future__ import annotations

import os
import zlib

import pytest

from sandbox.loop import background_loop
from tasks.registry import TASKS_DIR, TaskRegistry
from tasks.adversaries import ADVERSARY
from tasks.validate import Job, plan, validate_async

# On the sandbox background loop, not pytest-asyncio's (see tests/tasks/test_player.py).
pytestmark = pytest.mark.browser
run = background_loop().run

WORKERS = int(os.environ.get("SANDBOX_VALIDATE_WORKERS", "2"))
ADVERSARY_EVERY = int(os.environ.get("SANDBOX_VALIDATE_ADVERSARY_EVERY", "20"))
GUI_NEAR_MISS_EVERY = int(os.environ.get("SANDBOX_VALIDATE_GUI_NEAR_MISS_EVERY", "4"))
GUI_ORACLE_EVERY = int(os.environ.get("SANDBOX_VALIDATE_GUI_ORACLE_EVERY", "2"))  # `make validate` sets 1
# The folders that hold task files (tasks/ also holds Python packages, e.g. tasks/corpus).
APPS = sorted(p.name for p in TASKS_DIR.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")) and any(p.glob("*.yaml")))
LONG = "long-horizon"
# The long templates whose GUI oracle CI plays (at most 3, fixed so every run proves the same ones): one
# without co-workers, one whose manager approves by mail, one whose engineer answers in chat.
LONG_GUI = ("crm.long-onboard-won-customer", "mail.long-renewal-discount-approval", "crm.long-case-escalation-root-cause")
PART = 14  # templates per test: an app is split so that the test workers share its validation evenly


def _parts(app: str) -> int:
    files = [f for f in (TASKS_DIR / app).glob("*.yaml") if not f.name.startswith(("_", "long-"))]
    return max(1, -(-len(files) // PART))


CASES = [(app, k, _parts(app)) for app in APPS for k in range(_parts(app))]


@pytest.fixture(scope="module")
def runtime(registry: TaskRegistry):
    """One Chromium and one app host for the module's validations."""
    from sandbox.runtime import Runtime, default_apps

    rt = run(Runtime.start(store=registry.store, apps=default_apps()))
    yield rt
    run(rt.close())


def gui_oracle_in_ci(task: str) -> bool:
    """Whether CI plays the template's GUI oracle (one template in ``GUI_ORACLE_EVERY``, by its id)."""
    return zlib.crc32(task.encode()) % GUI_ORACLE_EVERY == 0


def ci_sample(task: str, jobs: list[Job]) -> list[Job]:
    """A template's jobs in the CI sample: its GUI oracle where :func:`gui_oracle_in_ci` says so, and all
    but its GUI near-misses, of which one is kept in one
    template of ``GUI_NEAR_MISS_EVERY`` (the task id chooses which templates and which near-miss, so
    every near-miss position gets its turn across templates), and one of its generic adversaries that
    replay the oracle in the browser (chosen the same way; those that only answer all run).
    `sandbox validate` plays them all."""
    h = zlib.crc32(task.encode())
    gui = [j for j in jobs if not j.should_pass and j.kind != ADVERSARY and j.via == "gui"]
    keep = gui[(h // GUI_NEAR_MISS_EVERY) % len(gui)] if gui and h % GUI_NEAR_MISS_EVERY == 0 else None
    replays = [j for j in jobs if j.kind == ADVERSARY and j.via == "gui"]
    replay = replays[h % len(replays)] if replays else None
    oracle = gui_oracle_in_ci(task)
    return [j for j in jobs if (j not in gui or j is keep) and (j not in replays or j is replay)
            and (oracle or not (j.solution == "oracle" and j.via == "gui"))]


def long_ci_sample(jobs: list[Job]) -> list[Job]:
    """The long templates' jobs in the CI sample: the no-op agent and the near-misses graded without a
    browser for every template, the oracles (and GUI near-misses) only for ``LONG_GUI``."""
    return [j for j in jobs if j.task in LONG_GUI or (not j.should_pass and j.via != "gui")]


def _explain(report) -> str:  # noqa: ANN001
    lines = []
    for o in report.disagreements:
        what = o.error or f"{'passed' if o.passed else 'failed'} (score {o.score}): {o.reason}"
        lines.append(f"{o.task} seed {o.seed} {o.solution} ({o.kind}): {what}")
    return "\n".join(lines)


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize(("app", "part", "parts"), CASES, ids=[f"{a}-{k + 1}of{n}" if n > 1 else a for a, k, n in CASES])
def test_every_template_validates_at_seed_0(registry: TaskRegistry, runtime, app: str, part: int, parts: int) -> None:  # noqa: ANN001
    ids = [t for t in registry.task_ids() if t.startswith(f"{app}.") and registry.task(t).template.category != LONG]
    assert ids, f"no templates for {app}"
    ids = ids[part::parts]
    with_adversaries = ids[::ADVERSARY_EVERY]
    jobs = [j for t in ids for j in ci_sample(t, plan(registry, [t], [0], with_adversaries=t in with_adversaries))]
    report = run(validate_async(registry, ids, [0], workers=WORKERS, quick=True, runtime=runtime, jobs=jobs, replay_errors=1))
    assert report.ok, f"{len(report.disagreements)} disagreement(s), confusion {report.confusion()}:\n{_explain(report)}"
    outcomes = report.outcomes
    oracles = sum(1 for j in jobs if j.should_pass)  # screens (the sampled half) and tools where allowed
    assert oracles >= sum(1 for t in ids if gui_oracle_in_ci(t) or registry.task(t).template.tool_oracle)
    assert sum(1 for o in outcomes if o.should_pass and o.passed) == oracles
    assert sum(1 for o in outcomes if not o.should_pass and o.passed is False) == len(outcomes) - oracles
    assert any(o.kind == "adversary" for o in outcomes)


@pytest.mark.slow
@pytest.mark.long
def test_long_horizon_templates_validate_at_seed_0(registry: TaskRegistry, runtime) -> None:  # noqa: ANN001
    ids = [t for t in registry.task_ids() if registry.task(t).template.category == LONG]
    assert ids, "no long-horizon templates"
    jobs = long_ci_sample(plan(registry, ids, [0], with_adversaries=False))
    report = run(validate_async(registry, ids, [0], workers=WORKERS, quick=True, runtime=runtime, jobs=jobs, replay_errors=1))
    assert report.ok, f"{len(report.disagreements)} disagreement(s), confusion {report.confusion()}:\n{_explain(report)}"
    oracles = [o for o in report.outcomes if o.should_pass]
    assert len(oracles) == len(LONG_GUI) + sum(1 for t in LONG_GUI if registry.task(t).template.tool_oracle)
    assert all(o.passed for o in oracles)
    assert {o.task for o in report.outcomes if o.solution == "noop"} == set(ids)  # every long template is graded
    # partial credit: each long task's incomplete near-misses earn some of the milestones, not all
    partial = [o for o in report.outcomes if o.kind == "incomplete"]
    assert partial and all(0 < o.score < 1 for o in partial), _explain(report)


def test_the_long_ci_sample_is_small_fixed_and_browserless_beyond_it(registry: TaskRegistry) -> None:
    ids = [t for t in registry.task_ids() if registry.task(t).template.category == LONG]
    assert 1 <= len(LONG_GUI) <= 3 and set(LONG_GUI) <= set(ids), "LONG_GUI must name at most 3 long-horizon templates"
    other = next(t for t in ids if t not in LONG_GUI)
    jobs = [Job(t, 0, sol, kind, via) for t in (LONG_GUI[0], other)
            for sol, kind, via in [("oracle", "oracle", "gui"), ("noop", "noop", "none"), ("half", "incomplete", "direct"),
                                   ("cheat", "other", "answer"), ("late", "other", "gui")]]
    kept = long_ci_sample(jobs)
    assert [(j.task, j.solution) for j in kept] == [(LONG_GUI[0], s) for s in ("oracle", "noop", "half", "cheat", "late")] + [
        (other, s) for s in ("noop", "half", "cheat")]
    assert long_ci_sample(jobs) == kept  # the same sample every run


def test_the_templates_cover_every_category(registry: TaskRegistry) -> None:
    categories = {registry.task(t).template.category for t in registry.task_ids()}
    assert {"single-field-edit", "create-with-lookup", "answer-lookup", "list-question", "lead-conversion",
            "board-move", "mass-update", "workflow", "infeasible", "long-horizon"} <= categories


@pytest.mark.slow
@pytest.mark.long
def test_verdicts_are_the_same_twice(registry: TaskRegistry, runtime) -> None:  # noqa: ANN001
    # The oracles and near-misses twice (the generic adversaries replay the same oracles: the per-app
    # tests and `sandbox validate --repeat 2` run them).
    ids = ["opportunity-close-won", "mass-close-account-cases", "answer-account-open-pipeline"]
    report = run(validate_async(registry, ids, [1], workers=WORKERS, repeat=2, quick=True, runtime=runtime, with_adversaries=False,
                                replay_errors=1))
    assert report.ok and not report.unstable, _explain(report)
    assert len(report.outcomes) == 2 * len(plan(registry, ids, [1], with_adversaries=False))


def test_a_bad_instance_is_reported_and_does_not_stop_the_run(tmp_path, registry: TaskRegistry, runtime) -> None:  # noqa: ANN001
    import shutil

    from tasks.registry import TASKS_DIR

    (tmp_path / "crm").mkdir()
    shutil.copy(TASKS_DIR / "crm" / "answer-opportunity-industry.yaml", tmp_path / "crm")
    text = (TASKS_DIR / "crm" / "lead-rate-hot.yaml").read_text()
    (tmp_path / "crm" / "lead-rate-hot.yaml").write_text(text.replace("params:", "assert:\n  - select 0\nparams:", 1))
    mine = TaskRegistry(tmp_path, store=registry.store)
    report = run(validate_async(mine, mine.task_ids(), [0], workers=WORKERS, quick=True, runtime=runtime, with_adversaries=False))
    bad = [o for o in report.outcomes if o.solution == "instance"]
    assert len(bad) == 1 and bad[0].task == "crm.lead-rate-hot" and "lead-rate-hot.yaml, seed 0" in bad[0].error
    assert not report.ok
    played = [o for o in report.outcomes if o.task == "crm.answer-opportunity-industry"]
    assert played and all(o.agrees for o in played), _explain(report)


def test_the_ci_sample_plays_a_fixed_share_of_each_apps_gui_oracles(registry: TaskRegistry) -> None:
    short = [t for t in registry.task_ids() if registry.task(t).template.category != LONG]
    for app in APPS:
        ids = [t for t in short if t.startswith(f"{app}.")]
        assert any(gui_oracle_in_ci(t) for t in ids), f"CI plays none of {app}'s GUI oracles"
    share = sum(1 for t in short if gui_oracle_in_ci(t)) / len(short)
    assert abs(share - 1 / GUI_ORACLE_EVERY) < 0.15, share
    kinds = [(0, "oracle", "oracle", "gui"), (0, "noop", "noop", "none"), (0, "late", "wrong_value", "direct")]
    kept = {t: [j.solution for j in ci_sample(t, [Job(t, *k) for k in kinds])] for t in short[:20]}
    # the GUI oracle where sampled; the no-op agent and the direct near-misses of every template
    assert all(sols == (["oracle"] if gui_oracle_in_ci(t) else []) + ["noop", "late"] for t, sols in kept.items()), kept

"""The shipped task registry: ids, unknown ids, instances by seed, determinism, set-up, the env contract."""

from __future__ import annotations

import json
import sqlite3
import textwrap
from pathlib import Path

import pytest

from tasks.errors import UnknownTask
from tasks.instance import DEFAULT_FINAL_ANSWER
from tasks.model import AnswerStep, Infeasible
from tasks.registry import TaskRegistry

SEEDS = (0, 1, 2)


def test_every_shipped_file_loads(registry: TaskRegistry) -> None:
    assert registry.errors == []
    ids = registry.ids()
    assert ids and all(i == f"{registry.task(i).template.app}.{registry.task(i).id}" for i in ids)
    assert {i.split(".", 1)[0] for i in ids} >= {"crm", "desk", "mail"}
    assert registry.env_ids()[0] == "sandbox/" + ids[0]


def test_ids_in_every_form_resolve(registry: TaskRegistry) -> None:
    tid = registry.task_ids()[0]  # qualified: crm.<id>
    own = tid.partition(".")[2]
    for form in (tid, own, f"sandbox/{tid}"):
        assert registry.resolve_id(form) == tid


def test_unknown_id_lists_close_ids(registry: TaskRegistry) -> None:
    tid = registry.task_ids()[0]
    typo = tid[:-1] + ("x" if tid[-1] != "x" else "y")
    with pytest.raises(UnknownTask) as info:
        registry.instance(typo, 0)
    assert f"unknown task '{typo}'" in str(info.value)
    assert tid in info.value.close and "did you mean" in str(info.value)
    with pytest.raises(UnknownTask):
        registry.get("crm.no-such-task-at-all", 0)


def test_instances_differ_by_seed(registry: TaskRegistry) -> None:
    """Different records and expected values per seed; the text differs too unless the task names no
    record ("the largest deal closing this month": the world, hence the answer, differs)."""
    same_text = []
    for tid in registry.task_ids():
        instances = [registry.instance(tid, s) for s in SEEDS]
        params = [{k: v for k, v in i.describe()["params"].items() if k not in ("seed", "persona")} for i in instances]
        assert len({json.dumps(p, sort_keys=True, default=str) for p in params}) == len(SEEDS), f"{tid}: seeds draw the same parameters"
        if len({i.instruction for i in instances}) < len(SEEDS):
            same_text.append(tid)
    assert len(same_text) <= len(registry.task_ids()) // 10, f"instructions repeat across seeds: {same_text}"


def test_instances_are_deterministic(registry: TaskRegistry, store) -> None:  # noqa: ANN001
    fresh = TaskRegistry(store=store)
    for tid in registry.task_ids():
        a = registry.instance(tid, 1).describe()
        b = fresh.instance(tid, 1).describe()
        assert a == b, tid


def test_solutions_end_the_episode(registry: TaskRegistry) -> None:
    for tid in registry.task_ids():
        inst = registry.instance(tid, 0)
        assert inst.near_misses, f"{tid} has no near-miss"
        for sol in inst.solutions():
            assert isinstance(sol.steps[-1], (AnswerStep, Infeasible)), (tid, sol.name)


def test_episode_spec_contract(registry: TaskRegistry) -> None:
    from sandbox.spec import EpisodeSpec, TaskSource

    assert isinstance(registry, TaskSource)
    qualified = registry.ids()[0]
    spec = registry.get(qualified, 2)
    assert isinstance(spec, EpisodeSpec)
    assert spec.id == qualified and spec.seed == 2 and spec.persona and spec.verify is not None
    assert spec.params["seed"] == 2 and spec.metadata["difficulty"] in ("easy", "medium", "hard")
    # Another seed draws the task again (parameters, instruction, verifier), not only the world.
    other = spec.with_seed(0)
    assert other.seed == 0 and other.params["seed"] == 0
    assert other.params == registry.get(qualified, 0).params and other.instruction == registry.get(qualified, 0).instruction


SETUP_TASK = """
id: setup-task
app: crm
title: A task with set-up
category: single-field-edit
difficulty: easy
persona: {role: support_agent}
max_steps: 5
params:
  acct:
    sql: select id, name from crm_account order by id
    pick: first
  open_cases:
    value: select count(*) from crm_case where account_id = {{ acct.id }} and status != 'Closed'
    after_setup: true
setup:
  - insert: crm_case
    values: {subject: "Printer on fire", case_number: "09999999", status: New, priority: High, account_id: "{{ acct.id }}", owner_id: "{{ persona.id }}", created_at: "{{ now }}"}
    as: new_case
  - update: crm_account
    where: {id: "{{ acct.id }}"}
    set: {rating: Hot}
instruction: Close case 09999999 of {{ acct.name }} ({{ open_cases }} open).
verifier:
  - kind: changes
    expect:
      - {table: crm_case, op: update, where: {id: "{{ new_case }}"}, to: {status: Closed}}
oracle:
  - goto: /cases/{{ new_case }}
near_misses:
  - name: wrong
    kind: wrong_value
    mutate:
      - update: crm_case
        where: {id: "{{ new_case }}"}
        set: {status: Working}
"""


def test_setup_and_values_after_setup(tmp_path: Path, store) -> None:  # noqa: ANN001
    (tmp_path / "crm").mkdir()
    (tmp_path / "crm" / "setup-task.yaml").write_text(textwrap.dedent(SETUP_TASK))
    reg = TaskRegistry(tmp_path, store=store)
    inst = reg.instance("setup-task", 0)
    world = store.create(0)
    before = sqlite3.connect(world.path).execute(
        "select count(*) from crm_case where account_id = ? and status != 'Closed'", (inst.params["acct"]["id"],)).fetchone()[0]
    assert inst.params["open_cases"] == before + 1  # computed after the set-up inserted the case
    assert f"({before + 1} open)" in inst.instruction
    inst.setup(world)
    conn = sqlite3.connect(world.path)
    row = conn.execute("select subject, status, account_id from crm_case where id = ?", (inst.params["new_case"],)).fetchone()
    assert row == ("Printer on fire", "New", inst.params["acct"]["id"])
    assert conn.execute("select rating from crm_account where id = ?", (inst.params["acct"]["id"],)).fetchone()[0] == "Hot"
    assert inst.oracle.steps[-1] == AnswerStep(answer=DEFAULT_FINAL_ANSWER)  # solutions end with an answer
    seq = world.changelog_seq()
    inst.apply_mutations(world, inst.near_miss("wrong"))
    diff, _ = world.changes_since(seq)
    from verifiers import VerifyContext

    verdict = inst.verify(VerifyContext(end_db=world.path, diff=diff, answer="Done."))
    assert not verdict.passed and "status is Working" in verdict.reason


def test_instance_errors_name_the_file_the_seed_and_the_field(tmp_path: Path, store) -> None:  # noqa: ANN001
    from tasks.params import InstanceError
    from tasks.registry import TASKS_DIR

    (tmp_path / "crm").mkdir()
    text = (TASKS_DIR / "crm" / "lead-rate-hot.yaml").read_text().replace("params:", "assert:\n  - select 0\nparams:", 1)
    (tmp_path / "crm" / "lead-rate-hot.yaml").write_text(text)
    with pytest.raises(InstanceError) as info:
        TaskRegistry(tmp_path, store=store).instance("lead-rate-hot", 2)
    message = str(info.value)
    assert "lead-rate-hot.yaml (seed 2)" in message and "assert[0]" in message


def test_long_horizon_tasks_name_their_apps_in_the_episode_spec(registry: TaskRegistry) -> None:
    from apps_web import registry as apps

    installed = {a.name for a in apps.discover()}
    long = [t for t in registry.task_ids() if registry.task(t).template.category == "long-horizon"]
    assert long
    for tid in long:
        t = registry.task(tid).template
        spec = registry.get(tid, 0)
        assert t.id.startswith("long-") and len({t.app, *t.apps}) >= 3, tid
        assert spec.apps == tuple(t.apps) and set(spec.apps) <= installed and spec.app not in spec.apps
        # milestones (tasks/README.md): each expectation of a changes check (named, weighted) and each other check that
        # is not a guard (named); 4 to 12 of them, up to 20 for a task of 200-500 actions
        checks = t.verifier["checks"]
        expect = [e for c in checks if c["kind"] == "changes" for e in c["expect"]]
        others = [c for c in checks if c["kind"] != "changes" and not c.get("guard")]
        most = 20 if t.max_steps >= 300 else 12
        assert 4 <= len(expect) + len(others) <= most, (tid, len(expect), len(others))
        assert all("name" in e and "weight" in e for e in expect) and all("name" in c for c in others), tid


def test_a_file_that_does_not_load_fails_a_strict_registry_and_is_left_out_of_a_lenient_one(tmp_path: Path, store) -> None:  # noqa: ANN001
    import shutil

    from tasks.registry import TASKS_DIR, TaskLoadError

    (tmp_path / "crm").mkdir()
    shutil.copy(TASKS_DIR / "crm" / "opportunity-close-won.yaml", tmp_path / "crm")
    (tmp_path / "crm" / "broken-one.yaml").write_text("id: broken-one\napp: crm\ntitle: Half a task\n")
    with pytest.raises(TaskLoadError, match="broken-one.yaml"):
        TaskRegistry(tmp_path, store=store).task_ids()
    lenient = TaskRegistry(tmp_path, store=store, strict=False)
    assert lenient.task_ids() == ["crm.opportunity-close-won"]
    assert [e.path.name for e in lenient.errors] == ["broken-one.yaml"]
    assert lenient.instance("crm.opportunity-close-won", 0).instruction


def test_a_registry_for_one_task_reads_only_its_file_and_gives_the_same_instance(tmp_path: Path, registry: TaskRegistry, store) -> None:  # noqa: ANN001
    import shutil

    from tasks.registry import TASKS_DIR, TaskLoadError

    tid = "crm.opportunity-close-won"
    for form in (tid, "opportunity-close-won", f"sandbox/{tid}"):
        one = TaskRegistry.for_task(form, store=store)
        assert one.task_ids() == [tid]
        a, b = one.instance(form, 3), registry.instance(tid, 3)
        assert (a.instruction, a.persona, a.start_url, a.params) == (b.instruction, b.persona, b.start_url, b.params)
    # a broken file beside it is not read; its own file broken is reported
    (tmp_path / "crm").mkdir()
    shutil.copy(TASKS_DIR / "crm" / "opportunity-close-won.yaml", tmp_path / "crm")
    (tmp_path / "crm" / "broken-one.yaml").write_text("id: broken-one\napp: crm\ntitle: Half a task\n")
    assert TaskRegistry.for_task(tid, tmp_path, store=store).instance(tid, 0).instruction
    with pytest.raises(TaskLoadError, match="broken-one.yaml"):
        TaskRegistry.for_task("crm.broken-one", tmp_path, store=store).instance("crm.broken-one", 0)
    # no file of that name: the whole folder, so the error lists the close ids
    with pytest.raises(UnknownTask) as info:
        TaskRegistry.for_task("crm.opportunity-close-wo", store=store).instance("crm.opportunity-close-wo", 0)
    assert tid in info.value.close
    two = registry.task_ids()[-1]
    assert TaskRegistry.for_tasks([tid, two], store=store).task_ids() == sorted({tid, two})


def test_only_a_selection_of_plain_ids_names_its_tasks() -> None:
    from tasks.registry import plain_ids

    assert plain_ids("crm.opportunity-close-won") == ["crm.opportunity-close-won"]
    assert plain_ids(["crm.a, desk.b", "mail.c"]) == ["crm.a", "desk.b", "mail.c"]
    for selection in (None, "", [], "crm.*", "crm.a,*close*", "!category:long-horizon", "tag:path", "crm.a,app:desk", "crm.[ab]"):
        assert plain_ids(selection) is None, selection

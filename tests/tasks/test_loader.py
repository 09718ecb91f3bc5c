"""Malformed task files: every kind of problem is an error naming the file, the field and the problem."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tasks.errors import TaskFileError
from tasks.loader import load_dir, load_macros, load_task, world_schema

GOOD = """
id: {id}
app: crm
title: Close an opportunity
category: single-field-edit
difficulty: easy
tags: {{skill: [path], occupation: [account-executive]}}
persona: {{role: sales_rep}}
start_url: /opportunities/{{{{ opp.id }}}}
max_steps: 10
params:
  opp:
    sql: select id, name from crm_opportunity where stage = 'Prospecting' order by id
instruction: Close "{{{{ opp.name }}}}" as won.
verifier:
  - kind: changes
    expect:
      - {{table: crm_opportunity, op: update, where: {{id: "{{{{ opp.id }}}}"}}, to: {{stage: Closed Won}}}}
oracle:
  - click: {{role: button, name: Closed}}
  - answer: done
"""


def write(tmp_path: Path, text: str, name: str = "close-it") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def good(tmp_path: Path, name: str = "close-it", **replace: str) -> Path:
    text = GOOD.format(id=name)
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    return write(tmp_path, text, name)


def problems(path: Path, **kw) -> list[str]:
    with pytest.raises(TaskFileError) as info:
        load_task(path, **kw)
    assert str(path.name) in str(info.value)  # the file is named
    return info.value.problems


def test_a_good_file_loads(tmp_path: Path) -> None:
    task = load_task(good(tmp_path))
    assert task.id == "close-it" and task.template.env_id == "sandbox/crm.close-it"
    assert task.verifier.parameters == {"opp"}


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "id: x\ninstruction: [unclosed\nmax_steps: 3\n")
    (msg,) = problems(path)
    assert msg.startswith("YAML syntax error at line 3")


def test_not_a_mapping(tmp_path: Path) -> None:
    (msg,) = problems(write(tmp_path, "- just\n- a list\n"))
    assert "a task file is a mapping" in msg and "not list" in msg


def test_missing_field_and_unknown_key(tmp_path: Path) -> None:
    path = good(tmp_path, **{"instruction: ": "instructions: "})
    out = problems(path)
    assert "instruction: required" in out
    assert "instructions: unknown key" in out


def test_wrong_enum_value(tmp_path: Path) -> None:
    out = problems(good(tmp_path, **{"difficulty: easy": "difficulty: trivial"}))
    assert any(p.startswith("difficulty: Input should be 'easy', 'medium' or 'hard'") and "'trivial'" in p for p in out)


def test_bad_steps_name_their_index_and_field(tmp_path: Path) -> None:
    out = problems(good(tmp_path, **{"- click: {role: button, name: Closed}": "- clik: {role: button}\n  - fill: {role: textbox, nam: x}\n  - click: {name: Save}"}))
    assert any(p.startswith("oracle[0]: a step needs one of the keys: click, fill") for p in out)
    assert "oracle[1].fill.nam: unknown key" in out
    assert "oracle[1].text: required" in out
    assert any(p.startswith("oracle[2].click: 'name' goes with 'role'") or p.startswith("oracle[2].click: a target needs exactly one") for p in out)


def test_bad_parameter(tmp_path: Path) -> None:
    out = problems(good(tmp_path, **{"    sql: select id": "    choice: [1]\n    sql: select id"}))
    assert any(p.startswith("params.opp: a parameter needs exactly one of sql, value, choice") and "(got sql, choice)" in p for p in out)


def test_id_must_match_the_file_name(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.format(id="other-name"), "close-it")
    assert problems(path) == ["id: 'other-name' must match the file name 'close-it'"]


def test_unknown_app(tmp_path: Path) -> None:
    out = problems(good(tmp_path, **{"app: crm": "app: erp"}))
    assert any(p.startswith("app: no app 'erp' (apps: crm") for p in out)


def test_verifier_naming_a_missing_table_or_field(tmp_path: Path) -> None:
    out = problems(good(tmp_path, **{"{table: crm_opportunity, op: update": "{table: crm_oportunity, op: update"}))
    assert any("verifier.checks[0].expect[0].table: no table 'crm_oportunity' in the world (did you mean 'crm_opportunity'?)" in p for p in out), out
    out = problems(good(tmp_path, **{"to: {stage: Closed Won}": "to: {stagee: Closed Won}"}))
    assert any("verifier.checks[0].expect[0].to.stagee: no column 'stagee' in table crm_opportunity (did you mean 'stage'?)" in p for p in out), out


def test_malformed_verifier_spec(tmp_path: Path) -> None:
    out = problems(good(tmp_path, **{"kind: changes": "kind: change"}))
    assert any(p.startswith("verifier.checks[0].kind: unknown check kind 'change' (did you mean 'changes'?)") for p in out), out


def test_sql_errors_are_found_at_load_time(tmp_path: Path) -> None:
    out = problems(good(tmp_path, **{"select id, name from crm_opportunity": "select id, nam from crm_opportunity"}))
    assert out == ["params.opp.sql: SQL error: no such column: nam"]


def test_setup_names_existing_tables_and_columns(tmp_path: Path) -> None:
    extra = "setup:\n  - update: crm_opportunity\n    where: {id: 1}\n    set: {amout: 5}\n  - insert: crm_nothing\n    values: {a: 1}\ninstruction: "
    out = problems(good(tmp_path, **{"instruction: ": extra}))
    assert "setup[0].set.amout: no column 'amout' in table crm_opportunity" in out
    assert "setup[1].insert: no table 'crm_nothing' in the world" in out


def test_setup_operation_shape(tmp_path: Path) -> None:
    out = problems(good(tmp_path, **{"instruction: ": "setup:\n  - update: crm_opportunity\n    set: {amount: 5}\ninstruction: "}))
    assert out == ["setup[0]: update needs 'where' and 'set'"]


def test_unknown_parameters_in_text_steps_and_verifier(tmp_path: Path) -> None:
    out = problems(good(tmp_path, **{"Close \"{{ opp.name }}\"": "Close \"{{ op.name }}\"", "name: Closed}": "name: \"{{ stage }}\"}"}))
    assert any(p.startswith("instruction: unknown parameter op (parameters: opp)") for p in out), out
    assert any(p.startswith("oracle[0]: unknown parameter stage") for p in out), out
    out = problems(good(tmp_path, **{'where: {id: "{{ opp.id }}"}': 'where: {id: "{{ opportunity.id }}"}'}))
    assert "verifier: unknown parameter opportunity" in out
    # an expression would stay literal text in the verifier (it substitutes parameters only)
    out = problems(good(tmp_path, **{"to: {stage: Closed Won}": 'to: {name: "{{ opp.name | upper }}", stage: "{{ opp[\'name\'] }}"}'}))
    assert [p for p in out if "is an expression" in p] == [
        "verifier: {{ opp.name | upper }} is an expression, but the verifier only substitutes parameters; make it a parameter (expr: ...) and name that",
        "verifier: {{ opp['name'] }} is an expression, but the verifier only substitutes parameters; make it a parameter (expr: ...) and name that"], out


def test_template_syntax_error(tmp_path: Path) -> None:
    out = problems(good(tmp_path, **{"Close \"{{ opp.name }}\"": "Close \"{{ opp.name }\""}))
    assert any(p.startswith("instruction: template syntax error") for p in out), out


def test_macros_must_exist_and_get_their_arguments(tmp_path: Path) -> None:
    macros = load_macros(write(tmp_path, "inline_edit:\n  args: [field, text]\n  steps:\n    - click: {role: button, name: 'Edit {{ field }}'}\n", "_macros"))
    step = "- use: inline_edt\n    args: {field: Amount}\n  - use: inline_edit\n    args: {field: Amount, value: 3}"
    out = problems(good(tmp_path, **{"- click: {role: button, name: Closed}": step}), macros=macros)
    assert "oracle[0].use: no macro 'inline_edt' (did you mean 'inline_edit'?); macros: inline_edit" in out
    assert "oracle[1].args: macro 'inline_edit' needs text" in out
    assert "oracle[1].args: macro 'inline_edit' takes no value (args: field, text)" in out


def test_malformed_macro_file(tmp_path: Path) -> None:
    with pytest.raises(TaskFileError) as info:
        load_macros(write(tmp_path, "inline_edit:\n  arg: [x]\n", "_macros"))
    assert "inline_edit.arg: unknown key" in info.value.problems
    assert "inline_edit.steps: required" in info.value.problems


def test_hooks_must_import(tmp_path: Path) -> None:
    out = problems(good(tmp_path, **{"    sql: select id, name from crm_opportunity where stage = 'Prospecting' order by id": "    python: tasks.nowhere:draw"}))
    assert any(p.startswith("params.opp.python: cannot load hook 'tasks.nowhere:draw'") for p in out), out


def test_near_miss_shape(tmp_path: Path) -> None:
    nm = "near_misses:\n  - name: Wrong One\n    kind: wrong_record\n  - name: x\n    kind: typo\n    answer: 3\ninstruction: "
    out = problems(good(tmp_path, **{"instruction: ": nm}))
    assert any(p.startswith("near_misses[0].name: a near-miss name is lowercase") for p in out), out
    assert any(p.startswith("near_misses[1].kind: Input should be 'wrong_record'") for p in out), out


def test_load_dir_collects_every_broken_file(tmp_path: Path) -> None:
    app = tmp_path / "crm"
    app.mkdir()
    good(app, "first-task")
    write(app, "id: [", "broken-task")
    tasks, errors = load_dir(tmp_path)
    assert list(tasks) == ["crm.first-task"]  # keyed by app: ids are unique per app
    assert len(errors) == 1 and "broken-task.yaml" in str(errors[0])


def test_a_folder_of_ones_own_sees_the_shipped_macros(tmp_path: Path) -> None:
    from tasks.registry import TASKS_DIR

    app = tmp_path / "crm"
    app.mkdir()
    good(app, "close-it", **{"  - click: {role: button, name: Closed}": "  - use: close_opportunity\n    args: {stage: Closed Won}"})
    tasks, errors = load_dir(tmp_path)
    assert not tasks and "no macro 'close_opportunity'" in str(errors[0])
    tasks, errors = load_dir(tmp_path, shipped=TASKS_DIR)
    assert not errors and list(tasks) == ["crm.close-it"]
    # a macro of one's own with the same name wins; a root _macros.yaml serves every app
    (tmp_path / "_macros.yaml").write_text("close_opportunity:\n  args: [stage]\n  steps:\n    - click: {role: button, name: Mine}\n")
    tasks, errors = load_dir(tmp_path, shipped=TASKS_DIR)
    assert not errors and tasks["crm.close-it"].macros["close_opportunity"].steps[0].click.name == "Mine"


def test_schema_is_the_template_worlds(store) -> None:  # noqa: ANN001
    import sqlite3

    conn = sqlite3.connect(f"file:{store.template(0)}?mode=ro", uri=True)
    tables = {r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")}
    schema = world_schema()
    for table, columns in schema.items():
        assert table in tables
        assert {r[1] for r in conn.execute(f'pragma table_info("{table}")')} == set(columns)


def test_interfaces_and_their_oracles(tmp_path: Path) -> None:
    both = "oracle:\n  - click: {role: button, name: Closed}\n  - answer: done\ninterfaces: [gui, tools]\n"
    no_tool_oracle = problems(good(tmp_path, **{"oracle:\n  - click: {role: button, name: Closed}\n  - answer: done\n": both}))
    assert any("needs a tool_oracle" in p for p in no_tool_oracle)
    tools_only = "oracle:\n  - click: {role: button, name: Closed}\n  - answer: done\ninterfaces: [tools]\n"
    assert any("tools-only task's oracle must be tool steps" in p for p in problems(good(tmp_path, **{"oracle:\n  - click: {role: button, name: Closed}\n  - answer: done\n": tools_only})))
    bad_kind = "oracle:\n  - click: {role: button, name: Closed}\n  - answer: done\ninterfaces: [shell]\n"
    assert any(p.startswith("interfaces[0]") for p in problems(good(tmp_path, **{"oracle:\n  - click: {role: button, name: Closed}\n  - answer: done\n": bad_kind})))
    ok = both + 'tool_oracle:\n  - tool: crm_update_opportunity\n    args: {record_id: "{{ opp.id }}", stage: Closed Won}\n'
    task = load_task(good(tmp_path, **{"oracle:\n  - click: {role: button, name: Closed}\n  - answer: done\n": ok}))
    assert task.template.interfaces == ["gui", "tools"] and task.template.tool_oracle[0].tool == "crm_update_opportunity"


def test_the_worked_example_of_the_readme_loads_and_draws_its_instances(store) -> None:  # noqa: ANN001
    """docs/examples/tasks (tasks/README.md's worked example) loads with the shipped macros and draws at seeds 0-2."""
    from tasks.registry import TaskRegistry

    examples = Path(__file__).resolve().parents[2] / "docs" / "examples" / "tasks"
    registry = TaskRegistry(examples, store=store)
    assert registry.task_ids() == ["crm.lead-update-bounced-email"]
    names = {registry.instance("crm.lead-update-bounced-email", s).params["lead"]["name"] for s in range(3)}
    assert len(names) == 3  # each seed names another lead


def test_actors_events_and_clock_errors_name_the_field(tmp_path: Path) -> None:
    def with_(block: str) -> list[str]:
        return problems(good(tmp_path, **{"instruction: ": block + "instruction: "}))

    out = with_("actors:\n  - {user: bob, knws: []}\n")
    assert any("actors[0]: unknown keys knws" in p for p in out)
    assert any("'user'" in p for p in with_("actors:\n  - {delay: 5m}\n"))
    assert any("exactly one of 'at'" in p for p in with_("events:\n  - {message: {app: chat, from: a, to: b, text: hi}}\n"))
    assert any("such as '+45m'" in p for p in with_("events:\n  - {at: soon, message: {app: chat, from: a, to: b, text: hi}}\n"))
    assert any("needs 'to'" in p for p in with_("events:\n  - {at: +5m, message: {app: chat, from: a, text: hi}}\n"))
    assert any("events[0].update.set.amout: no column" in p
               for p in with_("events:\n  - {after_step: 2, update: {update: crm_opportunity, where: {id: 1}, set: {amout: 5}}}\n"))
    assert any("events[0].message" in p and "unknown" in p.lower()
               for p in with_("events:\n  - {at: +5m, message: {app: chat, from: a, to: b, text: \"{{ nope }}\"}}\n"))
    assert any("clock moves only in tasks with actors or events" in p for p in with_("clock: {per_step: 1m}\n"))
    assert any("per_step" in p for p in with_("actors:\n  - {user: bob}\nclock: {per_step: often}\n"))


def test_apps_of_a_multi_app_task_and_their_macros(tmp_path: Path) -> None:
    from tasks.registry import TASKS_DIR

    # apps: installed apps besides the start app, named clearly otherwise
    out = problems(good(tmp_path, **{"app: crm": "app: crm\napps: [mail, erp]"}))
    assert any(p.startswith("apps[1]: no app 'erp' (installed apps: ") for p in out) and not any("apps[0]" in p for p in out)
    out = problems(good(tmp_path, **{"app: crm": "app: crm\napps: [crm]"}))
    assert any("remove 'crm' (it is 'app')" in p for p in out)
    # another app's macro is seen as <app>.<name> by a task that declares the app, and by no other
    app = tmp_path / "crm"
    app.mkdir()
    step = "  - click: {role: button, name: Closed}"
    use = "  - use: mail.new_event_at\n    args: {subject: Kick-off, start: '2026-03-20T10:00', end: '2026-03-20T11:00'}"
    good(app, "one-app", **{step: use})
    good(app, "two-apps", **{step: use, "app: crm": "app: crm\napps: [mail]"})
    tasks, errors = load_dir(tmp_path, shipped=TASKS_DIR)
    assert list(tasks) == ["crm.two-apps"] and len(errors) == 1
    assert "macro 'mail.new_event_at' is an app 'mail' macro; add 'mail' to the task's apps" in str(errors[0])
    # its relative paths are on its own app's host, its own macros qualified the same way
    macros = tasks["crm.two-apps"].macros
    assert macros["mail.new_event_at"].steps[0].goto.startswith("http://mail.localhost/calendar/deeplink/compose?")
    assert macros["crm.open_record"].steps == macros["open_record"].steps
    assert tasks["crm.two-apps"].template.summary()["apps"] == ["mail"]


def test_sql_binds_every_value_in_the_order_it_appears_every_time() -> None:
    """Values become ``?`` bound in order, constants included (a compiled statement is reused, so
    nothing may be bound at compile time); quotes stay data; a syntax error says so."""
    import datetime as dt

    from tasks.render import RenderError, render_sql

    sql = "select * from t where a = {{ x }} and b = {{ 5 }} and c = {{ d }}{% for i in xs %} or e = {{ i }}{% endfor %}"
    for _ in range(2):
        assert render_sql(sql, {"x": "o'k", "d": dt.date(2026, 1, 2), "xs": [7, 8]}) == (
            "select * from t where a = ? and b = ? and c = ? or e = ? or e = ?", ["o'k", 5, "2026-01-02", 7, 8])
    assert render_sql(sql, {"x": 1, "d": dt.datetime(2026, 1, 2, 9, 30), "xs": []})[1] == [1, 5, "2026-01-02 09:30:00"]
    with pytest.raises(RenderError, match="template syntax error"):
        render_sql("select {{ x ", {"x": 1})
    with pytest.raises(RenderError, match="undefined"):
        render_sql("select {{ nope }}", {})

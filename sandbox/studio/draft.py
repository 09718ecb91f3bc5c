"""Demo to task: draft a task template (the ``tasks/`` YAML format) from a free-exploration recording.

- the world diff of the recording becomes the verifier: a ``state`` check per changed record (its
  final values) and a strict ``changes`` check (what may be added, updated, removed; nothing else);
- the records the demonstration touched become parameters whose queries find an equivalent record
  in every seed's world (generalize.py), and the persona becomes that record's owner or a user of
  the demonstration user's role; without the recording's world they pick the records by id;
- the recorded steps become the oracle: a press on something the player can find by role and name
  (or label, or text) is a ``click`` on that target (targets.py checked it while recording), other
  steps stay canonical actions; typed text, targets and the instruction that name a parameter's
  record are written as ``{{ param.field }}``;
- near-misses are proposed from the diff: the same change on another equivalent record, another value
  for the changed field, the change plus an extra field saved, each change skipped, and the
  demonstration without its last saving step.

The author writes the instruction (and edits anything else); :func:`save_draft` checks the file with
the task loader and writes it into a drafts folder, never into the shipped task set.
"""

from __future__ import annotations

import fnmatch
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sandbox.trajectory import Episode

TODO = "TODO: say what the agent must do (the recording changed: {changes})."
LABEL_FIELDS = ("name", "subject", "title", "last_name", "username")
SKIP_FIELDS = re.compile(r"^(id|created_at|updated_at|last_modified.*|created_by.*|last_viewed.*)$")
MAX_NEAR_MISSES = 10


class DraftError(ValueError):
    """The recording cannot become a task (it changed nothing, it is not finished...)."""


@dataclass
class Draft:
    task_id: str
    app: str
    seed: int
    yaml: str
    instruction: str = ""
    changes: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)  # a recorded record's name -> "{{ param.field }}"


class _Flow(list):
    """A list dumped in YAML flow style ([a, b]) for short rows."""


class _FlowMap(dict):
    """A short mapping dumped in YAML flow style ({id: 12})."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Flow, lambda d, v: d.represent_sequence("tag:yaml.org,2002:seq", v, flow_style=True))
_Dumper.add_representer(_FlowMap, lambda d, v: d.represent_mapping("tag:yaml.org,2002:map", v, flow_style=True))
_Dumper.add_representer(
    str, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", v, style="|" if "\n" in v else None)
)



def _default_role(app: str) -> str | None:
    from apps_web import registry

    spec = registry.get(app)
    return spec.default_role if spec is not None else None

def _volatile(app: str) -> tuple[str, ...]:
    from apps_web import registry

    spec = registry.get(app)
    return tuple(spec.volatile) if spec else ()


def _ignored(table: str, column: str | None, volatile: tuple[str, ...]) -> bool:
    for pattern in volatile:
        t, _, f = pattern.partition(".")
        if not f and column is None and fnmatch.fnmatchcase(table, t):
            return True
        if not f and fnmatch.fnmatchcase(table, t):
            return True
        if f and column is not None and fnmatch.fnmatchcase(table, t) and fnmatch.fnmatchcase(column, f):
            return True
    return False


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _label_field(row: dict[str, Any]) -> str | None:
    return next((f for f in LABEL_FIELDS if isinstance(row.get(f), str) and row.get(f)), None)


def _other_value(value: Any) -> Any:
    """A plausible wrong value of the same type."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return round(value * 1.1 + 1, 2)
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", value):
        import datetime as dt

        day = dt.date.fromisoformat(value[:10]) + dt.timedelta(days=1)
        return day.isoformat() + value[10:]
    if isinstance(value, str):
        return f"{value} (other)"
    return None


def draft_from_episode(episode: Episode, *, store: Any = None) -> Draft:
    """Build a task draft from a finished free-exploration episode folder."""
    rec = episode.record
    if rec.status != "finished":
        raise DraftError(f"{episode.path.name} is not finished yet: finish the recording first")
    diff = getattr(rec, "world_diff", None) or (rec.model_extra or {}).get("world_diff")
    if diff is None:
        diff = _diff_from_steps(episode)
    app = rec.app or rec.task.split(".", 1)[0]
    volatile = _volatile(app)
    tables = {
        name: t for name, t in (diff.get("tables") or {}).items() if not _ignored(name, None, volatile)
    }
    if not tables:
        raise DraftError(
            f"{episode.path.name} changed nothing in the world; a task needs a change to verify "
            "(or record an answer-only task by hand)"
        )

    world = None
    if store is not None:
        from .generalize import World

        try:
            world = World.open(store.template(rec.seed))
        except Exception:  # noqa: BLE001 - no world to read: parameters pick the records by id
            world = None
    persona_name = getattr(rec, "persona", None) or (rec.model_extra or {}).get("persona")
    persona_user = world.user(persona_name) if world is not None and isinstance(persona_name, str) else None
    owner_param: str | None = None
    record_params: dict[tuple[str, int], str] = {}  # (table, id) -> the parameter that draws it
    params: dict[str, Any] = {}
    state: list[dict[str, Any]] = []
    expect: list[dict[str, Any]] = []
    near: list[dict[str, Any]] = []
    lines: list[str] = []
    labels: dict[str, str] = {}  # literal text -> "{{ param.field }}"
    inserts: dict[int, dict[str, Any]] = {}  # index in expect -> the insert that adds that row
    first_change = ""

    def fields_of(table: str, row: dict[str, Any], names: list[str] | None = None) -> dict[str, Any]:
        keys = names if names is not None else list(row)
        return {
            k: row[k] for k in keys
            if k in row and not SKIP_FIELDS.match(k) and not _ignored(table, k, volatile)
        }  # fmt: skip

    def record_param(p: str, table: str, key: int, row: dict[str, Any], changed: dict[str, Any], label: str | None) -> Any:
        """Parameter ``p`` draws a record like ``row`` (by id without the recording's world); returns its
        generalization, if any."""
        nonlocal owner_param
        eq = _equivalent(world, table, key, row, changed, label, persona_user)
        if eq is not None:
            params[p] = {"sql": eq.sql}
            if eq.owner and owner_param is None:
                owner_param = p
        else:
            params[p] = {"sql": f"select id{', ' + label if label else ''} from {table} where id = {key}", "pick": "first"}
        record_params[(table, key)] = p
        if label:
            labels[str(row[label])] = f"{{{{ {p}.{label} }}}}"
        return eq

    def other_param(p: str, table: str, key: int, eq: Any) -> dict[str, Any]:
        """Another record for the wrong-record near-miss: an equivalent one where there is a generalization."""
        from .generalize import other_query

        if eq is not None:
            return {"sql": other_query(table, eq, p), "pick": "first"}
        return {"sql": f"select id from {table} where id != {key} order by id", "pick": "first"}

    n = 0
    # Changed and removed records first: an added row may refer to one of them (by its parameter).
    passes = [(table, t, kinds) for kinds in (("updated", "removed"), ("added",)) for table, t in sorted(tables.items())]
    for table, t, kinds in passes:
        short = table.split("_", 1)[-1]
        for upd in (t.get("updated") or []) if "updated" in kinds else []:
            changed = fields_of(table, upd["after"], upd.get("fields") or [])
            if not changed:
                continue
            n += 1
            p = f"{short}{n}"
            key = upd["key"]
            label = _label_field(upd["before"])
            eq = record_param(p, table, int(key), upd["before"], changed, label)
            where = {"id": f"{{{{ {p}.id }}}}"}
            state.append({"kind": "state", "table": table, "where": where, "expect": dict(changed)})
            expect.append({"table": table, "op": "update", "where": where, "to": dict(changed)})
            what = f"{table} #{key}: " + ", ".join(f"{k} {upd['before'].get(k)!r} -> {v!r}" for k, v in changed.items())
            lines.append(what)
            first_change = first_change or f"{short}-update-{next(iter(changed))}"
            other = f"other_{p}"
            params[other] = other_param(p, table, int(key), eq)
            near.append({
                "name": f"wrong-record-{n}", "kind": "wrong_record",
                "description": f"the same change made to another {short} record",
                "mutate": [{"update": table, "where": {"id": f"{{{{ {other}.id }}}}"}, "set": dict(changed)}],
            })  # fmt: skip
            field_name, value = next(iter(changed.items()))
            wrong = _other_value(value)
            if isinstance(value, str) and not re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", value):
                alt = f"alt_{p}"  # another value this column really takes in the world (a picklist's other option)
                params[alt] = {
                    "sql": f"select distinct {field_name} as v from {table} where {field_name} is not null "
                    f"and {field_name} != (select {field_name} from {table} where id = {int(key)}) "
                    f"and {field_name} != {_sql_literal(value)} order by 1",
                    "pick": "first",
                }
                wrong = f"{{{{ {alt}.v }}}}"
            if wrong is not None:
                near.append({
                    "name": f"wrong-value-{n}", "kind": "wrong_value",
                    "description": f"the right {short} record, another {field_name}",
                    "mutate": [{"update": table, "where": {"id": f"{{{{ {p}.id }}}}"}, "set": {**changed, field_name: wrong}}],
                })  # fmt: skip
            extra = _extra_field(table, upd["before"], changed, volatile)
            if extra is not None:  # the right change saved together with another field
                near.append({
                    "name": f"extra-change-{n}", "kind": "damage",
                    "description": f"the change, and {extra[0]} of the same {short} record changed too",
                    "mutate": [{"update": table, "where": {"id": f"{{{{ {p}.id }}}}"}, "set": {**changed, extra[0]: extra[1]}}],
                })  # fmt: skip
        for row in (t.get("added") or []) if "added" in kinds else []:
            row = _templated_refs(world, table, row, record_params, persona_user)
            values = fields_of(table, row)
            n += 1
            match = {k: v for k, v in values.items() if v is not None and not isinstance(v, float)}
            state.append({"kind": "state", "table": table, "where": match, "count": 1})
            expect.append({"table": table, "op": "add", "where": match})
            label = _label_field(row)
            lines.append(f"{table}: added" + (f" {row[label]!r}" if label else f" #{row.get('id')}"))
            first_change = first_change or f"{short}-create"
            full = {k: v for k, v in row.items() if k != "id"}  # every column: the table's NOT NULLs included
            inserts[len(expect) - 1] = {"insert": table, "values": full}
            wrong_field = label or next((k for k, v in values.items() if isinstance(v, str)), None)
            if wrong_field is not None:
                near.append({
                    "name": f"wrong-value-{n}", "kind": "wrong_value",
                    "description": f"a new {short} record with another {wrong_field}",
                    "mutate": [{"insert": table, "values": {**full, wrong_field: _other_value(full[wrong_field])}}],
                })  # fmt: skip
        for row in (t.get("removed") or []) if "removed" in kinds else []:
            n += 1
            key = row.get("id")
            p = f"{short}{n}"
            label = _label_field(row)
            eq = record_param(p, table, int(key), row, {}, label)
            expect.append({"table": table, "op": "remove", "where": {"id": f"{{{{ {p}.id }}}}"}})
            state.append({"kind": "state", "table": table, "where": {"id": f"{{{{ {p}.id }}}}"}, "count": 0})
            lines.append(f"{table} #{key} removed" + (f" ({row[label]!r})" if label else ""))
            first_change = first_change or f"{short}-delete"
            other = f"other_{p}"
            params[other] = other_param(p, table, int(key), eq)
            near.append({
                "name": f"wrong-record-{n}", "kind": "wrong_record",
                "description": f"another {short} record removed",
                "mutate": [{"delete": table, "where": {"id": f"{{{{ {other}.id }}}}"}}],
            })  # fmt: skip
    if world is not None:
        world.close()
    if not expect:
        raise DraftError(f"{episode.path.name} changed only bookkeeping fields; there is nothing to verify")
    if len(expect) > 1:  # each recorded change skipped in turn (the others made directly)
        for i in range(len(expect)):
            done = [m for j, e in enumerate(expect) if j != i for m in ([inserts[j]] if j in inserts else _first_mutation_done(e))]
            near.append({
                "name": f"skip-change-{i + 1}", "kind": "incomplete", "description": f"every recorded change but: {lines[i]}",
                "mutate": done,
            })  # fmt: skip

    oracle, answer = _oracle(episode, labels)
    last_save = _last_saving_step(episode)
    if last_save is not None and len(oracle) > 1:  # the demonstration without the step that saved last
        # partial credit only when other changes were saved before it; otherwise it saves nothing
        near.append({"name": "skip-last-save", "kind": "incomplete" if len(expect) > 1 else "other",
                     "description": "every step but the one that saved last",
                     "steps": oracle[:last_save] + oracle[last_save + 1:] or [{"answer": "Done."}]})
    verifier: list[dict[str, Any]] = [*state, {"kind": "changes", "expect": expect}]
    if answer:
        verifier.append({"kind": "answer", "match": "normalized", "expected": answer})
        if len(oracle) > 1:
            near.append({"name": "wrong-answer", "kind": "wrong_answer", "steps": oracle[:-1], "answer": f"{answer} (wrong)"})

    start_url = rec.start_url or "/"
    for (table, key), p in record_params.items():
        short = table.split("_", 1)[-1][:5]
        start_url = re.sub(rf"(/{short}[a-z]*/){key}(?=$|[/?#])", rf"\g<1>{{{{ {p}.id }}}}", start_url)
    task_id = _free_task_id(_slug(first_change or "recorded") + "-draft")
    steps = len(oracle)
    if owner_param is not None:
        persona: Any = f"{{{{ {owner_param}.owner }}}}"  # the record's owner: whoever owns it in each seed
    elif persona_user is not None:
        persona = {"role": persona_user["role"]}
    else:
        persona = persona_name
    data: dict[str, Any] = {
        "id": task_id,
        "app": app,
        "title": f"TODO: a short title ({task_id})",
        "category": "single-field-edit" if len(expect) == 1 and expect[0]["op"] == "update" and len(expect[0]["to"]) == 1
        else ("create-with-lookup" if all(e["op"] == "add" for e in expect) else "workflow"),
        "difficulty": "easy" if steps <= 8 else "medium" if steps <= 20 else "hard",
        "tags": {"skill": ["recorded-demo"], "occupation": []},
        "persona": persona or {"role": _default_role(app)},
        "start_url": start_url,
        "max_steps": max(15, steps * 2),
        "params": params,
        "instruction": TODO.format(changes="; ".join(lines)),
        "verifier": verifier,
        "oracle": oracle,
        "near_misses": near[:MAX_NEAR_MISSES],
    }
    by_id = [p for p, spec in params.items() if re.search(r"\bwhere id = \d+$", spec.get("sql", ""))]
    header = (
        f"# Drafted by the studio from the recording {episode.path.name} (seed {rec.seed}).\n"
        "# Write the instruction and the title (names of the records you type are replaced by their parameters).\n"
        + (f"# {', '.join(by_id)} pick the demonstration's records by id: generalize their queries so that every seed\n"
           "# draws its own records.\n" if by_id else "# The parameters find an equivalent record in every seed's world.\n")
        + f"# Check the draft with: sandbox validate --dir <drafts folder> --tasks {task_id} --seeds 0-4\n"
    )
    return Draft(task_id=task_id, app=app, seed=rec.seed, yaml=header + dump_yaml(data), changes=lines, data=data, labels=labels)


def _equivalent(world: Any, table: str, key: int, before: dict[str, Any], changed: dict[str, Any], label: str | None,
                persona: dict[str, Any] | None) -> Any:
    if world is None:
        return None
    from .generalize import equivalent

    try:
        return equivalent(world, table, key, before, changed, label, persona)
    except Exception:  # noqa: BLE001 - a table this reading does not fit: the record is picked by id
        return None


def _extra_field(table: str, before: dict[str, Any], changed: dict[str, Any], volatile: tuple[str, ...]) -> tuple[str, Any] | None:
    """Another field of the record and a wrong value for it (the near-miss that saves one field too many)."""
    for column, value in before.items():
        if column in changed or SKIP_FIELDS.match(column) or _ignored(table, column, volatile) or column.endswith("_id"):
            continue
        if isinstance(value, str) and value and not re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", value):
            return column, _other_value(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return column, _other_value(value)
    return None


def _templated_refs(world: Any, table: str, row: dict[str, Any], records: dict[tuple[str, int], str],
                    persona: dict[str, Any] | None) -> dict[str, Any]:
    """An added row whose references to drawn records (and to the persona) are their parameters."""
    if world is None:
        return row
    try:
        refs = world.references(table)
    except Exception:  # noqa: BLE001
        return row
    out = dict(row)
    for column, value in row.items():
        if not isinstance(value, int) or isinstance(value, bool) or not column.endswith("_id"):
            continue
        target = refs.get(column)
        if target is None and isinstance(row.get(column[:-3] + "_type"), str):  # related_type / related_id
            kind = row[column[:-3] + "_type"]
            target = next((t for t, _ in records if t.split("_", 1)[-1] == kind), None)
        if target is not None and (target, value) in records:
            out[column] = f"{{{{ {records[(target, value)]}.id }}}}"
        elif target == "identity_user" and persona is not None and value == persona.get("id"):
            out[column] = "{{ persona.id }}"
    return out


def _last_saving_step(episode: Episode) -> int | None:
    """The index (among the oracle's steps) of the last recorded step that changed the world."""
    index, last = -1, None
    for s in episode.steps:
        a = s.parsed or {}
        if not a or (a.get("action") == "answer" and not _is_answer(a)):
            continue
        index += 1
        if s.changes and (s.changes.get("tables") or {}):
            last = index
    return last


def _is_answer(action: dict[str, Any]) -> bool:
    text = (action.get("text") or "").strip()
    return bool(text) and text.rstrip(".").lower() not in ("done", "ok", "")


def _templated_target(target: dict[str, Any], labels: dict[str, str]) -> dict[str, Any]:
    out = dict(target)
    for key in ("name", "label", "text"):
        if isinstance(out.get(key), str):
            out[key] = labels.get(out[key], out[key])
    if isinstance(out.get("within"), dict):
        out["within"] = _templated_target(out["within"], labels)
    return out


CLICKS = {"left_click": {}, "double_click": {"count": 2}, "right_click": {"button": "right"}}


def _sql_literal(value: Any) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def _first_mutation_done(change: dict[str, Any]) -> list[dict[str, Any]]:
    """The direct world change that does only ``change`` (one expected change out of several)."""
    if change["op"] == "update":
        return [{"update": change["table"], "where": change["where"], "set": change["to"]}]
    if change["op"] == "remove":
        return [{"delete": change["table"], "where": change["where"]}]
    return []


def _free_task_id(base: str) -> str:
    base = base[:58].strip("-") or "recorded-draft"
    return base if len(base) >= 3 else f"{base}-task"


def _oracle(episode: Episode, labels: dict[str, str]) -> tuple[list[dict[str, Any]], str | None]:
    """The recorded steps as oracle steps; the final answer (None for "Done." or infeasible)."""
    steps: list[dict[str, Any]] = []
    answer: str | None = None
    for s in episode.steps:
        a = s.parsed
        if not a:
            continue
        kind = a.get("action")
        step: dict[str, Any]
        if kind == "type":
            step = {"type": labels.get(a["text"], a["text"])}
        elif kind == "key":
            step = {"key": a["key"], **({"repeat": a["repeat"]} if a.get("repeat", 1) != 1 else {})}
        elif kind == "answer":
            text = a.get("text", "").strip()
            if _is_answer(a):
                answer = text
                steps.append({"answer": text})
            continue
        elif kind == "report_infeasible":
            steps.append({"report_infeasible": a.get("reason") or "infeasible"})
            continue
        else:
            step = {"action": dict(a)}
        target = getattr(s, "target", None) or (s.model_extra or {}).get("target")
        oracle_target = (target or {}).get("oracle")
        if kind in CLICKS and oracle_target and not a.get("modifiers"):
            step = {"click": _templated_target(oracle_target, labels), **CLICKS[kind]}
        on = f"on {target.get('role') or target.get('tag')} {target.get('name')!r}" if target and target.get("name") else None
        note = "; ".join(x for x in (s.thought, on) if x)
        if note:
            step["note"] = note
        steps.append(step)
    if not steps:
        raise DraftError(f"{episode.path.name} has no recorded steps")
    return steps, answer


def _diff_from_steps(episode: Episode) -> dict[str, Any]:
    """The world diff of a recording without a ``world_diff`` field: fold the per-step changes."""
    from apps_web.world import WorldDiff

    tables: dict[str, Any] = {}
    for s in episode.steps:
        for name, t in ((s.changes or {}).get("tables") or {}).items():
            acc = tables.setdefault(name, {"key_columns": t.get("key_columns", []), "added": [], "updated": [], "removed": []})
            for kind in ("added", "updated", "removed"):
                acc[kind].extend(t.get(kind) or [])
    return WorldDiff.model_validate({"tables": tables}).model_dump(mode="json")


def dump_yaml(data: dict[str, Any]) -> str:
    return yaml.dump(_flowify(data), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)


def _flowify(value: Any) -> Any:
    if isinstance(value, dict):
        scalars = all(isinstance(v, (str, int, float, bool)) or v is None for v in value.values())
        if value and scalars and len(value) <= 4 and len(repr(value)) <= 90 and not any("\n" in str(v) for v in value.values()):
            return _FlowMap(value)
        return {k: _flowify(v) for k, v in value.items()}
    if isinstance(value, list):
        items = [_flowify(v) for v in value]
        if items and all(isinstance(v, (str, int, float, bool)) for v in items) and len(items) <= 8:
            return _Flow(items)
        return items
    return value


def templated_text(text: str, labels: dict[str, str]) -> str:
    """``text`` with the names of recorded records replaced by their parameters (longest names first)."""
    for literal_name in sorted(labels, key=len, reverse=True):
        if len(literal_name) >= 3:
            text = text.replace(literal_name, labels[literal_name])
    return text


def save_draft(text: str, drafts_dir: Path | str, *, instruction: str = "",
               labels: dict[str, str] | None = None) -> tuple[Path | None, list[str]]:
    """Write a draft (its instruction replaced by ``instruction`` if given, the recorded records' names in
    it by their parameters when ``labels`` are given) to ``<drafts>/<app>/<id>.yaml`` after checking it
    with the task loader; returns (path, []) or (None, problems)."""
    from tasks.errors import TaskFileError
    from tasks.loader import load_task

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        return None, [f"YAML: {exc}"]
    if not isinstance(data, dict):
        return None, ["a task file is a mapping of fields (id, app, instruction...)"]
    if instruction.strip():
        data["instruction"] = " ".join(instruction.split())
    if labels and isinstance(data.get("instruction"), str):
        data["instruction"] = templated_text(data["instruction"], labels)
    problems: list[str] = []
    if str(data.get("instruction", "")).startswith("TODO"):
        problems.append("instruction: write what the agent must do (it still starts with TODO)")
    task_id, app = str(data.get("id") or ""), str(data.get("app") or "")
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]{1,62}[a-z0-9]", task_id) or not re.fullmatch(r"[a-z0-9_]+", app):
        problems.append("id and app must be set (an id is lowercase letters, digits and '-')")
    if problems:
        return None, problems
    head = "".join(line + "\n" for line in text.splitlines() if line.startswith("#"))
    final = head + dump_yaml(data)
    path = Path(drafts_dir) / app / f"{task_id}.yaml"
    # Check a copy under the same file name first (the loader wants the id to match it).
    with tempfile.TemporaryDirectory() as tmp:
        check = Path(tmp) / path.name
        check.write_text(final)
        try:
            load_task(check)
        except TaskFileError as exc:
            return None, list(getattr(exc, "problems", None) or [str(exc)])
    path.parent.mkdir(parents=True, exist_ok=True)
    staged = path.with_name(f".{path.name}.tmp")
    staged.write_text(final)
    staged.replace(path)
    return path, []


__all__ = ["Draft", "DraftError", "draft_from_episode", "dump_yaml", "save_draft", "templated_text"]

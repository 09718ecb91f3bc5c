"""Loading task files: YAML -> validated templates, with every problem found at load time.

Checks, each reported as ``<file>: <field>: <problem>``: YAML syntax (with the line), the template
model (unknown keys, missing fields, wrong types), the id matches the file name, the app exists,
the verifier spec builds and names only existing tables and fields, set-up changes name existing
tables and columns, every SQL statement compiles against the world schema, every ``{{ name }}``
refers to a parameter, every macro exists and gets its arguments, every Python hook imports, the
``apps`` a task may use besides its start app are installed, and a macro of another app
(``<app>.<macro>``) belongs to one of them.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

# libyaml's parser when PyYAML was built with it (the wheels are): the same safe subset, several times faster
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
from pydantic import ValidationError

from verifiers import Verifier, VerifierSpecError, build_verifier

from .errors import TaskFileError
from .model import STEP_KEYS, RESERVED_PARAMS, ForEach, Goto, Macro, SetupOp, TaskTemplate, Use, _Step
from .params import load_hook
from .render import RenderError, expr_names, names_used, strings_in

_BRACES = re.compile(r"\{\{.*?\}\}")
_PLAIN = re.compile(r"\{\{\s*[A-Za-z_]\w*(?:\.\w+)*\s*\}\}")

MACRO_FILE = "_macros.yaml"


@dataclass
class LoadedTask:
    """A validated template with its built verifier, its file and its app's macros."""

    template: TaskTemplate
    verifier: Verifier
    path: Path
    macros: dict[str, Macro] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.template.id


# -- schema of the world (what the template world holds) -------------------------------------------------
@lru_cache(maxsize=1)
def world_schema() -> dict[str, tuple[str, ...]]:
    """{table: columns} of every app's tables: the schema every template world is created with."""
    from apps_web import registry
    from apps_web.identity import models as _identity  # noqa: F401 - registers the users table
    from sqlmodel import SQLModel

    registry.discover()  # importing the apps registers their tables
    return {name: tuple(c.name for c in table.columns) for name, table in SQLModel.metadata.tables.items()}


@lru_cache(maxsize=1)
def _schema_db() -> sqlite3.Connection:
    """An empty in-memory database with the world schema, to compile task SQL against."""
    from sqlalchemy.dialects import sqlite as sqlite_dialect
    from sqlalchemy.schema import CreateTable
    from sqlmodel import SQLModel

    world_schema()
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    for table in SQLModel.metadata.sorted_tables:
        conn.execute(str(CreateTable(table).compile(dialect=sqlite_dialect.dialect())))
    return conn


def _check_sql(sql: str, where: str, problems: list[str]) -> None:
    problem = _sql_problem(sql)
    if problem is not None:
        problems.append(f"{where}: {problem}")


@lru_cache(maxsize=4096)
def _sql_problem(sql: str) -> str | None:
    """What is wrong with a task's SQL (None: it compiles against the world schema). Cached: macros put
    the same statements in many templates."""
    from .render import render_sql

    class _Any:
        """Stands for any parameter value while compiling (attribute access and indexing work)."""

        def __getattr__(self, _name: str) -> _Any:
            return self

        def __getitem__(self, _key: Any) -> _Any:
            return self

        def __iter__(self):
            return iter(())

    try:
        names = names_used(sql)
        text, binds = render_sql(sql, {n: _Any() for n in names})
    except RenderError as e:
        return str(e)
    try:
        _schema_db().execute("EXPLAIN " + text, [None] * len(binds))
    except sqlite3.Error as e:
        return f"SQL error: {e}"
    return None


# -- pydantic errors -> "field: problem" lines -------------------------------------------------------
def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    parts = list(loc)
    for i, part in enumerate(parts):
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        # A step's discriminator tag (its key) follows its list index: not part of the file's path.
        if i > 0 and isinstance(parts[i - 1], int) and part in STEP_KEYS and i + 1 < len(parts):
            continue
        if part.startswith("function-") or part in ("str", "int", "float", "bool", "dict", "list"):
            continue
        out += f".{part}" if out else str(part)
    return out


def _problems(err: ValidationError) -> list[str]:
    problems = []
    for e in err.errors():
        msg = e.get("msg", "")
        kind = e.get("type")
        if kind == "missing":
            msg = "required"
        elif kind == "extra_forbidden":
            msg = "unknown key"
        elif msg.startswith("Value error, "):
            msg = msg[len("Value error, "):]
        path = _loc(tuple(e.get("loc", ())))
        if kind == "literal_error":
            msg = f"{msg} (got {e.get('input')!r})"
        problems.append(f"{path}: {msg}" if path else msg)
    return problems


# -- loading ---------------------------------------------------------------------------------------------
def read_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise TaskFileError(path, [f"cannot read the file: {e.strerror or e}"]) from None
    try:
        return yaml.load(text, Loader=_YAML_LOADER)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "?"
        raise TaskFileError(path, [f"YAML syntax error at {where}: {e.problem or e}"]) from None
    except yaml.YAMLError as e:
        raise TaskFileError(path, [f"YAML error: {e}"]) from None


def read_macros(path: Path) -> tuple[dict[str, Macro], TaskFileError | None]:
    """The good macros of a macro file, and the error naming the bad ones (if any)."""
    data = read_yaml(path)
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return {}, TaskFileError(path, ["a macro file is a mapping of macro names to {args, steps}"])
    macros, problems = {}, []
    for name, spec in data.items():
        try:
            macros[str(name)] = Macro.model_validate(spec)
        except ValidationError as e:
            problems += [f"{name}.{p}" for p in _problems(e)]
    return macros, TaskFileError(path, problems) if problems else None


def load_macros(path: Path) -> dict[str, Macro]:
    macros, error = read_macros(path)
    if error is not None:
        raise error
    return macros


def load_task(path: Path | str, *, macros: dict[str, Macro] | None = None, schema: Any = None) -> LoadedTask:
    """Load and check one task file; raise TaskFileError listing every problem found."""
    path = Path(path)
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise TaskFileError(path, [f"a task file is a mapping of fields (id, app, instruction...), not {type(data).__name__}"])
    try:
        template = TaskTemplate.model_validate(data)
    except ValidationError as e:
        raise TaskFileError(path, _problems(e)) from None
    problems: list[str] = []
    if template.id != path.stem:
        problems.append(f"id: {template.id!r} must match the file name {path.stem!r}")

    from apps_web import registry

    names = ", ".join(s.name for s in registry.discover())
    if registry.get(template.app) is None:
        problems.append(f"app: no app {template.app!r} (apps: {names})")
    for i, other in enumerate(template.apps):
        if registry.get(other) is None:
            problems.append(f"apps[{i}]: no app {other!r} (installed apps: {names}); list only installed apps besides the start app")

    verifier = None
    try:
        verifier = build_verifier(template.verifier, base_dir=path.parent)
        verifier.validate_schema(schema if schema is not None else {t: list(c) for t, c in world_schema().items()})
    except VerifierSpecError as e:
        problems += [f"verifier.{p}" if not p.startswith("checks") else f"verifier.{p}" for p in e.problems]

    problems += check_template(template, verifier, macros or {})
    if problems:
        raise TaskFileError(path, problems)
    return LoadedTask(template=template, verifier=verifier, path=path, macros=macros or {})


# -- semantic checks -------------------------------------------------------------------------------------
def check_template(t: TaskTemplate, verifier: Verifier | None, macros: dict[str, Macro]) -> list[str]:
    problems: list[str] = []
    schema = world_schema()
    known = set(RESERVED_PARAMS)
    if t.persona.template is not None:
        known.discard("persona")  # chosen after the parameters: they cannot refer to it
    late: set[str] = set()  # set by set-up (insert ... as) or after set-up

    def check_names(text: Any, where: str, available: set[str]) -> None:
        for s in strings_in(text):
            try:
                missing = names_used(s) - available
            except RenderError as e:
                problems.append(f"{where}: {e}")
                continue
            if missing:
                problems.append(f"{where}: unknown parameter {', '.join(sorted(missing))} (parameters: {', '.join(sorted(available - RESERVED_PARAMS)) or 'none'})")

    def check_hook(ref: str, where: str) -> None:
        try:
            load_hook(ref)
        except (ImportError, AttributeError) as e:
            problems.append(f"{where}: cannot load hook {ref!r}: {e}")

    all_names = set(t.params) | {op.as_ for op in t.setup if op.as_} | RESERVED_PARAMS
    for name, p in t.params.items():
        where = f"params.{name}"
        available = (all_names if p.after_setup else known) - {name}
        if p.sql is not None:
            check_names(p.sql, f"{where}.sql", available)
            _check_sql(p.sql, f"{where}.sql", problems)
        if p.value is not None:
            check_names(p.value, f"{where}.value", available)
            _check_sql(p.value, f"{where}.value", problems)
        if p.choice is not None:
            check_names(p.choice, f"{where}.choice", available)
        if p.expr is not None:
            try:
                missing = expr_names(p.expr) - available
                if missing:
                    problems.append(f"{where}.expr: unknown parameter {', '.join(sorted(missing))}")
            except RenderError as e:
                problems.append(f"{where}.expr: {e}")
        if p.python is not None:
            check_hook(p.python, f"{where}.python")
        (late if p.after_setup else known).add(name)

    if t.persona.template is not None:
        check_names(t.persona.template, "persona", set(known))
        known.add("persona")

    def check_changes(ops: list[SetupOp], where: str, available: set[str]) -> None:
        for i, op in enumerate(ops):
            w = f"{where}[{i}]"
            if op.python is not None:
                check_hook(op.python, f"{w}.python")
                continue
            if op.sql is not None:
                check_names(op.sql, f"{w}.sql", available)
                _check_sql(op.sql, f"{w}.sql", problems)
                continue
            table = op.table
            if table not in schema:
                problems.append(f"{w}.{op.kind}: no table {table!r} in the world")
            else:
                for part in ("where", "set", "values"):
                    for col in (getattr(op, part) or {}):
                        if col not in schema[table]:
                            problems.append(f"{w}.{part}.{col}: no column {col!r} in table {table}")
            check_names([op.where, op.set, op.values], w, available)
            if op.as_:
                available.add(op.as_)

    setup_names = set(known)
    check_changes(t.setup, "setup", setup_names)
    after = setup_names | late
    for i, sql in enumerate(t.assert_):
        check_names(sql, f"assert[{i}]", after)
        _check_sql(sql, f"assert[{i}]", problems)
    check_names(t.instruction, "instruction", after)
    check_names(t.start_url, "start_url", after)
    for i, actor in enumerate(t.actors):
        check_names(actor, f"actors[{i}]", after)
    for i, ev in enumerate(t.events):
        if ev.message is not None:
            check_names(ev.message.model_dump(by_alias=True), f"events[{i}].message", after)
        if ev.update is not None:
            before = len(problems)
            check_changes([ev.update], f"events[{i}].update", set(after))
            problems[before:] = [p.replace(f"events[{i}].update[0]", f"events[{i}].update", 1) for p in problems[before:]]
    if verifier is not None:
        missing = {n for n in verifier.parameters if n not in after}
        if missing:
            problems.append(f"verifier: unknown parameter {', '.join(sorted(missing))}")
        # The verifier substitutes plain parameters ({{ name }}, {{ row.field }}); anything else would
        # stay literal text and silently never match.
        for text in sorted({m.group(0) for s in strings_in(t.verifier) for m in _BRACES.finditer(s) if not _PLAIN.fullmatch(m.group(0))}):
            problems.append(f"verifier: {text} is an expression, but the verifier only substitutes parameters; "
                            "make it a parameter (expr: ...) and name that")
    check_steps(t.oracle, "oracle", after, macros, problems, check_names)
    check_macro_apps(t, problems)
    for i, nm in enumerate(t.near_misses):
        where = f"near_misses[{i}]"
        if nm.steps is not None:
            check_steps(nm.steps, f"{where}.steps", after, macros, problems, check_names)
        if nm.mutate is not None:
            check_changes(nm.mutate, f"{where}.mutate", set(after))
        check_names([nm.answer, nm.report_infeasible], where, after)
    return problems


def check_steps(steps: list[_Step], where: str, available: set[str], macros: dict[str, Macro], problems: list[str], check_names) -> None:
    for i, step in enumerate(steps):
        w = f"{where}[{i}]"
        if isinstance(step, Use):
            macro = macros.get(step.use)
            if macro is None:
                import difflib

                close = difflib.get_close_matches(step.use, list(macros), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                own = sorted(m for m in macros if "." not in m)
                problems.append(f"{w}.use: no macro {step.use!r}{hint}; macros: {', '.join(own) or 'none'}")
                continue
            missing = [a for a in macro.args if a not in step.args and a not in macro.defaults]
            unknown = [a for a in step.args if a not in macro.args and a not in macro.defaults]
            if missing:
                problems.append(f"{w}.args: macro {step.use!r} needs {', '.join(missing)}")
            if unknown:
                problems.append(f"{w}.args: macro {step.use!r} takes no {', '.join(unknown)} (args: {', '.join(macro.args)})")
            check_names(step.args, f"{w}.args", available)
            continue
        if isinstance(step, ForEach):
            try:
                missing = expr_names(step.for_each) - available
                if missing:
                    problems.append(f"{w}.for_each: unknown parameter {', '.join(sorted(missing))}")
            except RenderError as e:
                problems.append(f"{w}.for_each: {e}")
            check_steps(step.steps, f"{w}.steps", available | {step.as_}, macros, problems, check_names)
            continue
        check_names(step.model_dump(exclude_none=True), w, available)


def _uses(steps: list[_Step]) -> list[tuple[int, Use]]:
    out: list[tuple[int, Use]] = []
    for i, step in enumerate(steps):
        if isinstance(step, Use):
            out.append((i, step))
        elif isinstance(step, ForEach):
            out += [(i, u) for _, u in _uses(step.steps)]
    return out


def check_macro_apps(t: TaskTemplate, problems: list[str]) -> None:
    """A macro of another app (``mail.send``) is for a task that declares that app in ``apps``."""
    allowed = {t.app, *t.apps}
    lists = [("oracle", t.oracle), ("tool_oracle", t.tool_oracle)]
    lists += [(f"near_misses[{i}].steps", nm.steps or []) for i, nm in enumerate(t.near_misses)]
    for where, steps in lists:
        for i, use in _uses(steps):
            app = use.use.split(".", 1)[0] if "." in use.use else t.app
            if app not in allowed:
                problems.append(f"{where}[{i}].use: macro {use.use!r} is an app {app!r} macro; add {app!r} to the task's apps")


def qualify_macros(app: str, macros: dict[str, Macro]) -> dict[str, Macro]:
    """An app's macros as other apps' tasks see them: ``<app>.<name>``, their own ``use`` steps
    qualified the same way, and their relative ``goto`` paths made absolute on the app's host
    (a task's relative paths are on its start app)."""

    def fix(steps: list[_Step]) -> list[_Step]:
        out: list[_Step] = []
        for step in steps:
            if isinstance(step, Use) and step.use in macros:
                step = step.model_copy(update={"use": f"{app}.{step.use}"})
            elif isinstance(step, ForEach):
                step = step.model_copy(update={"steps": fix(step.steps)})
            elif isinstance(step, Goto) and step.goto.startswith("/"):
                step = step.model_copy(update={"goto": f"http://{app}.localhost{step.goto}"})
            out.append(step)
        return out

    return {f"{app}.{name}": m.model_copy(update={"steps": fix(m.steps)}) for name, m in macros.items()}


def _macros_of(path: Path, errors: list[TaskFileError]) -> dict[str, Macro]:
    if not path.exists():
        return {}
    try:
        macros, error = read_macros(path)
    except TaskFileError as e:
        macros, error = {}, e
    if error is not None:
        errors.append(error)
    return macros


def load_dir(root: Path | str, *, schema: Any = None, shipped: Path | str | None = None, names: set[str] | None = None,
             ) -> tuple[dict[str, LoadedTask], list[TaskFileError]]:
    """Every task of ``root/<app>/*.yaml`` (files starting with '_' are not tasks), keyed by
    qualified id (``crm.opportunity-close-won``): ids are unique per app. Returns the tasks and the
    errors of the files that did not load (the caller decides whether to raise).

    Macros: ``root/_macros.yaml`` serves every app, ``root/<app>/_macros.yaml`` its app (and wins).
    With ``shipped`` (the shipped tasks folder, for a folder of the author's own), the shipped
    macros are seen too, under the folder's own. Every app's macros are also seen qualified,
    ``<app>.<name>``, by the tasks that declare the app in ``apps`` (multi-app tasks).

    ``names``: only the task files of these names (without ``.yaml``) are read and checked."""
    root = Path(root)
    tasks: dict[str, LoadedTask] = {}
    errors: list[TaskFileError] = []
    bases = [Path(shipped)] if shipped is not None and Path(shipped).resolve() != root.resolve() else []
    own_shared = _macros_of(root / MACRO_FILE, errors)
    app_dirs = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
    own_app_macros = {d.name: _macros_of(d / MACRO_FILE, errors) for d in app_dirs}
    qualified: dict[str, Macro] = {}
    for base in bases:
        for d in sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
            qualified.update(qualify_macros(d.name, _macros_of(d / MACRO_FILE, [])))
    for name, own in own_app_macros.items():
        qualified.update(qualify_macros(name, own))
    for app_dir in app_dirs:
        # shipped (shared, then the app's), then the folder's own (shared, then the app's): own wins
        macros: dict[str, Macro] = dict(qualified)
        for base in bases:
            macros.update(_macros_of(base / MACRO_FILE, []))
            macros.update(_macros_of(base / app_dir.name / MACRO_FILE, []))
        macros.update(own_shared)
        macros.update(own_app_macros[app_dir.name])
        for path in sorted(app_dir.glob("*.yaml")):
            if path.name.startswith("_") or (names is not None and path.stem not in names):
                continue
            try:
                task = load_task(path, macros=macros, schema=schema)
            except TaskFileError as e:
                errors.append(e)
                continue
            key = f"{task.template.app}.{task.id}"
            if key in tasks:
                errors.append(TaskFileError(path, [f"id: {task.id!r} is already defined for {task.template.app} in {tasks[key].path}"]))
                continue
            tasks[key] = task
    return tasks, errors

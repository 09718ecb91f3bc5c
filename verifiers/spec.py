"""Building verifiers from plain data (as loaded from YAML task files) and running them."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Mapping

from pydantic import Field, ValidationError

from .answer import InfeasibleSpec
from .base import CheckSpec, Env, SpecModel, did_you_mean
from .context import VerifyContext
from .judge import Judge
from .rubric import KINDS, AnyCheck, needs_judge, run_all, walk
from .values import param_names
from .verdict import Check, Verdict, failed_guards, make_reason, weighted_score


class VerifierSpecError(ValueError):
    """A malformed verifier spec; ``problems`` are lines such as ``checks[2].where.stage: ...``."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("invalid verifier spec: " + "; ".join(self.problems))


class VerifierSpec(SpecModel):
    """The root of a spec: checks that must all pass (or reach ``threshold`` as a weighted score),
    and volatile ``ignore`` names added to the context's.

    The score is the weighted share of the credit checks (task progress); guards earn nothing and a
    failed guard caps the score at ``guard_cap`` (0 unless the task declares a softer penalty).
    """

    checks: list[AnyCheck] = Field(default_factory=list)
    ignore: list[str] = Field(default_factory=list)
    threshold: float | None = Field(None, ge=0, le=1)
    guard_cap: float = Field(0.0, ge=0, le=1)
    ordered: bool = False  # the top-level credit checks are milestones to reach in this order


def _normalize_root(spec: Any) -> Any:
    if isinstance(spec, (list, tuple)):
        return {"checks": list(spec)}
    if isinstance(spec, Mapping) and "kind" in spec:
        return {"checks": [dict(spec)]}
    return spec


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    parts = list(loc)
    for i, part in enumerate(parts):
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        # A discriminated union puts the tag after the list index; it is not part of the spec path.
        if i > 0 and isinstance(parts[i - 1], int) and part in KINDS:
            continue
        if part.startswith("function-") or part in ("str", "int", "float", "bool", "bytes"):
            continue
        out += f".{part}" if out else str(part)
    return out


def _problems(err: ValidationError) -> list[str]:
    problems = []
    for e in err.errors():
        loc = tuple(e.get("loc", ()))
        ctx = e.get("ctx") or {}
        msg = e.get("msg", "")
        if e.get("type") == "verifier_spec":
            msg = str(ctx.get("message", msg))
            sub = ctx.get("subpath")
            if sub:
                loc = loc + tuple(str(sub).split("."))
        elif e.get("type") == "union_tag_invalid":
            msg = f"unknown check kind '{ctx.get('tag')}'{did_you_mean(str(ctx.get('tag')), KINDS)}; known: {', '.join(KINDS)}"
            loc = loc + ("kind",)
        elif e.get("type") == "union_tag_not_found":
            msg = f"a check needs a 'kind': one of {', '.join(KINDS)}"
        elif e.get("type") == "missing":
            msg = "required"
        elif msg.startswith("Value error, "):
            msg = msg[len("Value error, "):]
        path = _path(loc)
        problems.append(f"{path}: {msg}" if path else msg)
    return problems


def build_verifier(
    spec: Mapping[str, Any] | list[Any],
    *,
    base_dir: Path | str | None = None,
    schema: Any = None,
) -> Verifier:
    """Build a verifier from plain data.

    ``spec`` is a list of checks, a mapping ``{checks, ignore, threshold}``, or a single check mapping.
    ``base_dir`` resolves relative reference image paths (the task file's folder). With ``schema``
    (a connection, a world file or ``{table: [columns]}``), table and field names are checked too.
    Raises VerifierSpecError naming the path of every problem.
    """
    if not isinstance(spec, (Mapping, list, tuple)):
        raise VerifierSpecError([f"a verifier spec is a list of checks or a mapping, not {type(spec).__name__}"])
    try:
        model = VerifierSpec.model_validate(_normalize_root(spec))
    except ValidationError as e:
        raise VerifierSpecError(_problems(e)) from None
    verifier = Verifier(model, base_dir=Path(base_dir) if base_dir is not None else None)
    if schema is not None:
        verifier.validate_schema(schema)
    return verifier


class Verifier:
    """A built spec: ``verify(ctx, judge=None) -> Verdict``; ``validate_schema(schema)`` at load time."""

    def __init__(self, spec: VerifierSpec, *, base_dir: Path | None = None) -> None:
        self.spec = spec
        self.base_dir = base_dir

    @property
    def checks(self) -> list[CheckSpec]:
        return list(self.spec.checks)

    @property
    def requires_judge(self) -> bool:
        return any(needs_judge(c) for c in self.spec.checks)

    @property
    def parameters(self) -> set[str]:
        """Task parameters the spec refers to as ``{{ name }}`` (top-level names)."""
        names = param_names(self.spec.model_dump(by_alias=True, exclude_unset=True))
        return {n.split(".")[0] for n in names}

    def to_data(self) -> dict[str, Any]:
        """The spec as plain data (round-trips through build_verifier)."""
        return self.spec.model_dump(by_alias=True, exclude_unset=True)

    # -- grading
    def verify(self, ctx: VerifyContext, judge: Judge | None = None) -> Verdict:
        env = Env(ctx, judge=judge, base_dir=self.base_dir, ignore=self.spec.ignore)
        try:
            checks = run_all(self.spec.checks, env)
        finally:
            env.close()
        if ctx.infeasible and not any(
            isinstance(s, InfeasibleSpec) for top in self.spec.checks for _, s in walk(top, "")
        ):
            checks.append(Check(
                name="not_infeasible",
                sentence="the agent did not report the task infeasible (it is feasible)",
                passed=False, expected=False, actual=True, guard=True,
                detail=f"the agent reported infeasible: {ctx.infeasible_reason or 'no reason given'}",
            ))
        persona = persona_check(ctx)
        if persona is not None:
            checks.append(persona)
        if self.spec.ordered:
            _order_milestones(checks, ctx.reached)
        _unique_names(checks)
        return verdict_of(checks, threshold=self.spec.threshold, guard_cap=self.spec.guard_cap)

    # -- load-time validation
    def validate_schema(self, schema: Any, *, raise_errors: bool = True) -> list[str]:
        """Check every table and field the spec names against a world's schema.

        ``schema``: a sqlite3 connection, a path to a world file, or ``{table: [columns]}``.
        Returns the problems (``checks[0].where.stagee: no column 'stagee' in table ...``); raises
        VerifierSpecError with all of them unless ``raise_errors=False``.
        """
        tables = _schema_of(schema)
        problems: list[str] = []
        for i, top in enumerate(self.spec.checks):
            for path, spec in walk(top, f"checks[{i}]"):
                for sub, table, field in spec.references():
                    where = f"{path}.{sub}"
                    if table not in tables:
                        if field is None:
                            problems.append(f"{where}: no table '{table}' in the world{did_you_mean(table, tables)}")
                        continue
                    if field is not None and field not in tables[table]:
                        problems.append(
                            f"{where}: no column '{field}' in table {table}{did_you_mean(field, tables[table])}"
                        )
        if problems and raise_errors:
            raise VerifierSpecError(problems)
        return problems


def _order_milestones(checks: list[Check], reached: dict[str, int]) -> None:
    """A milestone reached before an earlier one earns nothing (steps from per-step grading; one
    reached only at the end counts as reached last)."""
    last, last_name = -1, None
    for c in checks:
        if c.guard or not c.passed:
            continue
        step = reached.get(c.name, 10**9)
        if step < last:
            c.passed, c.score = False, 0.0
            c.detail = f"reached at step {step}, before {last_name} (step {last}): out of order"
        else:
            last, last_name = step, c.name


def persona_check(ctx: VerifyContext) -> Check | None:
    """A guard: the episode ends signed in as its persona (None when either is unknown)."""
    if not ctx.persona or ctx.final_user is None:
        return None
    ok = ctx.final_user == ctx.persona
    return Check(
        name="persona", guard=True, passed=ok, expected=ctx.persona, actual=ctx.final_user or None,
        sentence=f"the episode ends signed in as {ctx.persona}, the task's user",
        detail=None if ok else (f"signed in as {ctx.final_user}" if ctx.final_user else "nobody is signed in"),
    )


def verdict_of(checks: list[Check], *, threshold: float | None = None, guard_cap: float = 0.0) -> Verdict:
    """The verdict over evaluated checks: credit from task progress, guards as gates that cap."""
    score = weighted_score(checks)
    failed = failed_guards(checks)
    if failed:
        score = min(score, guard_cap)
    if threshold is None:
        passed = all(c.passed for c in checks)
    else:
        passed = score >= threshold - 1e-9 and not failed
    reason = make_reason(checks, passed, score, threshold)
    if failed:
        reason = f"score capped at {guard_cap:.2f} by {', '.join(c.name for c in failed)}; {reason}"
        reason = reason if len(reason) <= 400 else reason[:397] + "..."
    return Verdict(passed=passed, score=score, reason=reason, checks=checks, capped=[c.name for c in failed])


def _schema_of(schema: Any) -> dict[str, set[str]]:
    if isinstance(schema, Mapping):
        return {str(t): set(cols) for t, cols in schema.items()}
    if isinstance(schema, sqlite3.Connection):
        return _read_schema(schema)
    if isinstance(schema, (str, Path)):
        if not Path(schema).exists():
            raise VerifierSpecError([f"schema: no world database at {schema}"])
        conn = sqlite3.connect(f"file:{schema}?mode=ro", uri=True)
        try:
            return _read_schema(conn)
        finally:
            conn.close()
    raise TypeError(f"a schema is a sqlite3 connection, a path or a mapping, not {type(schema).__name__}")


def _read_schema(conn: sqlite3.Connection) -> dict[str, set[str]]:
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
    out = {}
    for name in names:
        q = '"' + name.replace('"', '""') + '"'
        out[name] = {r[1] for r in conn.execute(f"PRAGMA table_info({q})")}
    return out


def _unique_names(checks: list[Check], seen: dict[str, int] | None = None) -> None:
    seen = {} if seen is None else seen
    for c in checks:
        if c.name in seen:
            seen[c.name] += 1
            c.name = f"{c.name}#{seen[c.name]}"
        else:
            seen[c.name] = 1
        _unique_names(c.checks, seen)

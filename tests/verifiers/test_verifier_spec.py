"""Building verifiers from plain data: malformed specs, schema validation, verdict serialisation."""

from __future__ import annotations

import json
import sqlite3

import pytest
import yaml

from verifiers import Verdict, VerifierSpecError, build_verifier


def problems(spec, **kw) -> list[str]:
    with pytest.raises(VerifierSpecError) as e:
        build_verifier(spec, **kw)
    return e.value.problems


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ([{"kind": "stat", "table": "t"}],
         "checks[0].kind: unknown check kind 'stat' (did you mean 'state'?)"),
        ([{"table": "t"}], "checks[0]: a check needs a 'kind'"),
        ([{"kind": "answer", "expected": "x"}, {"kind": "state", "table": "t", "wehre": {}}],
         "checks[1].wehre: unknown key 'wehre' (did you mean 'where'?)"),
        ([{"kind": "state", "table": "t", "where": {"stage": {"equals": 1}}}],
         "checks[0].where.stage.equals: unknown operator 'equals' (did you mean 'eq'?)"),
        ([{"kind": "state", "table": "t", "where": {"stage": ["a", "b"]}}],
         "checks[0].where.stage: a list is not a value; to accept any of several values use {in: [...]}"),
        ([{"kind": "state", "table": "t", "where": {"name": {"regex": "("}}}],
         "checks[0].where.name.regex: invalid regular expression"),
        ([{"kind": "state", "table": "t", "where": {"name": {"in": "x"}}}],
         "checks[0].where.name.in: 'in' needs a list of values"),
        ([{"kind": "state", "table": "t", "count": {"exactly": 1, "at_least": 2}}],
         "checks[0].count: 'exactly' cannot be combined"),
        ([{"kind": "state"}], "checks[0].table: required"),
        ([{"kind": "changes", "expect": [{"table": "t", "op": "add", "to": {"a": 1}}]}],
         "checks[0].expect[0].to: 'to' applies to updates only"),
        ([{"kind": "changes", "expect": [{"table": "t", "op": "frob"}]}], "checks[0].expect[0].op: Input should be"),
        ([{"kind": "answer", "match": "number", "expected": "abc"}], "checks[0].expected: 'abc' is not a number"),
        ([{"kind": "answer", "match": "fuzzy", "expected": "abc"}], "checks[0].match: Input should be"),
        ([{"kind": "visual", "reference": 3}], "checks[0].reference: a reference is a PNG path or PNG bytes"),
        ([{"kind": "visual", "reference": "a.png", "masks": [[1, 2, 3]]}], "checks[0].masks[0]: a mask is"),
        ([{"kind": "all", "checks": [{"kind": "any", "checks": [{"kind": "answer"}]}]}],
         "checks[0].checks[0].checks[0].expected: required"),
        ([{"kind": "weighted", "threshold": 2, "checks": [{"kind": "infeasible"}]}], "checks[0].threshold:"),
        ([{"kind": "all", "checks": []}], "checks[0].checks:"),
        ([{"kind": "state", "table": "t", "weight": -1}], "checks[0].weight:"),
        ("state", "a verifier spec is a list of checks or a mapping"),
    ],
)
def test_malformed_specs_name_the_problem(spec, expected):
    found = problems(spec)
    assert any(p.startswith(expected) for p in found), found


def test_all_problems_are_reported(world):
    found = problems([{"kind": "state"}, {"kind": "answer"}])
    assert found == ["checks[0].table: required", "checks[1].expected: required"]


SPEC = [
    {"kind": "state", "table": "crm_opportunity", "where": {"stagee": "Open"}, "expect": {"amount": 1}},
    {"kind": "changes", "expect": [{"table": "crm_opp", "op": "update"},
                                    {"table": "crm_case", "op": "update", "to": {"stauts": "Closed"}, "fields": ["closed"]}],
     "allow": [{"table": "crm_*", "where": {"id": 1}, "fields": ["x"]}, {"table": "recent_view", "where": {"id": 1}, "fields": ["viewd_at"]}]},
    {"kind": "all", "checks": [{"kind": "state", "table": "crm_case",
                                "where": {"account_id": {"in_table": {"table": "crm_account", "field": "idd"}}}}]},
]

EXPECTED_PROBLEMS = [
    "checks[0].where.stagee: no column 'stagee' in table crm_opportunity (did you mean 'stage'?)",
    "checks[1].expect[0].table: no table 'crm_opp' in the world (did you mean 'crm_opportunity'?)",
    "checks[1].expect[1].to.stauts: no column 'stauts' in table crm_case (did you mean 'status'?)",
    "checks[1].expect[1].fields[0]: no column 'closed' in table crm_case (did you mean 'closed_at'?)",
    "checks[1].allow[1].fields[0]: no column 'viewd_at' in table recent_view (did you mean 'viewed_at'?)",
    "checks[2].checks[0].where.account_id.in_table.field: no column 'idd' in table crm_account (did you mean 'id'?)",
]


def test_validate_schema_against_a_world_file(world):
    verifier = build_verifier(SPEC)
    assert verifier.validate_schema(world.start, raise_errors=False) == EXPECTED_PROBLEMS
    with pytest.raises(VerifierSpecError) as e:
        verifier.validate_schema(world.start)
    assert e.value.problems == EXPECTED_PROBLEMS


def test_validate_schema_with_connection_mapping_and_at_build(world):
    conn = sqlite3.connect(world.start)
    good = [{"kind": "state", "table": "crm_opportunity", "where": {"stage": "Open"}}]
    assert build_verifier(good).validate_schema(conn) == []
    conn.close()
    assert build_verifier(good).validate_schema({"crm_opportunity": ["id", "stage"]}) == []
    assert build_verifier(good).validate_schema({"crm_opportunity": ["id"]}, raise_errors=False) == [
        "checks[0].where.stage: no column 'stage' in table crm_opportunity"
    ]
    with pytest.raises(VerifierSpecError, match=r"checks\[0\].where.stagee: no column 'stagee'"):
        build_verifier([{"kind": "state", "table": "crm_opportunity", "where": {"stagee": 1}}], schema=world.start)


def test_yaml_spec_round_trip_and_verdict_json(world):
    text = """
ignore: ["*.updated_at"]
checks:
  - kind: changes
    expect:
      - table: crm_opportunity
        op: update
        where: {id: 10}
        to: {stage: Closed Won, close_date: 2026-03-16}
      - {table: crm_case, op: update, where: {account_id: 1}, to: {status: Closed}, count: {at_least: 1}}
  - kind: state
    table: crm_case
    where: {account_id: 1, status: {in: [Open, Escalated]}}
    count: 0
    sentence: no open case remains for Acme
  - kind: answer
    match: number
    expected: 62000
    tol: 0.5
"""
    verifier = build_verifier(yaml.safe_load(text))
    again = build_verifier(verifier.to_data())
    assert again.to_data() == verifier.to_data()
    world.run("UPDATE crm_opportunity SET stage='Closed Won', close_date='2026-03-16' WHERE id=10",
              "UPDATE crm_case SET status='Closed' WHERE account_id=1")
    v = verifier.verify(world.context(answer="$62,000"))
    assert v.passed, v.explain()
    data = json.loads(v.model_dump_json())
    assert data["passed"] is True and data["score"] == 1.0 and data["reason"] == "all 5 checks passed"
    assert data["checks"][0]["expected"] == {"exactly": 1}
    assert Verdict.model_validate(data) == v
    # a YAML date in the spec is plain text in the verdict
    world.run("UPDATE crm_opportunity SET close_date='2026-03-17' WHERE id=10")
    v = verifier.verify(world.context(answer="$62,000"))
    assert not v.passed
    json.dumps(v.model_dump(mode="json"))
    assert "close_date is 2026-03-17" in v.reason


def test_check_names_are_unique(world):
    v = build_verifier([{"kind": "answer", "expected": "a"}, {"kind": "answer", "expected": "b"}]).verify(world.context(answer="a"))
    assert [c.name for c in v.checks] == ["answer", "answer#2"]


def test_empty_spec_passes_vacuously(world):
    v = build_verifier([]).verify(world.context())
    assert v.passed and v.score == 1.0


def test_readme_example_builds():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "verifiers" / "README.md").read_text()
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    verifier = build_verifier(yaml.safe_load(block))
    assert len(verifier.checks) == 12 and verifier.requires_judge


def test_odd_data_never_crashes(world):
    world.run(
        "CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB, note)",
        "INSERT INTO blobs VALUES (1, x'89504e47', 3.5)",
        "UPDATE crm_opportunity SET amount='lots', close_date='someday' WHERE id=10",
    )
    spec = [
        {"kind": "state", "table": "crm_opportunity", "where": {"id": 10},
         "expect": {"amount": {"gt": 5}, "close_date": {"lt": "2026-01-01"}, "name": {"regex": "x"}}},
        {"kind": "state", "table": "blobs", "expect": {"data": "abc", "note": {"contains": "3"}}},
        {"kind": "changes"},
        {"kind": "answer", "match": "set", "expected": ["a"]},
    ]
    v = build_verifier(spec).verify(world.context(answer="\u200b\u00a0 ,;\n"))
    assert not v.passed
    assert all(c.error is None for c in v.checks), v.explain()
    assert any("blobs #1 added" in line for line in v.check("nothing_else").actual)
    json.dumps(v.model_dump(mode="json"))

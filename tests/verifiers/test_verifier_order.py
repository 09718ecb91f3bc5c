"""``before``: the order of two changes, read from the world's change log after the episode's start."""

from __future__ import annotations

import sqlite3

import pytest

from apps_web.world import changelog
from verifiers import VerifierSpecError, build_verifier

SPEC = {"kind": "before", "first": {"table": "crm_case", "op": "update", "where": {"id": 100, "status": "Approved"}},
        "then": {"table": "crm_opportunity", "op": "update", "where": {"id": 10, "stage": "Closed Won"}}}


def _log(world) -> int:  # noqa: ANN001
    conn = sqlite3.connect(world.end)
    changelog.install(conn)
    conn.execute("UPDATE crm_case SET status = 'Approved' WHERE id = 101")  # before the start: not counted
    conn.commit()
    start = changelog.last_seq(conn)
    conn.close()
    return start


@pytest.mark.parametrize("order, passed, detail", [
    (["case", "opp"], True, None),
    (["opp", "case"], False, "came after"),
    (["opp"], False, "first change never happened"),
    (["case"], False, "second change never happened"),
])
def test_before_orders_two_changes(world, order, passed, detail) -> None:  # noqa: ANN001
    start = _log(world)
    sql = {"case": "UPDATE crm_case SET status = 'Approved' WHERE id = 100",
           "opp": "UPDATE crm_opportunity SET stage = 'Closed Won' WHERE id = 10"}
    world.run("UPDATE crm_opportunity SET stage = 'Closed Lost' WHERE id = 11", *[sql[o] for o in order])
    v = build_verifier([SPEC]).verify(world.context(start_seq=start))
    assert v.passed is passed and (detail is None or detail in v.checks[0].detail)
    assert "a crm_case row where id is 100 and status is Approved was updated before a crm_opportunity row" in v.checks[0].sentence


def test_optional_then_gates_only_an_action_taken_and_bad_specs_are_named(world) -> None:  # noqa: ANN001
    start = _log(world)
    guard = build_verifier([{**SPEC, "optional_then": True, "guard": True}, {"kind": "answer", "expected": "ok"}])
    assert guard.verify(world.context(start_seq=start, answer="ok")).passed  # nothing done: nothing to order
    world.run("UPDATE crm_opportunity SET stage = 'Closed Won' WHERE id = 10")
    v = guard.verify(world.context(start_seq=start, answer="ok"))
    assert not v.passed and v.score == 0 and v.capped
    with pytest.raises(VerifierSpecError, match="then"):
        build_verifier([{"kind": "before", "first": SPEC["first"]}])
    with pytest.raises(VerifierSpecError, match="op"):
        build_verifier([{**SPEC, "first": {**SPEC["first"], "op": "delete"}}])


@pytest.mark.parametrize("order, passed", [(["case", "delete"], True), (["delete", "case"], False)])
def test_before_a_removal_matches_the_row_as_it_was(world, order, passed) -> None:  # noqa: ANN001
    """``op: remove``: "the manager answered before the role was taken away" (a deleted row is matched
    on its old values; ``any`` still means an add or an update)."""
    start = _log(world)
    spec = {**SPEC, "then": {"table": "crm_case", "op": "remove", "where": {"id": 102}}}
    sql = {"case": "UPDATE crm_case SET status = 'Approved' WHERE id = 100", "delete": "DELETE FROM crm_case WHERE id = 102"}
    world.run(*[sql[o] for o in order])
    v = build_verifier([spec]).verify(world.context(start_seq=start))
    assert v.passed is passed and "a crm_case row where id is 102 was removed" in v.checks[0].sentence
    anything = build_verifier([{**SPEC, "then": {"table": "crm_case", "op": "any", "where": {"id": 102}}}])
    assert anything.verify(world.context(start_seq=start)).checks[0].detail == "the second change never happened"

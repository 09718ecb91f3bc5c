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


def test_an_update_counts_when_it_changed_a_value_and_fields_and_was_narrow_it(world) -> None:  # noqa: ANN001
    """A row rewritten as it was is no change; ``fields`` wants one of them changed; ``was`` reads the
    row before the change, so "the deal left Prospecting" is expressible though the row after the
    change no longer has its old stage."""
    start = _log(world)
    opp = {"table": "crm_opportunity", "where": {"id": 10}}
    approved = {"table": "crm_case", "op": "update", "where": {"id": 100, "status": "Approved"}}
    world.run("UPDATE crm_opportunity SET stage = stage WHERE id = 10",  # a save with nothing changed
              "UPDATE crm_case SET status = 'Approved' WHERE id = 100",
              "UPDATE crm_opportunity SET amount = 1234 WHERE id = 10",
              "UPDATE crm_opportunity SET stage = 'Closed Won' WHERE id = 10")

    def seqs(then: dict, first: dict = approved) -> tuple[bool, dict, str]:
        v = build_verifier([{"kind": "before", "first": first, "then": then}]).verify(world.context(start_seq=start))
        return v.passed, v.checks[0].actual, v.checks[0].sentence

    passed, any_update, _ = seqs({**opp, "op": "update"})  # the identical rewrite before the approval is skipped
    assert passed and any_update["then"] == any_update["first"] + 1
    passed, stage_change, sentence = seqs({**opp, "fields": ["stage"]})  # the amount's change is not a stage change
    assert passed and stage_change["then"] == any_update["then"] + 1
    assert "a crm_opportunity row where id is 10 had its stage changed" in sentence
    passed, left, sentence = seqs({"table": "crm_opportunity", "was": {"stage": {"ne": "Closed Won"}}, "where": {"id": 10, "stage": "Closed Won"}})
    assert passed and left["then"] == stage_change["then"] and "(before: stage" in sentence
    # the approval moment narrowed by ``was`` to a later change: it now comes after the stage change
    world.run("UPDATE crm_case SET status = 'On Hold' WHERE id = 100", "UPDATE crm_case SET status = 'Approved' WHERE id = 100")
    passed, late, _ = seqs({**opp, "fields": ["stage"]}, first={**approved, "was": {"status": "On Hold"}})
    assert not passed and late["first"] > late["then"]
    with pytest.raises(VerifierSpecError, match="op"):
        build_verifier([{**SPEC, "then": {**opp, "op": "add", "fields": ["stage"]}}])


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

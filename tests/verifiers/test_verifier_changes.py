"""Change-set checks: expected adds/updates/removes and "nothing else changed"."""

from __future__ import annotations

from verifiers import build_verifier

CLOSE_RENEWAL = {
    "kind": "changes",
    "expect": [{"table": "crm_opportunity", "op": "update", "where": {"id": 10},
                "to": {"stage": "Closed Won", "is_closed": 1}}],
    "ignore": ["*.updated_at"],
}


def verify(world, checks, **ctx):
    return build_verifier(checks).verify(world.context(**ctx))


def test_expected_update_passes(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Won', is_closed=1, updated_at='2026-03-16 09:30:00.000000' WHERE id=10")
    v = verify(world, [CLOSE_RENEWAL])
    assert v.passed, v.explain()
    names = [c.name for c in v.checks]
    assert names == ["update:crm_opportunity", "nothing_else"]
    assert v.checks[0].sentence == (
        "exactly one crm_opportunity row where id is 10 was updated so that stage is Closed Won and is_closed is 1"
    )
    assert v.checks[1].sentence == "nothing else changed"


def test_wrong_record_changed(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Won', is_closed=1 WHERE id=11")
    v = verify(world, [CLOSE_RENEWAL])
    assert not v.passed and v.score == 0.0
    expected_change, nothing_else = v.checks
    assert "no crm_opportunity row where id is 10 was updated" in expected_change.actual[0]
    assert any("#11" in line for line in expected_change.actual)  # the other change is shown
    assert nothing_else.actual == [
        "crm_opportunity #11 updated: stage Prospecting -> Closed Won; is_closed 0 -> 1"
    ]


def test_incomplete_change(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Won' WHERE id=10")
    v = verify(world, [CLOSE_RENEWAL])
    assert not v.passed
    assert v.checks[0].detail == "found 0 such changes; crm_opportunity #10: is_closed did not change"
    # a row that does not end as expected is not explained by the expectation: it stays a change
    assert not v.checks[1].passed and v.score == 0.0
    assert v.checks[1].actual == ["crm_opportunity #10 updated: stage Negotiation -> Closed Won"]


def test_wrong_value(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Lost', is_closed=1 WHERE id=10")
    v = verify(world, [CLOSE_RENEWAL])
    assert not v.passed and "stage is Closed Lost" in v.checks[0].detail


def test_extra_damage_to_another_record(world):
    world.run(
        "UPDATE crm_opportunity SET stage='Closed Won', is_closed=1 WHERE id=10",
        "UPDATE crm_account SET industry='Retail' WHERE id=2",
        "DELETE FROM crm_case WHERE id=102",
    )
    v = verify(world, [CLOSE_RENEWAL])
    assert not v.passed
    assert v.checks[0].passed
    ne = v.checks[1]
    assert not ne.passed
    assert "crm_account #2 updated: industry Energy -> Retail" in ne.actual
    assert any(line.startswith("crm_case #102 removed (") for line in ne.actual)
    assert v.score == 0.0 and v.capped == ["nothing_else"]  # damage caps the score: it earns nothing
    assert "nothing else changed" in v.reason and "crm_account #2" in v.reason


def test_extra_field_on_the_expected_row(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Won', is_closed=1, amount=1 WHERE id=10")
    v = verify(world, [CLOSE_RENEWAL])
    assert v.checks[0].passed and not v.checks[1].passed
    assert v.checks[1].actual == ["crm_opportunity #10 updated: amount 50000 -> 1"]


def test_ignored_fields_and_tables_are_not_changes(world):
    world.run(
        "UPDATE crm_account SET updated_at='2026-03-16 09:30:00.000000' WHERE id=1",
        "INSERT INTO recent_view VALUES (1, 'crm_account:1', '2026-03-16 09:30:00')",
    )
    spec = [{"kind": "changes"}]
    v = verify(world, spec, ignore=["recent_view", "crm_account.updated_at"])
    assert v.passed and v.checks[0].sentence == "nothing changed"
    v = verify(world, spec)
    assert not v.passed and len(v.checks[0].actual) == 2
    # an ignore list in the spec itself works as well
    assert verify(world, {"ignore": ["recent_*", "*.updated_at"], "checks": spec}).passed


def test_update_touching_only_ignored_fields_is_not_the_expected_update(world):
    world.run("UPDATE crm_opportunity SET updated_at='x' WHERE id=10")
    spec = [{"kind": "changes", "expect": [{"table": "crm_opportunity", "op": "update", "where": {"id": 10}}]}]
    assert not verify(world, spec, ignore=["*.updated_at"]).passed
    assert verify(world, spec).passed


def test_add_with_count(world):
    task = {"kind": "changes", "expect": [
        {"table": "crm_case", "op": "add", "where": {"account_id": 2, "subject": {"icontains": "refund"}, "status": "Open"}},
    ]}
    world.run("INSERT INTO crm_case VALUES (103, 2, 'Refund request', 'Open', NULL)")
    v = verify(world, [task])
    assert v.passed, v.explain()
    assert v.checks[0].actual == ["crm_case #103 added (account_id=2, subject=Refund request, status=Open)"]
    # a duplicate is both a count failure (exactly one by default) and covered (not reported twice)
    world.run("INSERT INTO crm_case VALUES (104, 2, 'Refund request', 'Open', NULL)")
    v = verify(world, [task])
    assert not v.checks[0].passed and v.checks[0].detail.startswith("found 2 such changes")
    assert v.checks[1].passed
    task["expect"][0]["count"] = {"at_least": 1}
    assert verify(world, [task]).passed


def test_add_for_wrong_account_fails(world):
    world.run("INSERT INTO crm_case VALUES (103, 1, 'Refund request', 'Open', NULL)")
    v = verify(world, [{"kind": "changes", "expect": [
        {"table": "crm_case", "op": "add", "where": {"account_id": 2, "subject": "Refund request"}}]}])
    assert not v.passed
    assert v.checks[0].actual[0] == "no crm_case row where account_id is 2 and subject is Refund request was added"
    assert "crm_case #103 added" in v.checks[1].actual[0]


def test_remove(world):
    spec = [{"kind": "changes", "expect": [{"table": "crm_case", "op": "delete", "where": {"subject": "Late delivery"}}]}]
    world.run("DELETE FROM crm_case WHERE id=101")
    assert verify(world, spec).passed
    world.run("DELETE FROM crm_case WHERE id=100")
    v = verify(world, spec)
    assert not v.passed and v.checks[0].passed and "crm_case #100 removed" in v.checks[1].actual[0]


def test_bulk_update_where_matches_before(world):
    spec = [{"kind": "changes", "expect": [{
        "table": "crm_case", "op": "update", "where": {"account_id": 1, "status": {"ne": "Closed"}},
        "to": {"status": "Closed", "closed_at": {"is_null": False}}, "count": 2}]}]
    world.run("UPDATE crm_case SET status='Closed', closed_at='2026-03-16 09:30:00' WHERE id=100")
    v = verify(world, spec)
    assert not v.passed and v.checks[0].detail.startswith("found 1 such change")
    world.run("UPDATE crm_case SET status='Closed', closed_at='2026-03-16 09:31:00' WHERE id=101")
    assert verify(world, spec).passed


def test_fields_must_have_changed(world):
    spec = [{"kind": "changes", "expect": [{"table": "crm_account", "op": "update", "where": {"id": 3},
                                            "fields": ["revenue"]}]}]
    world.run("UPDATE crm_account SET industry='Media' WHERE id=3")
    v = verify(world, spec)
    assert not v.passed and "revenue did not change" in v.checks[0].detail
    assert "industry Software -> Media" in v.checks[1].actual[0]
    world.run("UPDATE crm_account SET revenue=5 WHERE id=3")
    v = verify(world, spec)
    assert v.checks[0].passed and not v.checks[1].passed


def test_allowed_changes(world):
    world.run(
        "UPDATE crm_opportunity SET stage='Closed Won', is_closed=1 WHERE id=10",
        "INSERT INTO crm_case VALUES (103, 1, 'Follow up', 'Open', NULL)",
        "UPDATE crm_account SET revenue=2 WHERE id=1",
    )
    base = dict(CLOSE_RENEWAL)
    v = verify(world, [{**base, "allow": [{"table": "crm_case", "ops": ["add"], "where": {"account_id": 1}},
                                         {"table": "crm_account", "op": "update", "where": {"id": 1}, "fields": ["rev*"]}]}])
    assert v.passed, v.explain()
    # a where that does not hold, or a field outside the allowed ones, is still damage
    v = verify(world, [{**base, "allow": [{"table": "crm_case", "ops": ["add"], "where": {"account_id": 2}},
                                         {"table": "crm_account", "ops": ["update"], "where": {"id": 1}, "fields": ["industry"]}]}])
    assert not v.passed and len(v.checks[1].actual) == 2
    # the allowed update names its row: another account's revenue is damage
    v = verify(world, [{**base, "allow": [{"table": "crm_case", "ops": ["add"], "where": {"account_id": 1}},
                                         {"table": "crm_account", "op": "update", "where": {"id": 2}, "fields": ["revenue"]}]}])
    assert not v.passed and v.checks[1].actual == ["crm_account #1 updated: revenue 1250000 -> 2"]
    # an allowed op must match
    v = verify(world, [{**base, "allow": [{"table": "crm_case", "ops": ["remove"], "where": {"id": 103}},
                                         {"table": "crm_account", "where": {"id": 1}, "fields": ["revenue"]}]}])
    assert not v.passed and v.checks[1].actual[0].startswith("crm_case #103 added")


def test_allowed_values_are_constrained_by_to(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Won', is_closed=1, amount=70000 WHERE id=10")
    allow = {"table": "crm_opportunity", "op": "update", "where": {"id": 10}, "to": {"amount": {"gte": 60000}}}
    assert verify(world, [{**CLOSE_RENEWAL, "allow": [allow]}]).passed
    world.run("UPDATE crm_opportunity SET amount=5 WHERE id=10")
    v = verify(world, [{**CLOSE_RENEWAL, "allow": [allow]}])
    assert not v.passed and v.checks[1].actual == ["crm_opportunity #10 updated: amount 50000 -> 5"]


def test_an_allow_must_name_its_rows_and_fields():
    import pytest

    from verifiers import VerifierSpecError

    with pytest.raises(VerifierSpecError, match=r"checks\[0\]\.allow\[0\]\.where: an allowed change must name its rows"):
        build_verifier([{"kind": "changes", "allow": [{"table": "crm_note", "ops": ["update"], "fields": ["body"]}]}])
    with pytest.raises(VerifierSpecError, match=r"allow\[0\]\.fields: an allowed update must name its 'fields'"):
        build_verifier([{"kind": "changes", "allow": [{"table": "crm_note", "ops": ["update"], "where": {"id": 1}}]}])
    # adds and removals need rows only
    build_verifier([{"kind": "changes", "allow": [{"table": "crm_note", "ops": ["add"], "where": {"parent_id": 1}}]}])


def test_mass_update_with_one_wrong_row_fails(world):
    spec = [{"kind": "changes", "expect": [{
        "table": "crm_case", "op": "update", "where": {"account_id": 1, "status": {"ne": "Closed"}},
        "to": {"status": "Closed"}, "count": {"at_least": 1}}]}]
    world.run("UPDATE crm_case SET status='Closed' WHERE id=100", "UPDATE crm_case SET status='Open' WHERE id=101")
    v = verify(world, spec)
    assert v.checks[0].passed  # one right row satisfies at_least...
    assert not v.passed and v.score == 0.0  # ...but the wrong row is not explained: it is damage
    assert v.checks[1].actual == ["crm_case #101 updated: status Escalated -> Open"]


def test_count_all_needs_every_matching_row(world):
    spec = [{"kind": "changes", "expect": [{
        "table": "crm_case", "op": "update", "where": {"account_id": 1, "status": {"ne": "Closed"}},
        "to": {"status": "Closed"}, "count": "all"}]}]
    assert not verify(world, spec).passed  # nothing done: no row is a vacuous "all"
    world.run("UPDATE crm_case SET status='Closed' WHERE id=100")
    v = verify(world, spec)
    assert not v.passed and "1 matching row not updated: #101" in v.checks[0].detail
    assert v.checks[0].expected == {"all": 2} and v.checks[0].score == 0.5 and v.score == 0.5
    assert v.checks[0].sentence.startswith("every crm_case row that matched at the start where account_id is 1 and status is not Closed, was updated")
    world.run("UPDATE crm_case SET status='Closed' WHERE id=101")
    assert verify(world, spec).passed


def test_composite_key_changes(world):
    world.run("UPDATE team_member SET role='owner' WHERE team_id=2 AND user_id=7",
              "INSERT INTO team_member VALUES (2, 9, 'member')")
    spec = [{"kind": "changes", "expect": [
        {"table": "team_member", "op": "update", "where": {"team_id": 2, "user_id": 7}, "to": {"role": "owner"}}]}]
    v = verify(world, spec)
    assert v.checks[0].passed and not v.checks[1].passed
    assert v.checks[1].actual == ["team_member (team_id=2, user_id=9) added (role=member)"]


def test_scope_limits_nothing_else(world):
    world.run("UPDATE crm_account SET industry='Retail' WHERE id=2")
    assert verify(world, [{"kind": "changes", "tables": ["crm_opp*", "crm_case"]}]).passed
    v = verify(world, [{"kind": "changes", "tables": ["crm_*"]}])
    assert not v.passed and v.checks[0].sentence == "nothing changed in crm_*"


def test_strict_false_has_no_nothing_else(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Won', is_closed=1 WHERE id=10",
              "UPDATE crm_account SET industry='Retail' WHERE id=2")
    v = verify(world, [{**CLOSE_RENEWAL, "strict": False}])
    assert v.passed and len(v.checks) == 1


def test_names_and_weights_of_expected_changes(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Won', is_closed=1 WHERE id=10")
    spec = [{"kind": "changes", "name": "close", "weight": 2, "expect": [
        {**CLOSE_RENEWAL["expect"][0], "name": "won", "weight": 3, "sentence": "the renewal is won"},
        {"table": "crm_case", "op": "remove", "where": {"id": 100}},
    ]}]
    v = verify(world, spec)
    assert [c.name for c in v.checks] == ["close.won", "close.remove:crm_case", "close.nothing_else"]
    assert [c.weight for c in v.checks] == [3, 2, 2]
    assert v.checks[0].sentence == "the renewal is won"
    assert v.score == 3 / 5 and not v.passed  # credit from the expectations only (3 of 3 + 2)


def test_diff_from_change_log_gives_same_verdict(world, tmp_path):
    """The trigger-maintained change log folds into the same WorldDiff the verifier consumes."""
    import sqlite3

    from apps_web.world import changelog

    conn = sqlite3.connect(world.end)
    changelog.install(conn)
    conn.execute("UPDATE crm_opportunity SET stage='Closed Won', is_closed=1 WHERE id=10")
    conn.execute("UPDATE team_member SET role='owner' WHERE team_id=2 AND user_id=7")
    conn.commit()
    diff, _ = changelog.changes_since(conn, 0)
    conn.close()
    ctx = world.context()
    ctx.diff = diff
    v = build_verifier([CLOSE_RENEWAL]).verify(ctx)
    assert not v.passed
    assert v.checks[1].actual == ["team_member (team_id=2, user_id=7) updated: role member -> owner"]


def test_after_conditions_on_updated_row(world):
    spec = [{"kind": "changes", "expect": [{
        "table": "crm_opportunity", "op": "update", "where": {"account_id": 1, "stage": "Prospecting"},
        "to": {"stage": "Negotiation"}, "after": {"amount": {"gte": 10000}, "account_id": 1}}]}]
    world.run("UPDATE crm_opportunity SET stage='Negotiation', amount=5000 WHERE id=11")
    v = verify(world, spec)
    assert not v.passed and "crm_opportunity #11: amount is 5000" in v.checks[0].detail
    assert v.checks[0].sentence.endswith("so that stage is Negotiation and amount is at least 10000 and account_id is 1")
    world.run("UPDATE crm_opportunity SET amount=12000 WHERE id=11")
    assert verify(world, spec).passed


def test_count_all_counts_a_change_undone_as_missed(world):
    spec = [{"kind": "changes", "ignore": ["*.closed_at"], "expect": [{
        "table": "crm_case", "op": "update", "where": {"account_id": 1, "status": {"ne": "Closed"}},
        "to": {"status": "Closed"}, "count": "all"}]}]
    # case 100 closed; case 101 closed and reopened: only its (ignored) bookkeeping changed
    world.run("UPDATE crm_case SET status='Closed' WHERE id=100", "UPDATE crm_case SET closed_at='2026-03-16' WHERE id=101")
    v = verify(world, spec)
    assert not v.passed and "1 matching row not updated: #101" in v.checks[0].detail

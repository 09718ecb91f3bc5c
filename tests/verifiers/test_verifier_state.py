"""World-state checks: records expected in the final world, with operators and counts."""

from __future__ import annotations

import datetime as dt

import pytest

from verifiers import build_verifier


def verdict(world, checks, **ctx):
    return build_verifier(checks).verify(world.context(**ctx))


def test_expected_value_passes_with_sentence(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Won', is_closed=1 WHERE id=10")
    v = verdict(world, [{
        "kind": "state", "table": "crm_opportunity", "where": {"name": "Acme renewal"},
        "expect": {"stage": "Closed Won", "is_closed": True}, "subject": "the opportunity",
    }])
    assert v.passed and v.score == 1.0
    assert v.checks[0].sentence == "the opportunity's stage is Closed Won"
    assert v.checks[0].actual == "Closed Won"


def test_wrong_value_fails_naming_actual(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Lost' WHERE id=10")
    v = verdict(world, [{"kind": "state", "table": "crm_opportunity", "where": {"id": 10},
                         "expect": {"stage": "Closed Won"}}])
    assert not v.passed and v.score == 0.0
    c = v.checks[0]
    assert c.actual == "Closed Lost" and c.expected == "Closed Won"
    assert "stage is Closed Lost" in v.reason


def test_wrong_record_changed_fails(world):
    # The near miss: the expansion opportunity was closed instead of the renewal.
    world.run("UPDATE crm_opportunity SET stage='Closed Won' WHERE id=11")
    v = verdict(world, [{"kind": "state", "table": "crm_opportunity", "where": {"name": "Acme renewal"},
                         "expect": {"stage": "Closed Won"}}])
    assert not v.passed


def test_no_matching_row_fails(world):
    v = verdict(world, [{"kind": "state", "table": "crm_opportunity", "where": {"name": "Nope"},
                         "expect": {"stage": "Closed Won"}}])
    assert not v.passed
    assert "no crm_opportunity row where name is Nope" in v.checks[0].detail


def test_count_none_remaining(world):
    spec = [{"kind": "state", "table": "crm_case", "where": {"account_id": 1, "status": {"ne": "Closed"}},
             "count": 0, "sentence": "no open case remains for Acme"}]
    v = verdict(world, spec)
    assert not v.passed and v.checks[0].sentence == "no open case remains for Acme"
    assert v.checks[0].actual["count"] == 2
    world.run("UPDATE crm_case SET status='Closed' WHERE account_id=1")
    assert verdict(world, spec).passed


def test_count_forms(world):
    def ok(count, **where):
        return verdict(world, [{"kind": "state", "table": "crm_opportunity", "where": where, "count": count}]).passed

    assert ok(2, account_id=1)
    assert not ok(1, account_id=1)
    assert ok({"at_least": 1}, account_id=1)
    assert not ok({"at_least": 3}, account_id=1)
    assert ok({"at_most": 2}, account_id=1)
    assert not ok({"at_most": 0}, account_id=1)
    assert ok("none", account_id=99)
    # without count and without expect: at least one row must exist
    assert verdict(world, [{"kind": "state", "table": "crm_account", "where": {"name": "Globex"}}]).passed
    assert not verdict(world, [{"kind": "state", "table": "crm_account", "where": {"name": "Umbrella"}}]).passed


def test_count_sentence(world):
    v = verdict(world, [{"kind": "state", "table": "crm_case", "where": {"status": "Open"}, "count": 1}])
    assert v.checks[0].sentence == "exactly one crm_case row where status is Open exists"


@pytest.mark.parametrize(
    ("cond", "passes"),
    [
        ({"contains": "renew"}, True),
        ({"contains": "Renew"}, False),
        ({"icontains": "RENEW"}, True),
        ({"iequals": "acme RENEWAL"}, True),
        ({"iequals": "acme"}, False),
        ({"in": ["Acme renewal", "x"]}, True),
        ({"not_in": ["Acme renewal"]}, False),
        ({"regex": "^Acme\\s+r"}, True),
        ({"regex": "^Globex"}, False),
        ({"ne": "Acme renewal"}, False),
        ({"is_null": False}, True),
        ({"is_null": True}, False),
    ],
)
def test_text_operators(world, cond, passes):
    v = verdict(world, [{"kind": "state", "table": "crm_opportunity", "where": {"id": 10}, "expect": {"name": cond}}])
    assert v.passed is passes


@pytest.mark.parametrize(
    ("cond", "passes"),
    [
        (50000, True),
        (50000.0000001, True),  # float tolerance
        (50000.5, False),  # near miss outside the default tolerance
        ({"eq": 50000.5, "tol": 1}, True),
        ({"eq": 50002, "tol": 1}, False),
        ({"gt": 49999.99}, True),
        ({"gt": 50000}, False),
        ({"gte": 50000}, True),
        ({"lt": 50000}, False),
        ({"lte": 50000}, True),
        ({"gte": 40000, "lt": 60000}, True),
        ("50000", True),  # numeric text from YAML quoting
        ({"in": [1, 50000]}, True),
    ],
)
def test_numeric_operators(world, cond, passes):
    v = verdict(world, [{"kind": "state", "table": "crm_opportunity", "where": {"id": 10}, "expect": {"amount": cond}}])
    assert v.passed is passes


@pytest.mark.parametrize(
    ("cond", "passes"),
    [
        (dt.date(2026, 3, 31), True),  # YAML gives a date object
        ("2026-03-31", True),
        ("2026-03-30", False),
        ({"gt": dt.date(2026, 3, 30)}, True),
        ({"lt": "2026-03-31"}, False),
        ({"lte": "2026-03-31T23:00:00"}, True),
    ],
)
def test_date_operators(world, cond, passes):
    v = verdict(world, [{"kind": "state", "table": "crm_opportunity", "where": {"id": 10}, "expect": {"close_date": cond}}])
    assert v.passed is passes


def test_datetime_text_compared_as_dates(world):
    # A bare date matches any time that day; a datetime must match exactly (formats may differ).
    base = {"kind": "state", "table": "crm_case", "where": {"id": 102}}
    assert verdict(world, [{**base, "expect": {"closed_at": dt.date(2026, 2, 20)}}]).passed
    assert verdict(world, [{**base, "expect": {"closed_at": "2026-02-20T10:00:00"}}]).passed
    assert not verdict(world, [{**base, "expect": {"closed_at": "2026-02-20 10:00:01"}}]).passed
    assert not verdict(world, [{**base, "expect": {"closed_at": "2026-02-21"}}]).passed


def test_null_equality(world):
    base = {"kind": "state", "table": "crm_account", "where": {"id": 3}}
    assert verdict(world, [{**base, "expect": {"revenue": None}}]).passed
    assert not verdict(world, [{**base, "expect": {"revenue": 0}}]).passed


def test_expect_must_hold_for_every_matching_row(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Won' WHERE id=10")
    v = verdict(world, [{"kind": "state", "table": "crm_opportunity", "where": {"account_id": 1},
                         "expect": {"stage": "Closed Won"}}])
    assert not v.passed
    assert v.checks[0].actual == {"#11": "Prospecting"}
    assert "1 of 2 matching rows differ" in v.checks[0].detail


def test_composite_key_table(world):
    world.run("UPDATE team_member SET role='owner' WHERE team_id=1 AND user_id=8")
    v = verdict(world, [{"kind": "state", "table": "team_member", "where": {"team_id": 1}, "expect": {"role": "owner"}}])
    assert v.passed
    world.run("UPDATE team_member SET role='viewer' WHERE team_id=1 AND user_id=7")
    v = verdict(world, [{"kind": "state", "table": "team_member", "where": {"team_id": 1}, "expect": {"role": "owner"}}])
    assert not v.passed and v.checks[0].actual == {"(team_id=1, user_id=7)": "viewer"}


def test_in_table_reference(world):
    spec = [{"kind": "state", "table": "crm_case",
             "where": {"account_id": {"in_table": {"table": "crm_account", "where": {"name": "Acme Corp"}}},
                       "status": {"in": ["Open", "Escalated"]}},
             "count": 0}]
    v = verdict(world, spec)
    assert not v.passed
    assert "is the id of a crm_account row where name is Acme Corp" in v.checks[0].sentence
    world.run("UPDATE crm_case SET status='Closed' WHERE id IN (100, 101)")
    assert verdict(world, spec).passed


def test_parameters(world):
    spec = [{"kind": "state", "table": "crm_opportunity", "where": {"name": "{{ opp.name }}"},
             "expect": {"stage": "{{stage}}", "amount": "{{ amount }}"}}]
    verifier = build_verifier(spec)
    assert verifier.parameters == {"opp", "stage", "amount"}
    ctx = world.context(params={"opp": {"name": "Acme renewal"}, "stage": "Negotiation", "amount": 50000})
    assert verifier.verify(ctx).passed
    ctx = world.context(params={"opp": {"name": "Acme renewal"}, "stage": "Closed Won", "amount": 50000})
    v = verifier.verify(ctx)
    assert not v.passed and "stage is Closed Won" in v.checks[0].sentence
    # an unset parameter fails the check with its reason instead of crashing
    v = verifier.verify(world.context(params={"stage": "x"}))
    assert not v.passed and "task parameter 'opp.name' is not set" in (v.checks[0].error or "")


def test_one_combined_check_with_sentence(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Won' WHERE id=10")
    v = verdict(world, [{"kind": "state", "table": "crm_opportunity", "where": {"id": 10},
                         "expect": {"stage": "Closed Won", "is_closed": 1},
                         "sentence": "the opportunity is closed and won"}])
    assert len(v.checks) == 1 and not v.passed
    assert "is_closed" in v.checks[0].detail


def test_unknown_table_or_field_at_grading_fails_with_reason(world):
    v = verdict(world, [{"kind": "state", "table": "crm_opportunty", "where": {"id": 10}}])
    assert not v.passed and "no table 'crm_opportunty'" in v.checks[0].error
    assert "did you mean 'crm_opportunity'" in v.checks[0].error
    v = verdict(world, [{"kind": "state", "table": "crm_opportunity", "where": {"stagee": "x"}}])
    assert not v.passed and "no column 'stagee'" in v.checks[0].error


def test_missing_world_file_fails_not_crashes(world, tmp_path):
    ctx = world.context()
    ctx.end_db = tmp_path / "gone.sqlite"
    v = build_verifier([{"kind": "state", "table": "crm_account"}]).verify(ctx)
    assert not v.passed and "does not exist" in v.checks[0].error


def test_context_from_worlds(world):
    from verifiers import VerifyContext

    world.run("UPDATE crm_account SET industry='Retail' WHERE id=2")
    ctx = VerifyContext.from_worlds(world.start, world.end, answer="x")
    assert list(ctx.diff.tables) == ["crm_account"] and ctx.answer == "x"
    v = build_verifier([{"kind": "changes"}]).verify(ctx)
    assert not v.passed and v.checks[0].actual == ["crm_account #2 updated: industry Energy -> Retail"]


def test_in_table_compares_ids_stored_as_text(world):
    world.run("INSERT INTO recent_view VALUES (1, '1', 'x')", "INSERT INTO recent_view VALUES (2, 'acct', 'x')")
    v = verdict(world, [{"kind": "state", "table": "recent_view",
                         "where": {"record": {"in_table": {"table": "crm_account", "where": {"name": "Acme Corp"}}}},
                         "count": 1}])
    assert v.passed, v.explain()
    assert v.checks[0].sentence == (
        "exactly one recent_view row where record is the id of a crm_account row where name is Acme Corp exists"
    )

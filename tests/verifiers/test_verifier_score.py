"""Score semantics: credit comes from task progress; guards gate and cap; answers are read by type."""

from __future__ import annotations

import pytest

from verifiers import build_verifier

CLOSE = {"kind": "changes", "expect": [
    {"table": "crm_opportunity", "op": "update", "where": {"id": 10}, "to": {"stage": "Closed Won", "is_closed": 1}}]}
TWO_STEPS = {"kind": "changes", "expect": [
    {"table": "crm_opportunity", "op": "update", "where": {"id": 10}, "to": {"stage": "Closed Won", "is_closed": 1}},
    {"table": "crm_case", "op": "remove", "where": {"id": 100}},
]}


def verify(world, spec, **ctx):
    return build_verifier(spec).verify(world.context(**ctx))


def test_doing_nothing_scores_zero(world):
    for spec in ([CLOSE], [TWO_STEPS], [{"kind": "answer", "expected": "Globex"}],
                 [{"kind": "answer", "match": "number", "expected": 3}, {"kind": "changes"}]):
        v = verify(world, spec)
        assert v.score == 0.0 and not v.passed, (spec, v.explain())
    # a bare "Done." is no answer and no change
    assert verify(world, [{"kind": "answer", "expected": "Globex"}, {"kind": "changes"}], answer="Done.").score == 0.0


def test_nothing_else_is_a_guard_not_credit(world):
    v = verify(world, [TWO_STEPS])
    nothing_else = v.check("nothing_else")
    assert nothing_else.guard and nothing_else.passed and v.score == 0.0
    world.run("UPDATE crm_opportunity SET stage='Closed Won', is_closed=1 WHERE id=10")
    v = verify(world, [TWO_STEPS])
    assert v.score == 0.5 and not v.passed  # partial progress: one of two expected changes


def test_damage_caps_the_score_and_a_task_may_soften_the_cap(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Won', is_closed=1 WHERE id=10",
              "DELETE FROM crm_case WHERE id=100", "UPDATE crm_account SET industry='Retail' WHERE id=2")
    v = verify(world, [TWO_STEPS])
    assert v.score == 0.0 and not v.passed and v.capped == ["nothing_else"]
    assert v.reason.startswith("score capped at 0.00 by nothing_else")
    v = verify(world, {"checks": [TWO_STEPS], "guard_cap": 0.3})
    assert v.score == 0.3 and not v.passed


def test_giving_up_on_a_feasible_task_scores_zero(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Won', is_closed=1 WHERE id=10")
    v = verify(world, [CLOSE], infeasible=True, infeasible_reason="cannot")
    assert v.score == 0.0 and v.check("not_infeasible").guard


def test_guard_flag_on_any_check(world):
    keep_amount = {"kind": "state", "table": "crm_opportunity", "where": {"id": 10}, "expect": {"amount": 50000}, "guard": True}
    v = verify(world, [CLOSE, keep_amount])
    assert v.score == 0.0  # the amount already holds at the start: it must earn nothing
    world.run("UPDATE crm_opportunity SET stage='Closed Won', is_closed=1 WHERE id=10")
    assert verify(world, [CLOSE, keep_amount]).score == 1.0
    world.run("UPDATE crm_opportunity SET amount=1 WHERE id=10")
    assert verify(world, [CLOSE, keep_amount]).score == 0.0


def test_a_group_of_guards_earns_nothing(world):
    spec = [CLOSE, {"kind": "all", "checks": [{"kind": "changes", "tables": ["crm_case"]}]}]
    assert verify(world, spec).score == 0.0


def test_persona_guard(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Won', is_closed=1 WHERE id=10")
    assert verify(world, [CLOSE], persona="jdoe", final_user="jdoe").passed
    for final, detail in (("admin", "signed in as admin"), ("", "nobody is signed in")):
        v = verify(world, [CLOSE], persona="jdoe", final_user=final)
        assert not v.passed and v.score == 0.0 and v.check("persona").detail == detail
    assert verify(world, [CLOSE], persona="jdoe", final_user=None).passed  # unknown: not checked


@pytest.mark.parametrize("answer,ok", [
    ("(816) 555-5407", True),
    ("The phone number is (816) 555-5407.", True),
    ("+1 816.555.5407", True),
    ("816-555-5408", False),
    ("(816) 555-5407 or (816) 555-1234", False),
    ("I could not find it", False),
])
def test_phone_answers(world, answer, ok):
    assert verify(world, [{"kind": "answer", "match": "phone", "expected": "(816) 555-5407"}], answer=answer).passed is ok


@pytest.mark.parametrize("answer,ok", [
    ("jane.doe@acme.example.com", True),
    ("Her e-mail is Jane.Doe@acme.example.com.", True),
    ("jane.doe@acme.example.com, john@acme.example.com", False),
    ("jane@acme.example.com", False),
])
def test_email_answers(world, answer, ok):
    assert verify(world, [{"kind": "answer", "match": "email", "expected": "jane.doe@acme.example.com"}], answer=answer).passed is ok


@pytest.mark.parametrize("answer,ok", [
    ("2026-03-16", True), ("It closes on Mar 16, 2026.", True), ("3/16/2026", True), ("16 March 2026", True),
    ("March 17, 2026", False), ("Mar 16, 2026 or Mar 17, 2026", False),
])
def test_date_answers(world, answer, ok):
    assert verify(world, [{"kind": "answer", "match": "date", "expected": "2026-03-16"}], answer=answer).passed is ok


@pytest.mark.parametrize("answer,ok", [
    ("Globex", True),
    ("The account is Globex.", True),
    ("It's Globex Corporation's... no wait, Globex", True),
    ("Globex or Initech", False),
    ("Globex; Initech; Acme", False),
    ("Globex, Initech, Acme", False),
    ("Initech", False),
])
def test_names_in_short_answers(world, answer, ok):
    assert verify(world, [{"kind": "answer", "expected": "Globex"}], answer=answer).passed is ok


def test_among_candidates_catches_stuffing(world):
    spec = [{"kind": "answer", "expected": "Globex", "among": {"table": "crm_account", "field": "name"}}]
    accounts = [r[0] for r in __import__("sqlite3").connect(world.end).execute("select name from crm_account")]
    assert "Globex" in accounts and len(accounts) > 1
    other = next(a for a in accounts if a != "Globex")
    assert verify(world, spec, answer="Globex").passed
    v = verify(world, spec, answer=f"Globex and {other}")
    assert not v.passed and other in v.checks[0].detail


def test_number_answer_beside_a_date(world):
    spec = [{"kind": "answer", "match": "number", "expected": 5}]
    assert verify(world, spec, answer="There are 5 open cases as of Mar 16, 2026.").passed
    assert not verify(world, spec, answer="5 or 6").passed


def test_infeasible_reason_and_looking(world):
    spec = [{"kind": "infeasible", "reason": ["Quantum Mesh"], "looked": [{"typed": "Quantum Mesh Upgrade"}, {"visited": "q=quantum"}]}]
    searched = [{"step": 1, "action": {"action": "type", "text": "Quantum Mesh"}, "url": "http://crm.localhost/opportunities"}]
    ok = verify(world, spec, infeasible=True, infeasible_reason='There is no opportunity "Acme - Quantum Mesh Upgrade".', steps=searched)
    assert ok.passed and ok.score == 1.0
    blind = verify(world, spec, infeasible=True, infeasible_reason="no")
    assert not blind.passed and blind.score == 0.0 and "without looking" in blind.checks[0].detail
    vague = verify(world, spec, infeasible=True, infeasible_reason="It cannot be done.", steps=searched)
    assert not vague.passed and "does not name it" in vague.checks[0].detail
    by_url = [{"step": 1, "action": {"action": "goto", "url": "/opportunities?q=Quantum+Mesh"}, "url": "http://crm.localhost/opportunities?q=Quantum+Mesh"}]
    assert verify(world, spec, infeasible=True, infeasible_reason="No Quantum Mesh deal exists", steps=by_url).passed
    assert verify(world, spec).score == 0.0  # doing nothing


def test_forbidden_steps_are_a_guard(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Won', is_closed=1 WHERE id=10")
    spec = [CLOSE, {"kind": "forbidden", "visited": ["/api/"], "actions": ["goto"]}]
    clicks = [{"step": 1, "action": {"action": "left_click", "x": 1, "y": 2}, "url": "http://crm.localhost/opportunities/10"}]
    v = verify(world, spec, steps=clicks)
    assert v.passed and v.score == 1.0 and v.check("forbidden").guard
    api = [{"step": 1, "action": {"action": "key", "text": "Return"}, "url": "http://crm.localhost/api/opportunities/10"}]
    v = verify(world, spec, steps=api)
    assert not v.passed and v.score == 0.0 and "step 1" in v.check("forbidden").detail
    gotos = [{"step": 2, "action": {"action": "goto", "url": "/opportunities/10"}, "url": "http://crm.localhost/opportunities/10"}]
    assert verify(world, spec, steps=gotos).capped == ["forbidden"]
    with pytest.raises(Exception, match="names 'visited'"):
        build_verifier([{"kind": "forbidden"}])


def test_counts_accept_parameters(world):
    spec = [{"kind": "state", "table": "crm_case", "where": {"account_id": 1}, "count": "{{ n }}"}]
    assert verify(world, spec, params={"n": 2}).passed
    v = verify(world, spec, params={"n": 3})
    assert not v.passed and v.checks[0].expected == {"exactly": 3}
    assert "not a whole number" in verify(world, spec, params={"n": "many"}).checks[0].error
    ch = [{"kind": "changes", "expect": [{"table": "crm_case", "op": "remove", "where": {"account_id": 1},
                                          "count": {"at_least": "{{ k }}"}}]}]
    world.run("DELETE FROM crm_case WHERE account_id=1")
    assert verify(world, ch, params={"k": 2}).passed and not verify(world, ch, params={"k": 3}).passed
    with pytest.raises(Exception, match="whole number or a task parameter"):
        build_verifier([{"kind": "state", "table": "crm_case", "count": {"exactly": "two"}}])


def test_route_checks_the_pages_opened(world):
    steps = [{"step": 1, "url": "http://crm.localhost/opportunities?view=mine"},
             {"step": 2, "url": "http://crm.localhost/opportunities/10"}]
    spec = [{"kind": "route", "visited": ["/opportunities?view=", "/opportunities/{{ opp }}"], "ordered": True}]
    assert verify(world, spec, steps=steps, params={"opp": 10}).passed
    v = verify(world, spec, steps=list(reversed(steps)), params={"opp": 10})
    assert not v.passed and "in this order" in v.checks[0].detail
    assert verify(world, spec, params={"opp": 10}).score == 0.0  # doing nothing


def test_ordered_milestones(world):
    world.run("UPDATE crm_opportunity SET stage='Closed Won', is_closed=1 WHERE id=10", "DELETE FROM crm_case WHERE id=100")
    first = {"kind": "changes", "name": "won", "strict": False, "expect": CLOSE["expect"]}
    second = {"kind": "changes", "name": "case", "strict": False,
              "expect": [{"table": "crm_case", "op": "remove", "where": {"id": 100}}]}
    spec = {"ordered": True, "checks": [first, second]}
    assert verify(world, spec, reached={"won.update:crm_opportunity": 2, "case.remove:crm_case": 5}).score == 1.0
    v = verify(world, spec, reached={"won.update:crm_opportunity": 5, "case.remove:crm_case": 2})
    assert v.score == 0.5 and not v.passed and "out of order" in v.checks[1].detail
    assert verify(world, spec).score == 1.0  # no per-step grading: reached at the end, in order

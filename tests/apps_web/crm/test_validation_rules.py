"""Validation rules (Setup > Validation Rules) in real Chromium and over the JSON API: every save path
(record dialog, inline edit, path, board, mass change, merge, API) refuses a save a rule's formula
finds wrong, with the rule's message where the rule says; the database is checked each time. The
Setup pages: an administrator deactivates and edits a rule (a bad formula gets Salesforce's message),
a sales rep sees no such buttons and the server refuses."""

from __future__ import annotations

import re
from datetime import date

import httpx
import pytest
from playwright.sync_api import Browser, expect

from apps_web.crm.rules import FIELD_NAMES, FormulaError, Record, compile_formula, evaluate
from apps_web.crm.seed.rules import RULES
from apps_web.identity import SESSION_COOKIE, session_cookie

from .conftest import user_of, write

NEXT_STEP_MSG = "Enter a Next Step before you move an opportunity to Proposal/Price Quote or Negotiation/Review."


def run(tree, values, prior=None, is_new=False) -> object:
    return evaluate(tree, Record(values, prior if prior is not None else values, is_new, None, date(2026, 3, 16)))


# -- the formula language ----------------------------------------------------------------------------------
def test_formulas_evaluate_like_salesforce() -> None:
    t = compile_formula("opportunity", 'AND(ISPICKVAL(StageName, "Closed Lost"), ISBLANK(Main_Competitors__c))')
    assert run(t, {"stage": "Closed Lost", "main_competitors": None}) is True
    assert run(t, {"stage": "Closed Lost", "main_competitors": "Globex"}) is False
    assert run(t, {"stage": "Prospecting", "main_competitors": ""}) is False
    t = compile_formula("opportunity", "Amount >= 500000 && (Probability < 20 || CloseDate - TODAY() > 90)")
    assert run(t, {"amount": 600000.0, "probability": 10, "close_date": date(2026, 4, 1)}) is True
    assert run(t, {"amount": 600000.0, "probability": 50, "close_date": date(2026, 9, 1)}) is True
    assert run(t, {"amount": 600000.0, "probability": 50, "close_date": date(2026, 4, 1)}) is False
    assert run(t, {"amount": None, "probability": 10, "close_date": None}) is False  # a blank compares false
    t = compile_formula("opportunity", "AND(ISCHANGED(CloseDate), CloseDate < PRIORVALUE(CloseDate), NOT(ISNEW()))")
    assert run(t, {"close_date": date(2026, 3, 1)}, {"close_date": date(2026, 3, 20)}) is True
    assert run(t, {"close_date": date(2026, 3, 1)}, {"close_date": date(2026, 3, 1)}) is False
    t = compile_formula("lead", 'LEN(Company) < 3 || BEGINS(LOWER(Email), "test") || TEXT(Status) = "Nurturing"')
    assert run(t, {"company": "Acme", "email": "Test.user@x.io", "status": "Working"}) is True
    assert run(t, {"company": "Acme", "email": "ann@x.io", "status": "Working"}) is False


@pytest.mark.parametrize(("formula", "message"), [
    ("ISBLANK(Next_Step)", "Field Next_Step does not exist. Check spelling."),
    ("ISBLAK(NextStep)", "Unknown function ISBLAK. Check spelling."),
    ('StageName = "Closed Lost"', "Field StageName is a picklist field. Picklist fields are only supported in certain functions."),
    ('ISPICKVAL(StageName)', "Incorrect number of parameters for function 'ISPICKVAL()'. Expected 2, received 1"),
    ("AND(ISBLANK(NextStep), Amount > 5", "Syntax error. Missing ')'"),
    ("Amount + 5", "Formula result is data type (Number), incompatible with expected data type (true or false)."),
    ('Amount > "big"', "Incorrect parameter type for operator '>'. Expected Number, received Text"),
    ("", "Enter an error condition formula."),
])
def test_bad_formulas_get_salesforce_messages(formula: str, message: str) -> None:
    with pytest.raises(FormulaError) as exc:
        compile_formula("opportunity", formula)
    assert str(exc.value) == message


def test_seeded_rules_compile_and_the_active_ones_hold_for_every_seeded_record(live_host) -> None:
    world = live_host.world()
    rows = world.query("SELECT object_type, name, active, error_condition FROM crm_validation_rule ORDER BY id")
    assert [(r[0], r[1], bool(r[2])) for r in rows] == [(o, n, a) for o, n, a, *_ in RULES]
    tables = {"opportunity": "crm_opportunity", "case": "crm_case", "lead": "crm_lead"}
    for obj, name, active, condition in rows:
        tree = compile_formula(obj, condition)
        if not active:
            continue
        cols = list(FIELD_NAMES[obj].values())
        for values in world.query(f"SELECT {', '.join(cols)} FROM {tables[obj]}"):
            rec = dict(zip(cols, values))
            if rec.get("close_date"):
                rec["close_date"] = date.fromisoformat(rec["close_date"][:10])
            assert run(tree, rec, rec) is not True, (name, rec)  # an edit that changes nothing is never refused


# -- every save path -------------------------------------------------------------------------------------
@pytest.fixture()
def fresh(browser: Browser, live_host):
    """Signed in as the VP of Sales, who reaches every deal through the role hierarchy (Opportunities are Private)."""
    world = live_host.world()
    context = live_host.new_context(browser, world, world.one("SELECT username FROM identity_user WHERE title = 'VP of Sales' ORDER BY id")[0])
    yield world, context.new_page()
    context.close()


def open_deal(world) -> tuple[int, str, str]:
    """An open deal in Needs Analysis without products, its Next Step blanked for the test."""
    opp_id, name, stage = world.one("SELECT id, name, stage FROM crm_opportunity WHERE stage = 'Needs Analysis' AND pricebook_id IS NULL ORDER BY id LIMIT 1")
    write(world, "UPDATE crm_opportunity SET next_step = NULL WHERE id = ?", opp_id)
    return opp_id, name, stage


def test_record_dialog_keeps_what_was_typed_and_shows_the_rule_under_its_field(fresh, live_host) -> None:
    world, page = fresh
    opp_id, name, _stage = open_deal(world)
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}"))
    page.get_by_role("button", name="Edit Opportunity", exact=True).click()
    dialog = page.get_by_role("dialog", name=f"Edit {name}")
    dialog.get_by_label("Stage").select_option("Negotiation/Review")
    dialog.get_by_role("textbox", name="Description").fill("Pricing agreed in principle with procurement.")
    dialog.get_by_role("button", name="Save", exact=True).click()
    dialog = page.get_by_role("dialog", name=f"Edit {name}")
    expect(dialog.get_by_role("alert").first).to_contain_text("Review the errors on this page.")
    expect(dialog.locator(".field.has-error")).to_contain_text(NEXT_STEP_MSG)  # under Next Step
    expect(dialog.get_by_label("Stage")).to_have_value("Negotiation/Review")  # nothing typed is lost
    expect(dialog.get_by_role("textbox", name="Description")).to_have_value("Pricing agreed in principle with procurement.")
    assert world.one("SELECT stage, next_step FROM crm_opportunity WHERE id = ?", opp_id) == ("Needs Analysis", None)
    dialog.get_by_label("Next Step").fill("Redline review with legal on Thursday")
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    assert world.one("SELECT stage, next_step FROM crm_opportunity WHERE id = ?", opp_id) == ("Negotiation/Review", "Redline review with legal on Thursday")


def test_inline_edit_path_board_and_mass_change_are_refused(fresh, live_host) -> None:
    world, page = fresh
    opp_id, name, stage = open_deal(world)
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}"))
    page.get_by_role("button", name="Edit Stage", exact=True).click()
    form = page.get_by_role("form", name="Edit Stage")
    form.get_by_label("Stage").select_option("Proposal/Price Quote")
    form.get_by_role("button", name="Save").click()
    alert = page.get_by_role("form", name="Edit Stage").get_by_role("alert")
    expect(alert).to_contain_text("Review the errors on this page.")
    expect(alert).to_contain_text(NEXT_STEP_MSG)
    assert world.one("SELECT stage FROM crm_opportunity WHERE id = ?", opp_id)[0] == stage
    # The path: Mark as Current Stage.
    page.goto(live_host.url("crm", f"/opportunities/{opp_id}"))
    path = page.get_by_role("region", name="Stage path")
    path.get_by_role("button", name="Negotiation/Review").click()
    path.get_by_role("button", name="Mark as Current Stage").click()
    expect(page.locator(".toast.error")).to_contain_text(NEXT_STEP_MSG)
    assert world.one("SELECT stage FROM crm_opportunity WHERE id = ?", opp_id)[0] == stage
    # The board's Move to menu.
    page.goto(live_host.url("crm", "/opportunities/board?scope=all&closed=0"))
    card = page.locator(f".kanban-card[data-id='{opp_id}']")
    card.get_by_role("button", name=f"Move {name} to another stage").click()
    card.get_by_role("menuitem", name="Proposal/Price Quote").click()
    expect(page.locator(".toast.error")).to_contain_text(NEXT_STEP_MSG)
    assert world.one("SELECT stage FROM crm_opportunity WHERE id = ?", opp_id)[0] == stage
    # A mass change of the stage from the list: all or nothing.
    other = world.one("SELECT id FROM crm_opportunity WHERE stage = 'Qualification' AND id != ? ORDER BY id LIMIT 1", opp_id)[0]
    page.evaluate("""async ([a, b]) => { const body = new URLSearchParams([["ids", a], ["ids", b], ["value", "Proposal/Price Quote"]]);
                       await fetch("/mass/opportunities/stage", {method: "POST", body}); }""", [str(opp_id), str(other)])
    assert world.one("SELECT count(*) FROM crm_opportunity WHERE id IN (?, ?) AND stage = 'Proposal/Price Quote'", opp_id, other)[0] == 0
    write(world, "UPDATE crm_opportunity SET next_step = 'Pricing call' WHERE id = ?", other)
    page.evaluate("""async (b) => { const body = new URLSearchParams([["ids", b], ["value", "Proposal/Price Quote"]]);
                       await fetch("/mass/opportunities/stage", {method: "POST", body}); }""", str(other))
    assert world.one("SELECT stage FROM crm_opportunity WHERE id = ?", other)[0] == "Proposal/Price Quote"
    # With a Next Step the same move is saved.
    write(world, "UPDATE crm_opportunity SET next_step = 'Send the proposal' WHERE id = ?", opp_id)
    page.goto(live_host.url("crm", "/opportunities/board?scope=all&closed=0"))
    card = page.locator(f".kanban-card[data-id='{opp_id}']")
    card.get_by_role("button", name=f"Move {name} to another stage").click()
    card.get_by_role("menuitem", name="Proposal/Price Quote").click()
    expect(page.locator(".toast.success")).to_contain_text("Proposal/Price Quote")
    assert world.one("SELECT stage FROM crm_opportunity WHERE id = ?", opp_id)[0] == "Proposal/Price Quote"


def test_api_answers_field_custom_validation_exception(live_host) -> None:
    world = live_host.world()
    write(world, "UPDATE crm_validation_rule SET active = 1 WHERE name = 'Escalated_Case_Priority'")
    case_id = world.one("SELECT id FROM crm_case WHERE status = 'New' AND priority = 'Medium' ORDER BY id LIMIT 1")[0]
    headers = {"Host": f"crm.localhost:{live_host.port}", "X-Sandbox-World": world.id,
               "Cookie": f"{SESSION_COOKIE}={session_cookie(live_host.secret, user_of(world, 'support_agent'), world.id)}"}
    with httpx.Client(base_url=f"http://127.0.0.1:{live_host.port}", headers=headers) as client:
        res = client.patch(f"/api/cases/{case_id}", json={"status": "Escalated"})
        assert res.status_code == 400
        assert res.json() == [{"message": "Set the Priority to High or Critical before you escalate a case.",
                               "errorCode": "FIELD_CUSTOM_VALIDATION_EXCEPTION", "fields": ["Priority"]}]
        assert world.one("SELECT status FROM crm_case WHERE id = ?", case_id)[0] == "New"
        res = client.patch(f"/api/cases/{case_id}", json={"status": "Escalated", "priority": "High"})
        assert res.status_code == 200
        assert world.one("SELECT status, priority FROM crm_case WHERE id = ?", case_id) == ("Escalated", "High")
        # A top-of-page rule: no field named.
        res = client.post("/api/leads", json={"last_name": "Okafor", "company": "Brightline Freight"})
        assert res.status_code == 400 and res.json()[0]["fields"] == []
        assert res.json()[0]["message"] == "Enter an email address or a phone number so the lead can be contacted."


def test_merge_is_refused_when_the_kept_values_break_a_rule(live_host) -> None:
    from apps_web.crm.merge import MergeError, merge_records
    from apps_web.identity.models import User
    from apps_web.world.clock import WorldClock

    world = live_host.world()
    (a,), (b,) = world.query("SELECT id FROM crm_lead WHERE converted_at IS NULL AND email IS NOT NULL AND phone IS NOT NULL ORDER BY id LIMIT 2")
    write(world, "UPDATE crm_lead SET email = NULL WHERE id = ?", b)
    write(world, "INSERT INTO crm_validation_rule (object_type, name, active, error_condition, error_message, error_field) VALUES "
                 "('lead', 'Lead_Needs_Email', 1, 'ISBLANK(Email)', 'A lead needs an email address.', 'email')")
    before = world.query("SELECT * FROM crm_lead WHERE id IN (?, ?) ORDER BY id", a, b)
    with world.session() as session:
        admin = session.query(User).filter(User.role == "admin").first()
        with pytest.raises(MergeError, match="A lead needs an email address."):
            merge_records(session, admin, WorldClock(), "lead", a, [a, b], {"email": b})
        session.rollback()
        merge_records(session, admin, WorldClock(), "lead", a, [a, b], {"email": a})  # the master's email: allowed
        session.rollback()
    assert world.query("SELECT * FROM crm_lead WHERE id IN (?, ?) ORDER BY id", a, b) == before


# -- Setup ---------------------------------------------------------------------------------------------------
def test_admin_deactivates_and_edits_a_rule_and_a_rep_cannot(browser: Browser, live_host) -> None:
    world = live_host.world()
    rule_id = world.one("SELECT id FROM crm_validation_rule WHERE name = 'Lead_Email_Or_Phone_Required'")[0]
    rep = live_host.new_context(browser, world, user_of(world, "sales_rep"))
    page = rep.new_page()
    page.goto(live_host.url("crm", "/"))
    page.get_by_role("button", name=re.compile("View profile")).click()
    page.get_by_role("menuitem", name="Setup").click()
    table = page.get_by_role("table", name="Validation Rules")
    expect(table.get_by_role("row")).to_have_count(len(RULES) + 1)
    table.get_by_role("link", name="Lead_Email_Or_Phone_Required").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Lead_Email_Or_Phone_Required")
    expect(page.get_by_role("button", name="Deactivate")).to_have_count(0)  # the UI offers nothing
    status, text = page.evaluate("""async (url) => { const r = await fetch(url, {method: "POST", body: new URLSearchParams({active: "0"})});
                                      return [r.status, await r.text()]; }""", f"/setup/validation-rules/{rule_id}/active")
    assert status == 403 and "Insufficient Privileges" in text
    assert world.one("SELECT active FROM crm_validation_rule WHERE id = ?", rule_id)[0] == 1
    rep.close()

    admin = live_host.new_context(browser, world, user_of(world, "admin"))
    page = admin.new_page()
    page.goto(live_host.url("crm", f"/setup/validation-rules/{rule_id}"))
    page.get_by_role("button", name="Deactivate").click()
    expect(page.locator(".toast")).to_contain_text('Validation rule "Lead_Email_Or_Phone_Required" was deactivated.')
    assert world.one("SELECT active, last_modified_by_id FROM crm_validation_rule WHERE id = ?", rule_id) == (
        0, world.one("SELECT id FROM identity_user WHERE username = ?", user_of(world, "admin"))[0])
    page.get_by_role("link", name="Edit").click()
    form = page.get_by_role("form", name="Lead Validation Rule Edit")
    form.get_by_label("Error Condition Formula").fill("AND(ISBLANK(Email), ISBLANK(Phone)")
    form.get_by_role("button", name="Check Syntax").click()
    form = page.get_by_role("form", name="Lead Validation Rule Edit")
    expect(form).to_contain_text("Error: Syntax error. Missing ')'")
    form.get_by_label("Error Condition Formula").fill("AND(ISBLANK(Email), ISBLANK(Phone), ISBLANK(MobilePhone))")
    form.get_by_role("button", name="Save").click()
    form = page.get_by_role("form", name="Lead Validation Rule Edit")
    expect(form).to_contain_text("Error: Field MobilePhone does not exist. Check spelling.")
    expect(form.get_by_label("Active")).not_to_be_checked()  # kept as it was typed
    form.get_by_label("Error Condition Formula").fill("AND(ISBLANK(Email), ISBLANK(Phone), ISPICKVAL(Status, \"Working - Contacted\"))")
    form.get_by_label("Active").check()
    form.get_by_label("Field", exact=True).check()
    form.get_by_label("Error Location Field").select_option("Email")
    form.get_by_role("button", name="Save").click()
    expect(page.locator(".toast")).to_contain_text('Validation rule "Lead_Email_Or_Phone_Required" was saved.')
    assert world.one("SELECT active, error_field, error_condition FROM crm_validation_rule WHERE id = ?", rule_id) == (
        1, "email", 'AND(ISBLANK(Email), ISBLANK(Phone), ISPICKVAL(Status, "Working - Contacted"))')
    admin.close()

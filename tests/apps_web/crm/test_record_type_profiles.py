"""Record types per profile in real Chromium: the seeded Record Type Settings, "New" offering only the
profile's types (no chooser with one, the default checked), the server refusing another type with the
product's message while records of an unassigned type stay editable, and the Setup pages an administrator
edits them with (New Record Type with its profiles, a picklist's Available Values / Default, deactivation
refused for a default, Profile > Record Type Settings); others get Insufficient Privileges. Each checks the
database and the product's wording."""

from __future__ import annotations

import html

import pytest
from playwright.sync_api import Browser, expect

from .conftest import user_of


def rt_id(world, object_type: str, name: str) -> int:  # noqa: ANN001
    return world.one("SELECT id FROM crm_record_type WHERE object_type = ? AND name = ?", object_type, name)[0]


def post(page, url: str, form: dict | list) -> tuple[int, str]:  # noqa: ANN001
    pairs = list(form.items()) if isinstance(form, dict) else form
    return tuple(page.evaluate("""async ([url, body]) => { const r = await fetch(url, {method: 'POST', body: new URLSearchParams(body)});
                                   return [r.status, await r.text()]; }""", [url, pairs]))


@pytest.fixture()
def as_role(browser: Browser, live_host):
    contexts = []
    world = live_host.world()

    def open_as(role: str):  # noqa: ANN202
        context = live_host.new_context(browser, world, user_of(world, role))
        contexts.append(context)
        return context.new_page()

    yield world, open_as
    for c in contexts:
        c.close()


def settings(world, profile: str, object_type: str) -> tuple[list[str], str]:  # noqa: ANN001
    rows = world.query("""SELECT r.name, a.is_default FROM crm_record_type_assignment a JOIN crm_record_type r ON r.id = a.record_type_id
                          WHERE a.profile = ? AND r.object_type = ? ORDER BY r.name""", profile, object_type)
    return [n for n, _ in rows], next(n for n, d in rows if d)


def test_seeded_record_type_settings(live_host) -> None:
    world = live_host.world()
    assert settings(world, "sales_rep", "opportunity") == (["New Business", "Renewal", "Upsell"], "New Business")
    assert settings(world, "sales_rep", "case") == (["Onboarding", "Technical Support"], "Technical Support")
    assert settings(world, "support_agent", "case") == (["Billing", "Onboarding", "Technical Support"], "Technical Support")
    assert settings(world, "support_agent", "opportunity") == (["Upsell"], "Upsell")
    assert settings(world, "finance", "opportunity") == (["Renewal"], "Renewal")
    assert settings(world, "finance", "case") == (["Billing"], "Billing")
    # One default per profile and object; the values each type makes available, in the master order.
    assert world.one("""SELECT count(*) FROM (SELECT a.profile, r.object_type FROM crm_record_type_assignment a JOIN crm_record_type r
                        ON r.id = a.record_type_id WHERE a.is_default GROUP BY 1, 2 HAVING count(*) != 1)""")[0] == 0
    assert [v for v, in world.query("SELECT value FROM crm_record_type_value WHERE record_type_id = ? ORDER BY sort_order",
                                     rt_id(world, "opportunity", "Renewal"))][:2] == ["Qualification", "Needs Analysis"]


def test_new_offers_the_profiles_types_only(as_role, live_host) -> None:
    world, open_as = as_role
    # Finance has one opportunity type: New opens the form directly, with the renewal's stages.
    page = open_as("finance")
    page.goto(live_host.url("crm", "/opportunities"))
    page.get_by_role("group", name="List actions").get_by_role("button", name="New").click()
    dialog = page.get_by_role("dialog", name="New Opportunity")
    expect(dialog).to_contain_text("Opportunity Record Type")
    expect(dialog.locator(".form-record-type")).to_contain_text("Renewal")
    expect(page.get_by_role("dialog", name="Select a record type")).to_have_count(0)
    options = dialog.get_by_label("Stage").locator("option").all_inner_texts()
    assert "Prospecting" not in options and options[0] == "Qualification"
    # A sales rep's New Case chooser has Technical Support (checked) and Onboarding, not Billing.
    page = open_as("sales_rep")
    page.goto(live_host.url("crm", "/cases"))
    page.get_by_role("group", name="List actions").get_by_role("button", name="New").click()
    chooser = page.get_by_role("dialog", name="New Case")
    expect(chooser.get_by_role("radio", name="Technical Support", exact=True)).to_be_checked()
    expect(chooser.get_by_role("radio", name="Onboarding", exact=True)).to_be_visible()
    expect(chooser.get_by_role("radio", name="Billing", exact=True)).to_have_count(0)


def test_server_refuses_an_unassigned_type_and_keeps_old_records_editable(as_role, live_host) -> None:
    world, open_as = as_role
    page = open_as("sales_rep")
    billing = rt_id(world, "case", "Billing")
    before = world.one("SELECT count(*) FROM crm_case")[0]
    page.goto(live_host.url("crm", "/cases"))
    status, body = post(page, "/cases", {"subject": "Invoice 4471 charged twice", "status": "New", "priority": "Medium", "origin": "Phone",
                                         "record_type_id": str(billing), "form_mode": "create"})
    assert status == 422 and f"Record Type ID: this ID value isn't valid for the user: {billing}" in html.unescape(body)
    assert world.one("SELECT count(*) FROM crm_case")[0] == before
    # Change Record Type offers the profile's types; asking for Billing by URL opens no edit dialog.
    case = world.one("SELECT id, case_number FROM crm_case WHERE record_type_id = ? AND status != 'Closed' ORDER BY id", billing)
    page.goto(live_host.url("crm", f"/cases/{case[0]}"))
    page.get_by_role("button", name="Change Record Type").click()
    chooser = page.get_by_role("dialog", name="Change Record Type")
    expect(chooser.get_by_role("radio", name="Technical Support", exact=True)).to_be_checked()
    expect(chooser.get_by_role("radio", name="Billing", exact=True)).to_have_count(0)
    page.goto(live_host.url("crm", f"/cases/{case[0]}?record_type={billing}"))
    expect(page.get_by_role("dialog", name=f"Edit {case[1]}")).to_be_hidden()
    # The Billing case itself stays readable and editable (its type unchanged).
    page.get_by_role("group", name="Case actions").get_by_role("button", name="Edit Case").click()
    dialog = page.get_by_role("dialog", name=f"Edit {case[1]}")
    dialog.get_by_label("Priority").select_option("High")
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text(f'Case "{case[1]}" was saved.')).to_be_visible()
    assert world.one("SELECT priority, record_type_id FROM crm_case WHERE id = ?", case[0]) == ("High", billing)


def test_admin_creates_a_record_type_with_its_stages_and_profiles(as_role, live_host) -> None:
    world, open_as = as_role
    page = open_as("admin")
    page.goto(live_host.url("crm", "/setup/profiles"))
    page.get_by_role("navigation", name="Setup").get_by_role("link", name="Record Types").click()
    expect(page.get_by_role("table", name="Opportunity Record Types")).to_contain_text("Upsell")
    page.get_by_role("link", name="New", exact=True).click()
    form = page.get_by_role("form", name="Record Type Edit")
    form.get_by_label("Existing Record Type").select_option(label="Renewal")
    form.get_by_label("Record Type Label").fill("Partner Renewal")
    form.get_by_label("Description").fill("Renewals sold through a reseller.")
    for key in ("System Administrator", "Sales Manager", "Sales User", "Support Manager", "Support User", "Marketing User", "IT Standard User",
                "Finance User"):
        box = form.get_by_label(f"Make Available: {key}")
        box.set_checked(key in ("System Administrator", "Sales Manager", "Sales User"))
    form.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", name="Partner Renewal", level=1)).to_be_visible()
    new = rt_id(world, "opportunity", "Partner Renewal")
    assert world.one("SELECT developer_name, active, is_default FROM crm_record_type WHERE id = ?", new) == ("Partner_Renewal", 1, 0)
    assert sorted(p for p, in world.query("SELECT profile FROM crm_record_type_assignment WHERE record_type_id = ?", new)) == [
        "admin", "sales_manager", "sales_rep"]
    assert settings(world, "sales_rep", "opportunity")[1] == "New Business"  # the default is unchanged
    # Its Stage values: the renewal's, less Needs Analysis; Negotiation/Review by default.
    page.get_by_role("link", name="Edit Stage").click()
    values = page.get_by_role("group", name="Available Values")
    values.get_by_label("Needs Analysis").uncheck()
    page.get_by_label("Default").select_option("Negotiation/Review")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text('The Stage values of record type "Partner Renewal" were saved.')).to_be_visible()
    assert [v for v, in world.query("SELECT value FROM crm_record_type_value WHERE record_type_id = ? ORDER BY sort_order", new)] == [
        "Qualification", "Proposal/Price Quote", "Negotiation/Review", "Closed Won", "Closed Lost"]
    # A default outside the values is refused with its message.
    page.get_by_role("link", name="Edit Stage").click()
    page.get_by_role("group", name="Available Values").get_by_label("Negotiation/Review").uncheck()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text("The default value must be one of the selected values.")
    # At once, a sales rep's chooser offers it, and its form the chosen stages with the default preselected.
    rep = open_as("sales_rep")
    rep.goto(live_host.url("crm", "/opportunities"))
    rep.get_by_role("group", name="List actions").get_by_role("button", name="New").click()
    rep.get_by_role("dialog", name="New Opportunity").get_by_role("radio", name="Partner Renewal").check()
    rep.get_by_role("dialog", name="New Opportunity").get_by_role("button", name="Next").click()
    stage = rep.get_by_role("dialog", name="New Opportunity: Partner Renewal").get_by_label("Stage")
    expect(stage).to_have_value("Negotiation/Review")
    assert "Needs Analysis" not in stage.locator("option").all_inner_texts()
    # Finance isn't assigned it: not in their (chooser-less) New.
    fin = open_as("finance")
    fin.goto(live_host.url("crm", "/opportunities"))
    fin.get_by_role("group", name="List actions").get_by_role("button", name="New").click()
    expect(fin.get_by_role("dialog", name="New Opportunity").locator(".form-record-type")).to_contain_text("Renewal")


def test_deactivating_a_default_is_refused_and_others_may_not_edit(as_role, live_host) -> None:
    world, open_as = as_role
    page = open_as("admin")
    nb = rt_id(world, "opportunity", "New Business")
    page.goto(live_host.url("crm", f"/setup/object-manager/opportunity/record-types/{nb}/edit"))
    page.get_by_label("Active").uncheck()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text(
        "This record type New Business cannot be deactivated because the following profiles use this record type as default: "
        "System Administrator, Sales Manager, Sales User")
    assert world.one("SELECT active FROM crm_record_type WHERE id = ?", nb)[0] == 1
    # Onboarding is nobody's default: it deactivates, and leaves the sales rep's New Case chooser.
    onb = rt_id(world, "case", "Onboarding")
    page.goto(live_host.url("crm", f"/setup/object-manager/case/record-types/{onb}/edit"))
    page.get_by_label("Active").uncheck()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text('Record type "Onboarding" was saved.')).to_be_visible()
    assert world.one("SELECT active FROM crm_record_type WHERE id = ?", onb)[0] == 0
    rep = open_as("sales_rep")
    rep.goto(live_host.url("crm", "/cases"))
    rep.get_by_role("group", name="List actions").get_by_role("button", name="New").click()
    expect(rep.get_by_role("dialog", name="New Case").locator(".form-record-type")).to_contain_text("Technical Support")
    # A rep reads Setup but may not change it.
    rep.goto(live_host.url("crm", "/setup/object-manager/opportunity/record-types"))
    expect(rep.get_by_role("table", name="Opportunity Record Types")).to_contain_text("Renewal")
    expect(rep.get_by_role("link", name="New", exact=True)).to_have_count(0)
    resp = rep.goto(live_host.url("crm", "/setup/object-manager/opportunity/record-types/new"))
    assert resp.status == 403
    expect(rep.get_by_role("heading", name="Insufficient Privileges")).to_be_visible()
    status, body = post(rep, f"/setup/profiles/sales_rep/record-types/case", [("assigned", str(rt_id(world, "case", "Billing"))),
                                                                              ("default", str(rt_id(world, "case", "Billing")))])
    assert status == 403 and "Insufficient Privileges" in body
    assert settings(world, "sales_rep", "case") == (["Onboarding", "Technical Support"], "Technical Support")


def test_profile_record_type_settings(as_role, live_host) -> None:
    world, open_as = as_role
    page = open_as("admin")
    page.goto(live_host.url("crm", "/setup/profiles"))
    page.get_by_role("link", name="Finance User").click()
    table = page.get_by_role("table", name="Record Type Settings")
    expect(table.get_by_role("row", name="Opportunity")).to_contain_text("Renewal")
    page.get_by_role("link", name="Edit Opportunity Record Types").click()
    form = page.get_by_role("form", name="Edit Record Type Settings: Opportunity")
    form.get_by_label("Assigned: Upsell").check()
    form.get_by_label("Assigned: Renewal").uncheck()
    form.get_by_role("button", name="Save").click()  # the default (Renewal) is no longer assigned: refused
    expect(page.get_by_role("alert")).to_contain_text("The default record type must be one of the assigned record types.")
    assert settings(world, "finance", "opportunity") == (["Renewal"], "Renewal")
    form = page.get_by_role("form", name="Edit Record Type Settings: Opportunity")
    form.get_by_label("Assigned: Renewal").check()
    form.get_by_label("Default: Upsell").check()
    form.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Record type settings for Opportunity were saved.")).to_be_visible()
    assert settings(world, "finance", "opportunity") == (["Renewal", "Upsell"], "Upsell")
    fin = open_as("finance")
    fin.goto(live_host.url("crm", "/opportunities"))
    fin.get_by_role("group", name="List actions").get_by_role("button", name="New").click()
    chooser = fin.get_by_role("dialog", name="New Opportunity")
    expect(chooser.get_by_role("radio", name="Upsell", exact=True)).to_be_checked()
    expect(chooser.get_by_role("radio", name="New Business", exact=True)).to_have_count(0)

"""CRM JSON API: every verb on every object against the real host and a real world database."""

from __future__ import annotations

import httpx
import pytest

from apps_web.identity import SESSION_COOKIE, session_cookie
from apps_web.world import World

OBJECTS = {
    "accounts": "crm_account", "contacts": "crm_contact", "leads": "crm_lead", "opportunities": "crm_opportunity",
    "cases": "crm_case", "activities": "crm_activity", "notes": "crm_note",
}


def client_for(live_host, world: World, username: str | None) -> httpx.Client:
    """An HTTP client of the live host's CRM, bound to ``world`` like a browser context, signed in as ``username``.

    It connects to 127.0.0.1 and names crm.localhost in the Host header (the resolver here, unlike
    Chromium, does not map *.localhost to loopback).
    """
    headers = {"Host": f"crm.localhost:{live_host.port}", "X-Sandbox-World": world.id}
    if username:
        headers["Cookie"] = f"{SESSION_COOKIE}={session_cookie(live_host.secret, username, world.id)}"
    return httpx.Client(base_url=f"http://127.0.0.1:{live_host.port}", headers=headers)


def rep_of(world: World) -> tuple[int, str]:
    # The VP of Sales: every deal's owner is below them in the role hierarchy (sharing: test_sharing.py).
    return world.one("SELECT id, username FROM identity_user WHERE title = 'VP of Sales' ORDER BY id")


@pytest.fixture(scope="module")
def shared(live_host):
    """A world for read-only tests."""
    world = live_host.world()
    return world, client_for(live_host, world, rep_of(world)[1])


@pytest.fixture()
def fresh(live_host):
    """A world of its own for a test that writes."""
    world = live_host.world()
    user_id, username = rep_of(world)
    return world, client_for(live_host, world, username), user_id


# -- reading ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", list(OBJECTS))
def test_list_and_get_every_object(shared, path) -> None:
    world, client = shared
    table = OBJECTS[path]
    res = client.get(f"/api/{path}", params={"limit": 5, "order": "id"})
    assert res.status_code == 200
    body = res.json()
    assert body["total"] == world.one(f"SELECT count(*) FROM {table}")[0]
    assert [i["id"] for i in body["items"]] == [r[0] for r in world.query(f"SELECT id FROM {table} ORDER BY id LIMIT 5")]
    first = body["items"][0]
    got = client.get(f"/api/{path}/{first['id']}")
    assert got.status_code == 200 and got.json() == first
    assert client.get(f"/api/{path}/999999").status_code == 404


def test_filters_operators_and_sorting(shared) -> None:
    world, client = shared
    owner = world.one("SELECT owner_id FROM crm_opportunity GROUP BY owner_id ORDER BY count(*) DESC, owner_id LIMIT 1")[0]
    res = client.get("/api/opportunities", params={"stage": "Closed Won", "owner_id": owner, "amount__gte": 10000, "order": "-amount", "limit": 200})
    assert res.status_code == 200
    expected = world.query("SELECT id FROM crm_opportunity WHERE stage = 'Closed Won' AND owner_id = ? AND amount >= 10000 ORDER BY amount DESC, id", owner)
    assert [i["id"] for i in res.json()["items"]] == [r[0] for r in expected] and expected
    # Repeated parameter = IN; ne keeps nulls; isnull; date comparisons.
    res = client.get("/api/cases?status=New&status=Escalated&closed_at__isnull=true&created_at__gte=2026-01-01&limit=200")
    expected = world.query("SELECT id FROM crm_case WHERE status IN ('New', 'Escalated') AND created_at >= '2026-01-01' ORDER BY case_number, id")
    assert [i["id"] for i in res.json()["items"]] == [r[0] for r in expected] and expected
    res = client.get("/api/accounts", params={"rating__ne": "Hot", "limit": 1})
    assert res.json()["total"] == world.one("SELECT count(*) FROM crm_account WHERE rating IS NULL OR rating != 'Hot'")[0]
    res = client.get("/api/leads", params={"status__in": "Open - Not Contacted,Working - Contacted", "limit": 1})
    assert res.json()["total"] == world.one("SELECT count(*) FROM crm_lead WHERE status LIKE 'Open%' OR status LIKE 'Working%'")[0]


def test_free_text_q_is_case_insensitive(shared) -> None:
    world, client = shared
    name = world.one("SELECT name FROM crm_account ORDER BY id LIMIT 1")[0]
    word = name.split()[0]
    res = client.get("/api/accounts", params={"q": word.upper(), "limit": 200}).json()
    expected = world.query("SELECT id FROM crm_account WHERE name LIKE ? OR website LIKE ? OR billing_city LIKE ? OR phone LIKE ? ORDER BY name, id", *[f"%{word}%"] * 4)
    assert [i["id"] for i in res["items"]] == [r[0] for r in expected]
    email = world.one("SELECT email FROM crm_contact ORDER BY id LIMIT 1")[0]
    assert [i["email"] for i in client.get("/api/contacts", params={"q": email}).json()["items"]] == [email]


def test_paging_is_stable_and_complete(shared) -> None:
    world, client = shared
    whole = [i["id"] for i in client.get("/api/contacts", params={"limit": 200, "order": "account_id"}).json()["items"]]
    pages = []
    for offset in range(0, 200, 30):
        body = client.get("/api/contacts", params={"limit": 30, "offset": offset, "order": "account_id"}).json()
        assert body["limit"] == 30 and body["offset"] == offset
        pages += [i["id"] for i in body["items"]]
    assert pages[:200] == whole


def test_bad_query_parameters_are_422_with_field_errors(shared) -> None:
    _, client = shared
    res = client.get("/api/opportunities", params={"limit": 500, "colour": "red", "amount__gte": "lots", "stage__like": "x", "order": "-nope"})
    assert res.status_code == 422
    errors = res.json()["errors"]
    assert set(errors) == {"limit", "colour", "amount__gte", "stage__like", "order"}


def test_lookups(shared) -> None:
    world, client = shared
    res = client.get("/api/lookup/accounts", params={"q": ""}).json()
    assert len(res) == 10 and [r["label"] for r in res] == sorted(r["label"] for r in res)
    assert set(res[0]) == {"id", "label", "sublabel"}
    name = world.one("SELECT name FROM crm_account ORDER BY id DESC LIMIT 1")[0]
    assert name in [r["label"] for r in client.get("/api/lookup/accounts", params={"q": name.lower()}).json()]
    users = client.get("/api/lookup/users", params={"q": "a"}).json()
    assert users and all(r["sublabel"] for r in users)
    case = world.one("SELECT id, case_number FROM crm_case ORDER BY id LIMIT 1")
    assert client.get("/api/lookup/cases", params={"q": case[1]}).json()[0]["id"] == case[0]
    for name in ("contacts", "opportunities", "leads", "contact"):
        assert client.get(f"/api/lookup/{name}", params={"q": "e"}).status_code == 200
    assert client.get("/api/lookup/widgets").status_code == 404


def test_unauthenticated_is_401(live_host, shared) -> None:
    world, _ = shared
    anonymous = client_for(live_host, world, None)
    for method, path in (("GET", "/api/accounts"), ("GET", "/api/accounts/1"), ("POST", "/api/accounts"), ("PATCH", "/api/cases/1"), ("DELETE", "/api/notes/1"), ("GET", "/api/lookup/accounts")):
        assert anonymous.request(method, path, json={}).status_code == 401, (method, path)


# -- writing ---------------------------------------------------------------------------------------------
NEW = {
    "accounts": lambda ids: {"name": "Zephyr Robotics", "industry": "Technology", "type": "Prospect", "employees": 120, "annual_revenue": 15000000},
    "contacts": lambda ids: {"first_name": "Ada", "last_name": "Quill", "email": "ada.quill@example.com", "account_id": ids["account"]},
    "leads": lambda ids: {"first_name": "Bo", "last_name": "Ray", "company": "Ray Farms", "email": "bo@rayfarms.example.com"},
    "opportunities": lambda ids: {"name": "Zephyr - 10 Seats", "stage": "Qualification", "close_date": "2026-05-01", "amount": 5000, "account_id": ids["account"]},
    "cases": lambda ids: {"subject": "Printer on fire", "account_id": ids["account"], "priority": "High"},
    "activities": lambda ids: {"kind": "call", "subject": "Call back", "related_type": "account", "related_id": ids["account"], "due_date": "2026-03-20"},
    "notes": lambda ids: {"title": "Met at expo", "body": "Likes <b>bold</b> ideas", "related_type": "contact", "related_id": ids["contact"]},
}
BAD = {
    "accounts": ({"name": "", "employees": -5, "rating": "Lukewarm", "parent_id": 999999}, {"name", "employees", "rating", "parent_id"}),
    "contacts": ({"first_name": "No", "email": "not-an-email", "account_id": "abc"}, {"last_name", "email", "account_id"}),
    "leads": ({"last_name": "X", "company": "Y", "status": "Closed - Converted"}, {"status"}),
    "opportunities": ({"name": "X", "stage": "Won-ish", "close_date": "next week", "probability": 140}, {"stage", "close_date", "probability"}),
    "cases": ({"subject": "x" * 300, "priority": "Urgent", "owner_id": 999999}, {"subject", "priority", "owner_id"}),
    "activities": ({"kind": "meeting", "subject": "Demo", "related_type": "account"}, {"start_at", "end_at", "related_id"}),
    "notes": ({"title": "T", "related_type": "case", "related_id": 999999}, {"related_id"}),
}


@pytest.mark.parametrize("path", list(OBJECTS))
def test_create_update_delete_every_object(fresh, path) -> None:
    world, client, user_id = fresh
    table = OBJECTS[path]
    ids = {"account": world.one("SELECT min(id) FROM crm_account")[0], "contact": world.one("SELECT min(id) FROM crm_contact")[0]}
    res = client.post(f"/api/{path}", json=NEW[path](ids))
    assert res.status_code == 201, res.text
    created = res.json()
    assert res.headers["location"] == f"/api/{path}/{created['id']}"
    row = world.one(f"SELECT created_at, updated_at, created_by_id FROM {table} WHERE id = ?", created["id"])
    now = str(world.clock.now)
    assert row[0].startswith(now) and row[1].startswith(now) and row[2] == user_id
    owner_col = "assignee_id" if path == "activities" else "owner_id"
    assert world.one(f"SELECT {owner_col} FROM {table} WHERE id = ?", created["id"])[0] == user_id  # defaults to me

    patch = {"description": "Updated via API"} if path != "notes" else {"body": "Updated via API"}
    res = client.patch(f"/api/{path}/{created['id']}", json=patch)
    assert res.status_code == 200, res.text
    column = next(iter(patch))
    assert world.one(f"SELECT {column} FROM {table} WHERE id = ?", created["id"])[0] == "Updated via API"

    res = client.delete(f"/api/{path}/{created['id']}")
    assert res.status_code == 200 and res.json()["deleted"][path.removesuffix("s").replace("opportunitie", "opportunity").replace("activitie", "activity")] == 1
    assert world.one(f"SELECT count(*) FROM {table} WHERE id = ?", created["id"])[0] == 0
    assert client.get(f"/api/{path}/{created['id']}").status_code == 404
    assert client.patch(f"/api/{path}/{created['id']}", json=patch).status_code == 404
    assert client.delete(f"/api/{path}/{created['id']}").status_code == 404


@pytest.mark.parametrize("path", list(OBJECTS))
def test_invalid_writes_save_nothing(fresh, path) -> None:
    world, client, _ = fresh
    table = OBJECTS[path]
    before = world.query(f"SELECT * FROM {table} ORDER BY id")
    payload, fields = BAD[path]
    res = client.post(f"/api/{path}", json=payload)
    assert res.status_code == 422, res.text
    assert set(res.json()["errors"]) == fields and res.json()["detail"]
    first_id = world.one(f"SELECT min(id) FROM {table}")[0]
    res = client.patch(f"/api/{path}/{first_id}", json=payload)
    assert res.status_code == 422
    assert client.post(f"/api/{path}", json={"id": 5, "bogus": 1}).status_code == 422
    assert client.post(f"/api/{path}", json=[1, 2]).status_code == 422
    assert world.query(f"SELECT * FROM {table} ORDER BY id") == before


def test_stage_sets_probability_and_forecast(fresh) -> None:
    world, client, _ = fresh
    opp_id = world.one("SELECT id FROM crm_opportunity WHERE stage = 'Prospecting' ORDER BY id")[0]
    res = client.patch(f"/api/opportunities/{opp_id}", json={"stage": "Negotiation/Review"})
    assert res.status_code == 200
    assert world.one("SELECT stage, probability, forecast_category FROM crm_opportunity WHERE id = ?", opp_id) == ("Negotiation/Review", 90, "Commit")
    client.patch(f"/api/opportunities/{opp_id}", json={"stage": "Closed Won", "probability": 95})
    assert world.one("SELECT probability, forecast_category FROM crm_opportunity WHERE id = ?", opp_id) == (95, "Closed")


def test_cases_are_numbered_and_closing_stamps_closed_at(fresh) -> None:
    world, client, _ = fresh
    top = world.one("SELECT max(case_number) FROM crm_case")[0]
    case = client.post("/api/cases", json={"subject": "Gateway offline", "origin": "Phone"}).json()
    assert case["case_number"] == f"{int(top) + 1:08d}" and case["status"] == "New" and case["closed_at"] is None
    client.patch(f"/api/cases/{case['id']}", json={"status": "Closed"})
    assert world.one("SELECT closed_at FROM crm_case WHERE id = ?", case["id"])[0].startswith(str(world.clock.now))
    client.patch(f"/api/cases/{case['id']}", json={"status": "Working"})
    assert world.one("SELECT closed_at FROM crm_case WHERE id = ?", case["id"])[0] is None


def test_converted_leads_cannot_be_edited(fresh) -> None:
    world, client, _ = fresh
    lead_id = world.one("SELECT id FROM crm_lead WHERE status = 'Closed - Converted' ORDER BY id")[0]
    res = client.patch(f"/api/leads/{lead_id}", json={"rating": "Hot"})
    assert res.status_code == 422 and "converted" in res.json()["detail"]


def test_deleting_an_account_takes_its_records_along(fresh) -> None:
    world, client, _ = fresh
    acct = world.one("SELECT a.id FROM crm_account a WHERE EXISTS (SELECT 1 FROM crm_case c WHERE c.account_id = a.id) AND EXISTS (SELECT 1 FROM crm_opportunity o WHERE o.account_id = a.id) AND EXISTS (SELECT 1 FROM crm_account k WHERE k.parent_id = a.id) ORDER BY a.id")
    acct = acct[0] if acct else world.one("SELECT account_id FROM crm_case GROUP BY account_id ORDER BY count(*) DESC, account_id")[0]
    contacts = [r[0] for r in world.query("SELECT id FROM crm_contact WHERE account_id = ?", acct)]
    res = client.delete(f"/api/accounts/{acct}")
    assert res.status_code == 200
    counts = res.json()["deleted"]
    assert counts["account"] == 1 and counts["contact"] == len(contacts) and counts.get("opportunity", 0) >= 1 and counts.get("case", 0) >= 1
    for table in ("crm_contact", "crm_opportunity", "crm_case"):
        assert world.one(f"SELECT count(*) FROM {table} WHERE account_id = ?", acct)[0] == 0
    assert world.one("SELECT count(*) FROM crm_account WHERE parent_id = ?", acct)[0] == 0
    marks = ",".join("?" * len(contacts))
    assert world.one(f"SELECT count(*) FROM crm_activity WHERE (related_type = 'account' AND related_id = ?) OR (related_type = 'contact' AND related_id IN ({marks}))", acct, *contacts)[0] == 0
    assert world.one(f"SELECT count(*) FROM crm_note WHERE related_type = 'account' AND related_id = ?", acct)[0] == 0
    with world.connect() as conn:
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    assert client.get(f"/api/accounts/{acct}").status_code == 404


def test_deleting_a_contact_clears_lookups_to_it(fresh) -> None:
    world, client, _ = fresh
    contact = world.one("SELECT contact_id FROM crm_case WHERE contact_id IN (SELECT contact_id FROM crm_opportunity_contact_role) AND contact_id IN (SELECT reports_to_id FROM crm_contact) ORDER BY contact_id")[0]
    assert client.delete(f"/api/contacts/{contact}").status_code == 200
    assert world.one("SELECT count(*) FROM crm_case WHERE contact_id = ?", contact)[0] == 0
    assert world.one("SELECT count(*) FROM crm_opportunity_contact_role WHERE contact_id = ?", contact)[0] == 0
    assert world.one("SELECT count(*) FROM crm_contact WHERE reports_to_id = ?", contact)[0] == 0
    with world.connect() as conn:
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []


def test_deleting_an_opportunity_clears_the_converted_lead_link(fresh) -> None:
    world, client, _ = fresh
    lead_id, opp_id = world.one("SELECT id, converted_opportunity_id FROM crm_lead WHERE converted_opportunity_id IS NOT NULL ORDER BY id")
    roles = world.one("SELECT count(*) FROM crm_opportunity_contact_role WHERE opportunity_id = ?", opp_id)[0]
    res = client.delete(f"/api/opportunities/{opp_id}")
    assert res.status_code == 200 and res.json()["deleted"]["opportunity"] == 1
    assert world.one("SELECT converted_opportunity_id, converted_contact_id IS NOT NULL FROM crm_lead WHERE id = ?", lead_id) == (None, 1)
    assert roles >= 1 and world.one("SELECT count(*) FROM crm_opportunity_contact_role WHERE opportunity_id = ?", opp_id)[0] == 0
    assert world.one("SELECT count(*) FROM crm_activity WHERE related_type = 'opportunity' AND related_id = ?", opp_id)[0] == 0


def test_validate_accepts_form_strings(shared) -> None:
    """The UI posts strings: blanks become None, numbers and dates are parsed as people type them."""
    from apps_web.crm.validation import validate

    world, _ = shared
    with world.session() as session:
        account_id = world.one("SELECT min(id) FROM crm_account")[0]
        cleaned, errors = validate("opportunity", {
            "name": " Big deal ", "stage": "Prospecting", "close_date": "4/30/2026", "amount": "$1,200.50",
            "probability": "", "account_id": str(account_id), "description": "", "owner_id": "",
        }, session)
        assert errors == {}
        new_business = world.one("SELECT id FROM crm_record_type WHERE object_type = 'opportunity' AND is_default = 1")[0]
        assert cleaned == {"name": "Big deal", "stage": "Prospecting", "close_date": __import__("datetime").date(2026, 4, 30), "amount": 1200.5,
                           "probability": None, "account_id": account_id, "description": None, "owner_id": None,
                           "record_type_id": new_business}  # a new record without a type gets the default
        _, errors = validate("opportunity", {"name": "", "stage": "", "close_date": ""}, session)
        assert errors == {"name": "Complete this field.", "stage": "Complete this field.", "close_date": "Complete this field."}
        _, errors = validate("account", {"parent_id": str(account_id)}, session, partial=True, record_id=account_id)
        assert "parent_id" in errors  # its own parent
        cleaned, errors = validate("contact", {"email": "a@b.co"}, session, partial=True)
        assert errors == {} and cleaned == {"email": "a@b.co"}


# -- email from a record ------------------------------------------------------------------------------------
def test_send_email_from_a_case_through_the_api(fresh) -> None:
    """POST /api/emails sends as the composer does: a template merged for the case, a colleague on Cc
    who gets it in their Inbox, the EmailMessage with its WhoId and WhatId; bad input gets sentences."""
    world, api, user_id = fresh
    api.timeout = httpx.Timeout(60)  # a send delivers and writes several tables: slow on a loaded machine
    case_id, number, contact_id, email, account_id = world.one("""select c.id, c.case_number, k.id, lower(k.email), c.account_id
        from crm_case c join crm_contact k on k.id = c.contact_id where k.email is not null and k.first_name is not null order by c.id""")
    colleague, box = world.one("select lower(u.email), b.id from identity_user u join mail_mailbox b on b.user_id = u.id "
                               "where u.id != ? and u.active order by u.id", user_id)
    templates = api.get("/api/email-templates").json()
    template = next(t for t in templates if t["name"] == "Case Status Update")
    assert "{!Case.CaseNumber}" in template["subject"]
    bad = api.post("/api/emails", json={"related_type": "case", "related_id": case_id, "to": ["nobody"], "subject": ""})
    assert bad.status_code == 422
    assert bad.json()["errors"] == {"subject": "Enter a subject.",
                                    "to": "\u201cnobody\u201d isn't a valid email address. Check the address, or pick the person from the suggestions."}
    assert api.post("/api/emails", json={"related_type": "invoice", "related_id": "x", "to": 5}).json()["errors"].keys() == {"related_type", "related_id", "to"}
    assert api.post("/api/emails", json={"related_type": "case", "related_id": 10**9, "to": [email]}).status_code == 404
    sent = api.post("/api/emails", json={"related_type": "case", "related_id": case_id, "to": [email], "cc": colleague, "template_id": template["id"]})
    assert sent.status_code == 201, sent.text
    e = sent.json()
    assert (e["subject"].startswith(f"Case {number}: "), e["who_type"], e["who_id"], e["what_type"], e["what_id"], e["account_id"],
            e["cc_address"], e["created_by_id"]) == (True, "contact", contact_id, "case", case_id, account_id, colleague, user_id)
    assert number in e["html_body"] and "{!" not in e["html_body"]
    copies = world.query("select mailbox_id, is_read, crm_case_id from mail_message where internet_message_id = ? order by id", e["internet_message_id"])
    assert len(copies) == 2 and copies[1] == (box, 0, case_id)

"""CRM pages: server-side render time of every main page at the default scale (target: median <= 20 ms
of CPU), measured as every app's pages are (bench/_render.py), signed in as a sales rep. Pages that
are not built answer 404 and are reported as missing."""

from __future__ import annotations

from . import _render

REP = "SELECT id, username FROM identity_user WHERE role = 'sales_rep' ORDER BY id"


def _pages(conn, _user_id: int) -> _render.Pages:
    """Every main page, with real record ids of this world."""
    from apps_web.crm.reports import REPORTS

    word = conn.execute("SELECT name FROM crm_account ORDER BY id LIMIT 1").fetchone()
    query = word[0].split()[0] if word else "a"
    objects = [("accounts", "crm_account"), ("contacts", "crm_contact"), ("leads", "crm_lead"),
               ("opportunities", "crm_opportunity"), ("cases", "crm_case"), ("activities", "crm_activity")]
    middle = {}
    for path, table in objects:
        row = conn.execute(f"SELECT id FROM {table} ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM {table})").fetchone()
        if row:
            middle[path] = row[0]
    opp = conn.execute("SELECT opportunity_id FROM crm_opportunity_line_item ORDER BY id LIMIT 1").fetchone()
    quote = conn.execute("SELECT id FROM crm_quote ORDER BY id LIMIT 1").fetchone()
    pages = [("home", "/")]
    pages += [(f"list {path}", f"/{path}") for path, _t in objects if path != "activities"]  # activities: record pages only
    singular = {"accounts": "account", "contacts": "contact", "leads": "lead", "opportunities": "opportunity", "cases": "case", "activities": "activity"}
    pages += [(f"record {singular[path]}", f"/{path}/{rid}") for path, rid in middle.items()]
    pages += [("board (all)", "/opportunities/board"), ("board (mine)", "/opportunities/board?scope=mine"),
              ("board (leads, all)", "/leads/board?view=all"), ("board (cases, all open)", "/cases/board?view=all_open"), ("reports list", "/reports")]
    pages += [(f"report {rid}", f"/reports/{rid}") for rid in REPORTS]
    pages += [("report CSV (pipeline)", "/reports/pipeline-by-stage-and-owner.csv"), ("search", f"/search?q={query}")]
    if opp:  # the sales process pages
        pages += [("opportunity with products", f"/opportunities/{opp[0]}?tab=related"), ("add products", f"/opportunities/{opp[0]}/products/add"),
                  ("edit products", f"/opportunities/{opp[0]}/products/edit")]
    if quote:
        pages += [("quote", f"/quotes/{quote[0]}"), ("quote PDF", f"/quotes/{quote[0]}/pdf"), ("items to approve", "/approvals")]
    pages += _dashboards(conn)
    pages += _built(conn, _user_id)
    pages += _duplicates(conn)
    pages += _rules(conn)
    return pages


def _rules(conn) -> _render.Pages:
    """Setup's validation rules (list, a rule, its edit form: an admin's page, a 403 for the rep) and the
    campaign that sourced the most opportunities (its Opportunities related list and statistics)."""
    camp = conn.execute("SELECT campaign_id FROM crm_opportunity WHERE campaign_id IS NOT NULL GROUP BY campaign_id ORDER BY count(*) DESC LIMIT 1").fetchone()
    pages = [("validation rules", "/setup/validation-rules"), ("validation rule", "/setup/validation-rules/1")]
    if camp:
        pages.append(("campaign (influence)", f"/campaigns/{camp[0]}"))
    return pages


def _duplicates(conn) -> _render.Pages:
    """The duplicate management pages on the world's appended near-duplicates: a record page with the
    duplicates card, its duplicates, the merge search and the comparison of three accounts."""
    dup = conn.execute("SELECT d.id, a.id FROM crm_account d JOIN crm_account a ON a.website = d.website AND a.id < d.id ORDER BY d.id DESC LIMIT 1").fetchone()
    contact = conn.execute("SELECT d.id, o.id FROM crm_contact d JOIN crm_contact o ON o.first_name = d.first_name AND o.last_name = d.last_name"
                           " AND o.account_id = d.account_id AND o.id < d.id ORDER BY d.id DESC LIMIT 1").fetchone()
    if not dup:
        return []
    third = conn.execute("SELECT id FROM crm_account ORDER BY id LIMIT 1").fetchone()[0]
    pages = [("record account (duplicates card)", f"/accounts/{dup[0]}"), ("account duplicates", f"/accounts/{dup[0]}/duplicates"),
             ("merge accounts (search)", "/accounts/merge?q=a"),
             ("merge accounts (compare 3)", f"/accounts/merge?ids={dup[1]}&ids={dup[0]}&ids={third}&step=compare")]
    if contact:
        pages.append(("merge contacts (compare)", f"/contacts/merge?ids={contact[1]}&ids={contact[0]}&step=compare"))
    return pages


def _dashboards(conn) -> _render.Pages:
    """The seeded dashboards (as viewed, and under all three filters), the list and the builder."""
    owner = conn.execute("SELECT u.first_name || ' ' || u.last_name FROM crm_opportunity o JOIN identity_user u ON u.id = o.owner_id "
                         "GROUP BY o.owner_id ORDER BY count(*) DESC LIMIT 1").fetchone()
    territory = conn.execute("SELECT name FROM crm_territory ORDER BY id LIMIT 1").fetchone()
    from urllib.parse import urlencode

    filtered = urlencode({"owner": owner[0] if owner else "", "territory": territory[0] if territory else "", "close_date": "this_year"})
    return [("dashboards list", "/dashboards"), ("dashboard (sales pipeline)", "/dashboards/1"),
            ("dashboard (filtered)", f"/dashboards/1?{filtered}"), ("dashboard (service)", "/dashboards/2"), ("dashboard (leads)", "/dashboards/3"),
            ("new dashboard", "/dashboards/new"), ("dashboard builder (add component)", "/dashboards/2/edit?report=std:pipeline-by-stage-and-owner")]


def _built(conn, user_id: int) -> _render.Pages:
    """A saved list view (filter logic, chosen columns) and a saved report (two groupings, sums, chart)
    of this user, written into the bench's throwaway world, and the builder's pages."""
    import sqlite3

    path = conn.execute("PRAGMA database_list").fetchone()[2]  # the bench's connection is read-only
    conn = sqlite3.connect(path)
    now = "2026-03-16 09:00:00"
    view = conn.execute(
        "INSERT INTO crm_list_view (object_type, name, api_name, owner_id, visibility, scope, columns, filter_logic, created_at, updated_at) "
        "VALUES ('account', 'Tech West', 'Tech_West', ?, 'all_users', 'all', 'name,billing_state,industry,annual_revenue,owner', "
        "'1 AND (2 OR 3)', ?, ?)", (user_id, now, now)).lastrowid
    conn.executemany("INSERT INTO crm_list_view_filter (list_view_id, position, field, operator, value) VALUES (?, ?, ?, ?, ?)",
                     [(view, 1, "industry", "equals", "Technology"), (view, 2, "billing_state", "equals", "CA"),
                      (view, 3, "annual_revenue", "greater", "1000000")])
    deals = conn.execute(  # a saved opportunity view the board displays: a lookup's field (owner) among its filters
        "INSERT INTO crm_list_view (object_type, name, api_name, owner_id, visibility, scope, columns, filter_logic, created_at, updated_at) "
        "VALUES ('opportunity', 'Big Deals', 'Big_Deals', ?, 'only_me', 'all', 'name,account,amount,stage,owner', '1 OR (2 AND 3)', ?, ?)",
        (user_id, now, now)).lastrowid
    conn.executemany("INSERT INTO crm_list_view_filter (list_view_id, position, field, operator, value) VALUES (?, ?, ?, ?, ?)",
                     [(deals, 1, "amount", "greater", "50000"), (deals, 2, "owner", "contains", "a"), (deals, 3, "record_type", "equals", "Renewal")])
    report = conn.execute(
        "INSERT INTO crm_report (name, api_name, report_type, folder, owner_id, columns, groupings, summaries, chart, created_at, updated_at) "
        "VALUES ('Pipeline by Stage and Owner (saved)', 'Pipeline_Saved', 'opportunities', 'Public Reports', ?, 'name,account,amount,close_date', "
        "'stage,owner', 'amount:sum,amount:avg,probability:max', 'bar', ?, ?)", (user_id, now, now)).lastrowid
    conn.commit()
    conn.close()
    builder = "/reports/builder?type=opportunities&g1=stage&g2=owner&g3=type&sum=amount:sum&sum=amount:avg&chart=bar"
    return [("list view (saved, filter logic)", f"/accounts?view=lv{view}"), ("board (saved view)", f"/opportunities/board?view=lv{deals}"), ("list opportunities (with view controls)", "/opportunities?view=mine"),
            ("report types", "/reports/new"), ("report builder (3 groups)", builder),
            ("report builder (contacts, all rows)", "/reports/builder?type=contacts"), ("saved report", f"/reports/custom/{report}")]


def main(repeat: int = 30, warmup: int = 3) -> None:
    _render.run("CRM", "crm.localhost", REP, _pages, repeat=repeat, warmup=warmup)


if __name__ == "__main__":
    main()

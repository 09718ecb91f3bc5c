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
    pages += [("board (all)", "/opportunities/board"), ("board (mine)", "/opportunities/board?scope=mine"), ("reports list", "/reports")]
    pages += [(f"report {rid}", f"/reports/{rid}") for rid in REPORTS]
    pages += [("report CSV (pipeline)", "/reports/pipeline-by-stage-and-owner.csv"), ("search", f"/search?q={query}")]
    if opp:  # the sales process pages
        pages += [("opportunity with products", f"/opportunities/{opp[0]}?tab=related"), ("add products", f"/opportunities/{opp[0]}/products/add"),
                  ("edit products", f"/opportunities/{opp[0]}/products/edit")]
    if quote:
        pages += [("quote", f"/quotes/{quote[0]}"), ("quote PDF", f"/quotes/{quote[0]}/pdf"), ("items to approve", "/approvals")]
    return pages


def main(repeat: int = 30, warmup: int = 3) -> None:
    _render.run("CRM", "crm.localhost", REP, _pages, repeat=repeat, warmup=warmup)


if __name__ == "__main__":
    main()

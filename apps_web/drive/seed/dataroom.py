"""The data room: a restricted site for the company's acquisition of a smaller business ("Project
<codename>"), with the target's contracts in folders, an index workbook, a Q&A log, per-group
permissions and an access log; ``drive_contract`` records each contract's clause variants."""

from __future__ import annotations

from datetime import timedelta

from ...world.seeding import SeedContext
from .builder import DriveBuilder
from .contracts import FOLDERS, Deal, file_name, plan_contracts, write_contract
from .tables import fee_schedule

CODENAMES = ["Atlas", "Bluebird", "Cobalt", "Driftwood", "Evergreen", "Falcon", "Granite", "Harbor", "Juniper", "Kestrel", "Lighthouse",
             "Meridian", "Nightingale", "Osprey", "Polaris", "Quartz", "Redwood", "Sequoia", "Tamarack", "Willow"]
STATES = ["Delaware", "California", "New York", "Texas", "Massachusetts"]
QUESTIONS = [
    ("Commercial", "Please list all customer contracts with annual value above $500,000 and confirm whether any require consent to assignment."),
    ("Commercial", "Do any customer contracts give the customer a right to terminate on a change of control of the Company?"),
    ("Legal", "Confirm whether there is any pending or threatened litigation involving the Company."),
    ("Employment", "Provide the severance terms for each executive and any change-of-control benefits."),
    ("Real Estate", "Are any of the office leases subject to landlord consent on a change of control?"),
    ("IP", "List all in-licensed technology that is incorporated in the Company's products."),
    ("Finance", "Provide the outstanding balance under the revolving credit facility as of the last month end."),
    ("Legal", "Are there any contracts in which the Company's liability is not capped?"),
]


def build_dataroom(b: DriveBuilder, ctx: SeedContext, people: list[dict]) -> None:
    rng = ctx.random("drive.dataroom")
    schedules = ctx.random("drive.schedules")  # which contracts carry a fee schedule, and its rows
    fake = ctx.faker("drive.dataroom")
    now = ctx.clock.now
    codename = rng.choice(CODENAMES)
    target = fake.company().replace(",", "")
    target_short = target.split(" ")[0].split("-")[0]
    deal = Deal(target=f"{target}, Inc.", target_short=target_short, target_state=rng.choice(STATES), target_city=fake.city(),
                buyer=ctx.company, codename=codename)
    finance = [p for p in people if p["role"] == "finance"]
    owner = finance[0] if finance else people[0]
    opened = now - timedelta(days=rng.randint(25, 45))
    site, root = b.site(f"Project {codename} - Data Room", "dataroom", owner["id"], owner["id"], restricted=True, root_name="Data Room",
                        description=f"Due diligence for the proposed acquisition of {deal.target} by {ctx.company}. Confidential: access is logged.", at=opened)
    # Permissions: Finance runs the deal; the VP of Sales reviews; regional managers see the commercial contracts only.
    b.share(root, "edit", opened, owner["id"], group="Finance")
    vp = next((p for p in people if p["title"] == "VP of Sales"), None)
    if vp:
        b.share(root, "view", opened, owner["id"], user_id=vp["id"])
    admin = next((p for p in people if p["role"] == "admin"), None)
    if admin:
        b.share(root, "edit", opened, owner["id"], user_id=admin["id"])
    folders = {name: b.folder(site, root, f"{i + 1:02d} {name}", owner["id"], opened) for i, name in enumerate(FOLDERS)}
    for p in people:
        if p["title"] == "Regional Sales Manager":
            b.share(folders["Commercial Contracts"], "view", opened + timedelta(days=2), owner["id"], user_id=p["id"])
    specs = plan_contracts(rng, fake, deal, now, ctx.scale)
    index = {"A1": "No.", "B1": "Document", "C1": "Folder", "D1": "Counterparty", "E1": "Type", "F1": "Effective date", "G1": "Term (months)",
             "H1": "Annual value (USD)", "I1": "Governing law", "J1": "Change of control", "K1": "Reviewer notes"}
    from .contracts import PLAN

    label = {kind: lab for _f, kind, _t, lab, _n in PLAN}
    for n, s in enumerate(specs, start=1):
        blocks = write_contract(rng, deal, s)
        if s.annual_value and (s.kind == "supply" or (s.kind in ("msa", "saas") and schedules.random() < 0.5)):
            blocks += fee_schedule(schedules, s.kind, s.annual_value, s.extra["goods"])
        when = opened + timedelta(days=rng.randint(0, 5), hours=rng.randint(0, 9))
        name = file_name(s)
        item = b.document(site, folders[s.category], name, owner["id"], when, blocks)
        b.add("drive_contract", item_id=item, site_id=site, number=n, category=s.category, contract_type=label[s.kind], counterparty=s.counterparty,
              effective_date=s.effective, term_months=s.term_months, governing_law=s.law[0], governing_law_section=s.sections.get("law", ""),
              coc=s.coc, coc_section=s.sections.get("coc", ""), assignment=s.assignment, assignment_section=s.sections.get("assignment", ""),
              liability=s.liability, liability_cap=s.cap[:120], liability_section=s.sections.get("liability", ""), annual_value=s.annual_value)
        r = n + 1
        index.update({f"A{r}": str(n), f"B{r}": name, f"C{r}": s.category, f"D{r}": s.counterparty, f"E{r}": label[s.kind],
                      f"F{r}": s.effective.date().isoformat(), f"G{r}": str(s.term_months)})
        if s.annual_value:
            index[f"H{r}"] = str(int(s.annual_value))
        index[f"I{r}"] = s.law[0]
    last = len(specs) + 1
    index.update({f"G{last + 2}": "Total", f"H{last + 2}": f"=SUM(H2:H{last})"})
    b.workbook(site, root, "Contract Index", owner["id"], opened + timedelta(days=6), [("Index", index)])
    # The Q&A log: the buyer's questions (rows in the world, and the workbook the deal team keeps).
    qa = {"A1": "No.", "B1": "Topic", "C1": "Question", "D1": "Asked by", "E1": "Date", "F1": "Status", "G1": "Answer"}
    bidder = fake.name()
    for k, (topic, q) in enumerate(rng.sample(QUESTIONS, 6), start=1):
        asked = opened + timedelta(days=3 + k * 2)
        answered = k <= 3
        answer = "See the documents in the folder for this topic; the Company has no other agreements of this kind." if answered else ""
        b.add("drive_question", site_id=site, number=f"Q{k:03d}", topic=topic, question=q, answer=answer, status="answered" if answered else "open",
              asked_by=bidder, asked_at=asked, item_id=None)
        qa.update({f"A{k + 1}": f"Q{k:03d}", f"B{k + 1}": topic, f"C{k + 1}": q, f"D{k + 1}": bidder, f"E{k + 1}": asked.date().isoformat(),
                   f"F{k + 1}": "Answered" if answered else "Open", f"G{k + 1}": answer})
    b.workbook(site, root, "Q&A Log", owner["id"], opened + timedelta(days=16), [("Questions", qa)])
    # The access log: who opened what in the data room.
    team = [p for p in people if p["role"] == "finance"] + ([vp] if vp else [])
    contract_items = [r["item_id"] for r in b.rows["drive_contract"]]
    for _ in range(30):
        who = rng.choice(team)
        item = rng.choice(contract_items)
        b.add("drive_activity", item_id=item, user_id=who["id"], action="viewed", detail="Viewed in the data room",
              at=opened + timedelta(days=rng.randint(6, 20), hours=rng.randint(0, 9), minutes=rng.randint(0, 59)))

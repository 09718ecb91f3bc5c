"""Shared mailboxes: support@, sales@ and billing@ of the company, their members (Full Access and Send
As) and their mail: customers writing to support@ about their CRM cases and getting answers from the
support address, customers asking billing@ about invoices of their won deals (with the invoice
attached), and prospects writing to sales@.

It runs after the rest of the mail generator and the calendar and only appends (ids after every
existing row, its own RNG namespaces), so a seed's other mail rows never change.
"""

from __future__ import annotations

import random
from datetime import date, datetime
from typing import Any

from ...world.seeding import SeedContext
from ..models import FOLDER_KINDS, FOLDER_NAMES
from . import text as T
from .builder import Mail, MailBuilder
from .world import CrmData, Person

# (local part, display name, member roles) of the company's shared mailboxes.
SHARED = (
    ("support", "Customer Support", ("support_agent", "support_manager")),
    ("sales", "Sales", ("sales_rep", "sales_manager")),
    ("billing", "Billing", ("finance",)),
)

SUPPORT_FOLLOWUPS = [
    "Is there any update on this? Our users are still affected.", "Could you tell us when we can expect a fix?",
    "Can someone confirm this is being worked on? We haven't heard back since {weekday}.",
    "We tried the workaround but the problem came back this morning.", "Our {role} is asking for a status update by end of day.",
]
SUPPORT_ANSWERS = [
    "Thanks for your patience. Case {case_number} is with our engineering team and I'll update you as soon as we have a fix.",
    "I've raised the priority of case {case_number} and one of our engineers will call you today.",
    "We've identified the cause and a fix is planned for the next release; case {case_number} stays open until then.",
]
BILLING_ASKS = [
    "Could you resend invoice {invoice}? It seems to have gone to an old address.",
    "We received invoice {invoice} for {amount}, but the PO number is missing. Could you issue a corrected copy with our PO?",
    "Our accounts payable team is querying invoice {invoice}: the amount ({amount}) doesn't match the order form. Can you check?",
    "Please find attached invoice {invoice} as we received it. Can you confirm the bank details before we pay?",
    "Could you confirm the due date of invoice {invoice}? Our payment run is on {weekday}.",
]
BILLING_SUBJECTS = ["Invoice {invoice}", "Question about invoice {invoice}", "{account}: invoice {invoice}", "Invoice {invoice} - PO number missing"]
SALES_ASKS = [
    "We're evaluating vendors for {product} and would like a quote for about {n} users.",
    "Could someone walk us through pricing for {product}? We're a {industry} company with offices in {city}.",
    "Do you offer volume discounts on {product}? We'd start with {n} seats.",
    "We'd like to schedule a demo of {product} for our team next {weekday}.",
]
PRODUCTS = ["the Analytics Add-on", "Cloud Storage", "Premium Support", "Sensor Kits", "Field Units", "Implementation Services"]


def _date(v: Any) -> date:
    return v if isinstance(v, date) else date.fromisoformat(str(v)[:10])


def _person(c: dict[str, Any], account: dict[str, Any]) -> Person:
    return Person(address=c["email"].lower(), name=f"{c['first_name']} {c['last_name']}", first=c["first_name"],
                  title=c["title"] or "", company=account["name"], phone=c["phone"] or "")


def _body(b: MailBuilder, rng: random.Random, to_first: str, parts: list[str], sender: Person) -> str:
    return T.paragraphs([T.fill(rng, T.GREETINGS, first=to_first)] + parts + [rng.choice(T.SIGNOFFS)]) + b.signature_of(sender)


def _team_signature(name: str, agent: Person, company: str) -> str:
    return f'<p class="signature">{T.escape(agent.name)}<br>{T.escape(name)} | {T.escape(company)}</p>'


def seed_shared(ctx: SeedContext, people: list[Person], crm: CrmData) -> None:
    session = ctx.session
    dbapi = session.connection().connection.driver_connection
    by_user = {p.user_id: p for p in people}
    b = MailBuilder(ctx, [], crm)  # no personal boxes: only the shared ones receive copies here
    b.rng = ctx.random("mail.shared.delivery")
    boxes: dict[str, Person] = {}
    members: list[tuple[int, int]] = []
    for local, name, roles in SHARED:
        address = f"{local}@{ctx.domain}"
        box = len(b.mailboxes) + 1
        b.mailboxes.append({"id": box, "user_id": None, "address": address, "display_name": name, "kind": "shared"})
        b.box_of[address] = box
        for pos, kind in enumerate(FOLDER_KINDS):
            b._folder(box, FOLDER_NAMES[kind], kind, pos)
        boxes[local] = Person(address=address, name=name, first=name, company=ctx.company)
        members += [(box, p.user_id) for p in people if p.role in roles]
    _support(b, ctx, boxes["support"], by_user)
    _billing(b, ctx, boxes["billing"], people)
    _sales(b, ctx, boxes["sales"], people)
    b.finish()
    # Append after every existing row: ids continue from each table's largest.
    top = {t: dbapi.execute(f"select coalesce(max(id), 0) from {t}").fetchone()[0]
           for t in ("mail_mailbox", "mail_folder", "mail_message", "mail_recipient", "mail_attachment")}
    shift = {"mail_mailbox": [("id", "mail_mailbox")], "mail_folder": [("id", "mail_folder"), ("mailbox_id", "mail_mailbox")],
             "mail_message": [("id", "mail_message"), ("mailbox_id", "mail_mailbox"), ("folder_id", "mail_folder")],
             "mail_recipient": [("id", "mail_recipient"), ("message_id", "mail_message")],
             "mail_attachment": [("id", "mail_attachment"), ("message_id", "mail_message")]}
    for table, rows in (("mail_mailbox", b.mailboxes), ("mail_folder", b.folders), ("mail_message", b.messages),
                        ("mail_recipient", b.recipients), ("mail_attachment", b.attachments)):
        if not rows:
            continue
        for r in rows:
            for col, ref in shift[table]:
                r[col] += top[ref]
        columns = list(rows[0])
        dbapi.executemany(f'insert into {table} ({", ".join(columns)}) values ({", ".join("?" * len(columns))})',
                          [tuple(_db(r[c]) for c in columns) for r in rows])
    dbapi.executemany("insert into mail_mailbox_member (mailbox_id, user_id, full_access, send_as) values (?, ?, 1, 1)",
                      [(box + top["mail_mailbox"], uid) for box, uid in members])


def _db(value):  # noqa: ANN001, ANN202
    return value.strftime("%Y-%m-%d %H:%M:%S.%f") if isinstance(value, datetime) else value


def _support(b: MailBuilder, ctx: SeedContext, support: Person, by_user: dict[int | None, Person]) -> None:
    """Customers writing to support@ about their open cases (and a few closed ones), the answers
    coming from the support address, signed by the case owner."""
    rng = ctx.random("mail.shared.support")
    crm = b.crm
    open_cases = [c for c in crm.cases if c["status"] != "Closed"]
    closed = [c for c in crm.cases if c["status"] == "Closed"]
    chosen = open_cases + rng.sample(closed, min(len(closed), max(3, len(open_cases) // 3)))
    for case in chosen:
        contact, account = crm.contacts.get(case["contact_id"] or -1), crm.accounts.get(case["account_id"] or -1)
        agent = by_user.get(case["owner_id"])
        if contact is None or account is None or agent is None:
            continue
        cust = _person(contact, account)
        v = {"subject": case["subject"].rstrip("."), "case_number": case["case_number"], "n": rng.choice([3, 8, 20, 45, 120]),
             "city": account["city"] or "main", "weekday": rng.choice(T.WEEKDAYS), "role": rng.choice(["CIO", "IT director", "operations lead"]),
             "hour": f"{rng.randint(8, 11)}:{rng.choice(['00', '15', '30', '45'])} AM"}
        parts = [T.fill(rng, T.CASE_OPENERS, **v)] + rng.sample([T.fill(rng, [d], **v) for d in T.CASE_DETAILS], rng.randint(1, 2))
        att = [(f"{case['case_number']}-screenshot.png", rng.randint(60_000, 900_000), "image/png")] if rng.random() < 0.3 else []
        ids = {"kind": "case", "account_id": account["id"], "case_id": case["id"],
               "importance": "high" if case["priority"] in ("High", "Critical") and rng.random() < 0.5 else "normal"}
        subject = f"Case {case['case_number']}: {case['subject']}" if rng.random() < 0.6 else case["subject"]
        recent = case["status"] != "Closed"
        m = b.send(Mail(sender=cust, to=[support], subject=subject, unique_html=_body(b, rng, "Support team", parts, cust),
                        sent_at=b.when(rng, 0.2, 6) if recent else b.when(rng, 10, 40), attachments=att,
                        unread_bias=0.5 if recent else 0.0, **ids))
        if m is None or (recent and rng.random() < 0.45):
            continue  # still waiting for an answer from the support address
        answer = T.paragraphs([T.fill(rng, T.GREETINGS, first=cust.first), T.fill(rng, SUPPORT_ANSWERS, **v), rng.choice(T.SIGNOFFS)])
        r = b.reply(m, support, answer + _team_signature(support.name, agent, ctx.company), rng.uniform(0.5, 20))
        if r is not None and rng.random() < 0.5:
            b.reply(r, cust, _body(b, rng, agent.first, [T.fill(rng, SUPPORT_FOLLOWUPS, **v)], cust), rng.uniform(2, 40))


def _billing(b: MailBuilder, ctx: SeedContext, billing: Person, people: list[Person]) -> None:
    """Customers of won deals asking billing@ about their invoice, most with the invoice attached."""
    rng = ctx.random("mail.shared.billing")
    crm = b.crm
    finance = [p for p in people if p.role == "finance"]
    for opp in crm.opportunities:
        if opp["stage"] != "Closed Won" or (b.now.date() - _date(opp["close_date"])).days > 120 or rng.random() < 0.4:
            continue
        account = crm.accounts.get(opp["account_id"])
        contact = crm.contacts.get(crm.primary_contact.get(opp["id"], -1))
        if account is None or contact is None:
            continue
        cust = _person(contact, account)
        invoice = f"INV-{rng.randint(100000, 999999)}"
        amount = f"${opp['amount']:,.2f}" if opp["amount"] else "the agreed amount"
        v = {"invoice": invoice, "amount": amount, "account": account["name"], "weekday": rng.choice(T.WEEKDAYS)}
        att = [(f"{invoice}.pdf", rng.randint(80_000, 600_000), "application/pdf")] if rng.random() < 0.75 else []
        m = b.send(Mail(sender=cust, to=[billing], subject=T.fill(rng, BILLING_SUBJECTS, **v),
                        unique_html=_body(b, rng, "Billing team", [T.fill(rng, BILLING_ASKS, **v)], cust),
                        sent_at=b.when(rng, 0.3, 20), attachments=att, kind="deal", account_id=account["id"], opportunity_id=opp["id"],
                        unread_bias=0.3))
        if m is not None and finance and rng.random() < 0.5:
            fin = rng.choice(finance)
            answer = T.paragraphs([T.fill(rng, T.GREETINGS, first=cust.first),
                                   rng.choice([f"Thanks, we're looking into invoice {invoice} and will come back to you shortly.",
                                               f"Invoice {invoice} is due 30 days from the invoice date; a corrected copy follows."]),
                                   rng.choice(T.SIGNOFFS)])
            b.reply(m, billing, answer + _team_signature(billing.name, fin, ctx.company), rng.uniform(1, 30))


def _sales(b: MailBuilder, ctx: SeedContext, sales: Person, people: list[Person]) -> None:
    """Prospects and customers writing to sales@ for quotes and demos."""
    rng = ctx.random("mail.shared.sales")
    crm = b.crm
    contacts = list(crm.contacts.values())
    for c in rng.sample(contacts, min(len(contacts), 12)):
        account = crm.accounts.get(c["account_id"])
        if account is None:
            continue
        cust = _person(c, account)
        v = {"product": rng.choice(PRODUCTS), "n": rng.choice([25, 40, 75, 150, 300]), "industry": (account["industry"] or "growing").lower(),
             "city": account["city"] or "two cities", "weekday": rng.choice(T.WEEKDAYS)}
        b.send(Mail(sender=cust, to=[sales], subject=rng.choice([f"Pricing for {v['product']}", f"Demo request: {v['product']}", "Quote request"]),
                    unique_html=_body(b, rng, "there", [T.fill(rng, SALES_ASKS, **v)], cust), sent_at=b.when(rng, 0.2, 15),
                    kind="deal", account_id=account["id"], unread_bias=0.3))


__all__ = ["SHARED", "seed_shared"]

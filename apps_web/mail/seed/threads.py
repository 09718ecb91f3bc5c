"""Thread generators: each reads records (opportunities, cases, people) and sends the mails a real
company would have exchanged about them, in order, through the builder."""

from __future__ import annotations

import random
import re
from datetime import date, datetime, timedelta
from typing import Any

from ..delivery import EVERYONE_LOCAL
from . import text as T
from .builder import Mail, MailBuilder, day
from .world import Person

_QTY = re.compile(r"^(\d[\d,]*) (.+)$")
_KINDS = ("Renewal", "Expansion", "Pilot")


def deal_parts(opp: dict[str, Any], account: str) -> dict[str, str]:
    """Product, quantity and kind of deal, read back from the opportunity's name."""
    rest = opp["name"][len(account) + 3:] if opp["name"].startswith(account + " - ") else opp["name"]
    rest = re.sub(r" - Phase \d+$", "", rest)
    m = _QTY.match(rest)
    if m:
        return {"product": m.group(2), "qty_units": f"{m.group(1)} {m.group(2)}", "kind": "order"}
    for kind in _KINDS:
        if rest.endswith(" " + kind):
            product = rest[: -len(kind) - 1]
            return {"product": product, "qty_units": f"the {product} {kind.lower()}", "kind": kind.lower()}
    return {"product": rest, "qty_units": rest, "kind": "deal"}


def money(v: float | None) -> str:
    return f"${v:,.0f}" if v is not None else "the amount we discussed"


def short(account: str) -> str:
    words = [w for w in account.replace(",", "").split() if w not in ("Inc.", "LLC", "Ltd", "Group", "and", "&")]
    return " ".join(words[:2]) or account


def _as_date(v: Any) -> date:
    return v if isinstance(v, date) else date.fromisoformat(str(v)[:10])


def _lower_first(text: str) -> str:
    text = text.rstrip(".")
    return text[:1].lower() + text[1:] if not text[:2].isupper() else text


def _pdf(rng: random.Random, name: str) -> tuple[str, int, str]:
    return (name, rng.randint(80_000, 2_400_000), "application/pdf")


def _xlsx(rng: random.Random, name: str) -> tuple[str, int, str]:
    return (name, rng.randint(14_000, 260_000), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")


def _contact_person(b: MailBuilder, c: dict[str, Any], account: dict[str, Any]) -> Person:
    return Person(address=c["email"].lower(), name=f"{c['first_name']} {c['last_name']}", first=c["first_name"],
                  title=c["title"] or "", company=account["name"], phone=c["phone"] or "")


def _body(b: MailBuilder, rng: random.Random, to_first: str, parts: list[str], sender: Person, *, signoff: bool = True) -> str:
    html = T.paragraphs([T.fill(rng, T.GREETINGS, first=to_first)] + parts)
    if signoff:
        html += T.paragraphs([rng.choice(T.SIGNOFFS)]) + b.signature_of(sender)
    return html


# -- customers writing about their deals -----------------------------------------------------------------
def deal_threads(b: MailBuilder) -> None:
    rng = b.ctx.random("mail.deals")
    crm = b.crm
    by_account: dict[int, list[dict[str, Any]]] = {}
    for c in crm.contacts.values():
        by_account.setdefault(c["account_id"], []).append(c)
    today = b.now.date()
    for opp in crm.opportunities:
        account = crm.accounts.get(opp["account_id"])
        rep = b.by_user.get(opp["owner_id"])
        contacts = by_account.get(opp["account_id"], [])
        if account is None or rep is None or not contacts:
            continue
        contact = crm.contacts.get(crm.primary_contact.get(opp["id"], -1)) or contacts[0]
        cust = _contact_person(b, contact, account)
        others = [c for c in contacts if c["id"] != contact["id"]]
        colleague = _contact_person(b, others[0], account) if others and rng.random() < 0.35 else None
        manager = b.by_user.get(rep.manager_id)
        close = _as_date(opp["close_date"])
        parts = deal_parts(opp, account["name"])
        v = dict(parts, account=account["name"], short_account=short(account["name"]), company=b.ctx.company,
                 amount=money(opp["amount"]), close_date=T.fmt_day(close), first=cust.first, owner_first=rep.first,
                 industry=(account["industry"] or "your industry").lower(), weekday=rng.choice(T.WEEKDAYS),
                 next_step=_lower_first(opp["next_step"] or "a short call to review the order form"),
                 colleague_role=rng.choice(T.COLLEAGUE_ROLES), colleague_first=colleague.first if colleague else "Sam")
        ids = {"kind": "deal", "account_id": account["id"], "opportunity_id": opp["id"]}
        stage = opp["stage"]
        if stage == "Closed Won":
            if (today - close).days > 120 or rng.random() < 0.2:
                continue
            sent = datetime.combine(close, datetime.min.time()).replace(hour=rng.randint(9, 16), minute=rng.randint(0, 59))
            body = _body(b, rng, rep.first, [
                f"Please find attached the signed order form for {v['qty_units']}.",
                rng.choice([f"Our PO number is PO-{rng.randint(10000, 99999)}; please reference it on the invoice.",
                            f"Please reference PO number PO-{rng.randint(10000, 99999)} on every invoice.",
                            f"The purchase order is PO-{rng.randint(10000, 99999)}, issued by our procurement team today."]),
                rng.choice(["Invoices should go to our accounts payable mailbox, with me in copy.", "Let us know who will be our contact for the kickoff.",
                            "Looking forward to getting started.", "Thanks to you and the team for a smooth process."]),
            ], cust)
            first = b.send(Mail(sender=cust, to=[rep], cc=[colleague] if colleague else [], subject=f"Signed order form - {v['short_account']} {parts['product']}",
                                unique_html=body, sent_at=min(sent, b.now - timedelta(hours=2)),
                                attachments=[_pdf(rng, f"Order Form - {account['name']} - signed.pdf")], **ids))
            if first and rng.random() < 0.7:
                b.reply(first, rep, _body(b, rng, cust.first, [f"Thank you, {cust.first} - received. Welcome aboard!",
                        f"I'll introduce you to our onboarding team this week so we can plan the {parts['product']} kickoff."], rep), rng.uniform(1, 20))
            continue
        if stage == "Closed Lost":
            if (today - close).days > 60 or rng.random() < 0.5:
                continue
            sent = datetime.combine(close, datetime.min.time()).replace(hour=rng.randint(9, 16))
            body = _body(b, rng, rep.first, [f"Thank you for all the work on the {parts['product']} proposal.",
                         (opp["description"] or "We have decided not to move forward at this time.") + " I'm sorry it didn't work out this time.",
                         "I'd be glad to stay in touch for future projects."], cust)
            lost = b.send(Mail(sender=cust, to=[rep], subject=f"Decision on {parts['product']}", unique_html=body, sent_at=min(sent, b.now - timedelta(hours=3)), **ids))
            if lost and manager and rng.random() < 0.6:
                fw = Mail(sender=rep, to=[manager], subject=f"FW: {lost.subject}", unique_html=_body(b, rng, manager.first,
                          [f"FYI - we lost {short(account['name'])}. {rng.choice(['Price was the deciding factor.', 'I will ask for a debrief call.', 'I have updated the opportunity.'])}"], rep, signoff=False),
                          sent_at=b.later(lost.sent_at, rng.uniform(0.5, 6)), parent=lost, kind="internal", account_id=account["id"], opportunity_id=opp["id"])
                b.send(fw)
            continue
        start = b.when(rng, 1, 55)
        cc_mgr = [manager] if manager and rng.random() < 0.35 else []
        variant = rng.random()
        if variant < 0.18:  # the customer asks for the deal's total: the answer is only in the CRM
            body = _body(b, rng, rep.first, [T.fill(rng, T.ASK_AMOUNT, **v), T.fill(rng, T.CUSTOMER_TIMELINE, **v)], cust)
            b.send(Mail(sender=cust, to=[rep], subject=T.fill(rng, ["Total for the {product} {kind}?", "Quick question on the {product} total", "{short_account}: amount for our approval"], **v),
                        unique_html=body, sent_at=b.when(rng, 0.2, 12), unread_bias=0.3, **ids))
            continue
        if variant < 0.55:  # rep sends the proposal, customer answers, rep follows up
            body = _body(b, rng, cust.first, [T.fill(rng, ["Thanks again for your time today.", "As promised, here is our proposal.", "Following our conversation, please find the proposal attached."], **v),
                         T.fill(rng, T.REP_FACTS, **v), T.fill(rng, T.REP_NEXT, **v)], rep)
            m = b.send(Mail(sender=rep, to=[cust], cc=cc_mgr + ([colleague] if colleague else []), subject=T.fill(rng, T.DEAL_SUBJECTS, **v), unique_html=body, sent_at=start,
                            attachments=[_pdf(rng, f"Proposal - {account['name']} - {parts['product']}.pdf")] + ([_xlsx(rng, f"Pricing - {short(account['name'])}.xlsx")] if rng.random() < 0.3 else []), **ids))
            if m is None:
                continue
            parts_c = [T.fill(rng, T.CUSTOMER_OPENERS, **v), T.fill(rng, T.CUSTOMER_TIMELINE, **v)]
            parts_c += rng.sample([T.fill(rng, T.CUSTOMER_ASKS, **v) for _ in range(3)], rng.randint(1, 2))
            if rng.random() < 0.4:
                parts_c.append(T.fill(rng, T.CUSTOMER_CONCERNS, **v))
            r = b.reply(m, cust, _body(b, rng, rep.first, parts_c, cust), rng.uniform(3, 70))
            if r is None or rng.random() < 0.3:
                continue
            r2 = b.reply(r, rep, _body(b, rng, cust.first, [T.fill(rng, T.REP_OPENERS, **v), T.fill(rng, T.REP_ANSWERS, **v), T.fill(rng, T.REP_NEXT, **v)], rep), rng.uniform(1, 30))
            if r2 is not None and rng.random() < 0.4:
                b.reply(r2, cust, _body(b, rng, rep.first, [rng.choice(["Perfect, thank you.", "That works for us.", "Great, talk then.", "Thanks - that answers it."])], cust), rng.uniform(1, 40))
            continue
        # the customer starts the thread
        parts_c = [T.fill(rng, T.CUSTOMER_OPENERS, **v), T.fill(rng, T.CUSTOMER_ASKS, **v), T.fill(rng, T.CUSTOMER_TIMELINE, **v)]
        rng.shuffle(parts_c)
        m = b.send(Mail(sender=cust, to=[rep], cc=[colleague] if colleague else [], subject=T.fill(rng, T.DEAL_SUBJECTS, **v), unique_html=_body(b, rng, rep.first, parts_c, cust),
                        sent_at=start, attachments=[_xlsx(rng, f"{short(account['name'])} requirements.xlsx")] if rng.random() < 0.15 else [], **ids))
        if m is not None and rng.random() < 0.75:
            b.reply(m, rep, _body(b, rng, cust.first, [T.fill(rng, T.REP_OPENERS, **v), T.fill(rng, T.REP_ANSWERS, **v), T.fill(rng, T.REP_FACTS, **v), T.fill(rng, T.REP_NEXT, **v)], rep),
                    rng.uniform(1, 26))


# -- customers writing about their cases ----------------------------------------------------------------
def case_threads(b: MailBuilder) -> None:
    rng = b.ctx.random("mail.cases")
    crm = b.crm
    for case in crm.cases:
        contact = crm.contacts.get(case["contact_id"] or -1)
        account = crm.accounts.get(case["account_id"] or -1)
        agent = b.by_user.get(case["owner_id"])
        if contact is None or account is None or agent is None or rng.random() < 0.12:
            continue
        cust = _contact_person(b, contact, account)
        created = datetime.fromisoformat(str(case["created_at"])) if case["created_at"] else b.when(rng, 1, 40)
        if (b.now - created).days > 90:
            if rng.random() < 0.8:
                continue
            created = b.when(rng, 20, 90)
        created = b.later(created, 0)
        v = {"subject": case["subject"].rstrip("."), "case_number": case["case_number"], "n": rng.choice([3, 5, 12, 20, 40, 150]),
             "city": account["city"] or "main", "weekday": rng.choice(T.WEEKDAYS), "hour": f"{rng.randint(8, 11)}:{rng.choice(['00', '15', '30', '45'])} AM"}
        parts = [T.fill(rng, T.CASE_OPENERS, **v)] + rng.sample([T.fill(rng, [d], **v) for d in T.CASE_DETAILS], rng.randint(1, 3))
        att = []
        if rng.random() < 0.35:
            att.append((rng.choice(["error-screenshot.png", "screenshot.png", f"{case['case_number']}-screen.png"]), rng.randint(60_000, 900_000), "image/png"))
        if rng.random() < 0.2:
            att.append((rng.choice(["gateway.log", "sync-errors.txt", "diagnostics.zip"]), rng.randint(5_000, 4_000_000), "text/plain"))
        ids = {"kind": "case", "account_id": account["id"], "case_id": case["id"],
               "importance": "high" if case["priority"] in ("High", "Critical") and rng.random() < 0.6 else "normal"}
        m = b.send(Mail(sender=cust, to=[agent], subject=f"Case {case['case_number']}: {case['subject']}" if rng.random() < 0.4 else case["subject"],
                        unique_html=_body(b, rng, agent.first, parts, cust), sent_at=created, attachments=att, **ids))
        if m is None or rng.random() < 0.2:
            continue
        reply_parts = [T.fill(rng, T.AGENT_REPLIES[:4], **v)]
        if rng.random() < 0.5:
            reply_parts.append(rng.choice(T.WORKAROUNDS))
        r = b.reply(m, agent, _body(b, rng, cust.first, reply_parts, agent), rng.uniform(0.5, 20))
        if r is not None and case["status"] == "Closed":
            r2 = b.reply(r, cust, _body(b, rng, agent.first, [rng.choice(["That fixed it, thank you!", "Confirmed - working again on our side.", "All good now. You can close the case."])], cust), rng.uniform(2, 48))
            if r2 is not None:
                b.reply(r2, agent, _body(b, rng, cust.first, [T.fill(rng, T.AGENT_REPLIES[5:], **v)], agent), rng.uniform(1, 10))


# -- internal: pipeline questions and discount approvals --------------------------------------------------
def internal_threads(b: MailBuilder) -> None:
    rng = b.ctx.random("mail.internal")
    crm = b.crm
    open_opps = [o for o in crm.opportunities if o["stage"] not in ("Closed Won", "Closed Lost")]
    for opp in open_opps:
        rep = b.by_user.get(opp["owner_id"])
        manager = b.by_user.get(rep.manager_id) if rep else None
        account = crm.accounts.get(opp["account_id"])
        if rep is None or manager is None or account is None:
            continue
        contact = crm.contacts.get(crm.primary_contact.get(opp["id"], -1))
        v = {"opp": opp["name"], "short_account": short(account["name"]), "stage": opp["stage"], "close_date": T.fmt_day(_as_date(opp["close_date"])),
             "amount": money(opp["amount"]), "contact_first": contact["first_name"] if contact else "the buyer", "industry": (account["industry"] or "their industry").lower(),
             "next_step": _lower_first(opp["next_step"] or "a pricing call"), "weekday": rng.choice(T.WEEKDAYS)}
        ids = {"kind": "internal", "account_id": account["id"], "opportunity_id": opp["id"]}
        r = rng.random()
        if r < 0.6:
            m = b.send(Mail(sender=manager, to=[rep], subject=T.fill(rng, T.PIPELINE_SUBJECTS, **v), unique_html=_body(b, rng, rep.first, [T.fill(rng, T.MANAGER_ASKS, **v)], manager, signoff=False),
                            sent_at=b.when(rng, 0.5, 30), **ids))
            if m is not None and rng.random() < 0.8:
                b.reply(m, rep, _body(b, rng, manager.first, [T.fill(rng, T.REP_STATUS, **v)], rep, signoff=False), rng.uniform(0.3, 8))
        elif r < 0.85 and opp["amount"]:
            pct = rng.choice([8, 10, 12, 15, 18, 20, 25])
            v.update(pct=pct, half_pct=pct // 2)
            m = b.send(Mail(sender=rep, to=[manager], subject=f"Discount approval: {v['short_account']} ({pct}%)",
                            unique_html=_body(b, rng, manager.first, [T.fill(rng, T.DISCOUNT_ASK, **v)], rep), sent_at=b.when(rng, 0.5, 25), importance="high" if rng.random() < 0.3 else "normal", **ids))
            if m is not None and rng.random() < 0.75:
                b.reply(m, manager, _body(b, rng, rep.first, [T.fill(rng, T.DISCOUNT_ANSWER, **v)], manager, signoff=False), rng.uniform(0.5, 30))


# -- IT notices, announcements, newsletters ----------------------------------------------------------------
def it_notices(b: MailBuilder) -> None:
    rng = b.ctx.random("mail.it")
    desk = Person(address=f"servicedesk@{b.domain}", name="IT Service Desk", first="IT", company=b.ctx.company)
    for p in b.people:
        for subject_t, body_t in rng.sample(T.IT_NOTICES, rng.randint(3, 7)):
            sent = b.when(rng, 0.3, 45)
            v = {"days": rng.choice([3, 5, 7, 14]), "date": T.fmt_day(sent + timedelta(days=rng.randint(2, 14))), "system": rng.choice(T.SYSTEMS),
                 "hour": f"{rng.choice([6, 7, 8, 9, 10])}:00 PM", "hours": rng.randint(2, 5), "device": rng.choice(T.DEVICES),
                 "city": rng.choice(["Denver", "Austin", "Chicago", "Toronto", "Lisbon", "Singapore"]), "asset": f"LT-{rng.randint(10000, 99999)}",
                 "minutes": rng.choice([20, 30, 45]), "pct": rng.randint(88, 98), "version": f"5.{rng.randint(1, 9)}.{rng.randint(0, 20)}"}
            b.send(Mail(sender=desk, to=[p], subject=subject_t.format(**v), unique_html=T.paragraphs([f"Hello {p.first},", body_t.format(**v), "IT Service Desk"]),
                        sent_at=sent, kind="it", importance="high" if "Action required" in subject_t else "normal"))


def announcements(b: MailBuilder) -> None:
    rng = b.ctx.random("mail.announcements")
    senders = [p for p in b.people if p.role in ("admin", "sales_manager", "marketing", "finance")] or b.people
    for i in range(2 * len(T.ANNOUNCEMENTS)):
        subject_t, body_t = T.ANNOUNCEMENTS[i % len(T.ANNOUNCEMENTS)]
        sender = rng.choice(senders)
        sent = b.when(rng, 1 + 5 * i, 5 + 5 * i)
        v = {"date": T.fmt_day(sent + timedelta(days=rng.randint(3, 20))), "hour": f"{rng.randint(1, 4)}:00 PM", "exec_first": rng.choice(senders).first,
             "names": ", ".join(rng.sample([p.name for p in b.people], 3)), "q": (b.now.month - 1) // 3 + 1}
        att = [_pdf(rng, "Kickoff agenda.pdf")] if "kickoff" in subject_t else []
        b.send(Mail(sender=sender, to=[b.everyone], subject=subject_t.format(**v),
                    unique_html=T.paragraphs(["Hi all,", body_t.format(**v), rng.choice(T.SIGNOFFS)]) + b.signature_of(sender),
                    sent_at=sent, kind="announcement", attachments=att))


def newsletters(b: MailBuilder) -> None:
    rng = b.ctx.random("mail.newsletters")
    for name, address, topics in T.NEWSLETTERS:
        sender = Person(address=address, name=name, first=name)
        readers = [p for p in b.people if rng.random() < 0.5]
        if not readers:
            continue
        weekday = rng.randint(0, 4)
        for week in range(8):
            sent = b.now - timedelta(days=b.now.weekday() - weekday + 7 * week)
            sent = sent.replace(hour=rng.randint(6, 8), minute=rng.randint(0, 59), second=0)
            if sent >= b.now:
                continue
            topic, topic2 = rng.sample(topics, 2)
            v = {"topic": topic, "topic2": topic2, "pct": rng.randint(18, 81), "size": rng.choice([4, 12, 30, 250])}
            subject = T.fill(rng, T.NEWS_ANGLES, **v)
            body = f"<h2>{subject}</h2>" + T.paragraphs(rng.sample([T.fill(rng, [line], **v) for line in T.NEWS_LINES], 4)) + f"<p><a href=\"https://{address.split('@')[1]}/issues/{week}\">Read online</a></p>"
            for reader in readers:  # each subscriber gets their own send, as mailing tools do
                b.send(Mail(sender=sender, to=[reader], subject=f"{name}: {subject}", unique_html=body, sent_at=sent, kind="newsletter"))


__all__ = ["announcements", "case_threads", "deal_parts", "deal_threads", "internal_threads", "it_notices", "newsletters", "EVERYONE_LOCAL"]


def recap_threads(b: MailBuilder) -> None:
    """Meeting recaps a rep sends a customer after a call, sometimes answered."""
    rng = b.ctx.random("mail.recaps")
    crm = b.crm
    for opp in crm.opportunities:
        if opp["stage"] in ("Closed Won", "Closed Lost") or rng.random() < 0.2:
            continue
        account, rep = crm.accounts.get(opp["account_id"]), b.by_user.get(opp["owner_id"])
        contact = crm.contacts.get(crm.primary_contact.get(opp["id"], -1))
        if account is None or rep is None or contact is None:
            continue
        cust = _contact_person(b, contact, account)
        parts = deal_parts(opp, account["name"])
        v = dict(parts, close_date=T.fmt_day(_as_date(opp["close_date"])), contact_name=cust.name, contact_first=cust.first,
                 colleague_role=rng.choice(T.COLLEAGUE_ROLES), industry=(account["industry"] or "current").lower())
        points = rng.sample(T.RECAP_POINTS, rng.randint(2, 4))
        html = T.paragraphs([T.fill(rng, T.GREETINGS, first=cust.first), T.fill(rng, T.RECAP_OPENERS, **v)])
        html += "<ul>" + "".join(f"<li>{T.escape(p.format(**v))}</li>" for p in points) + "</ul>"
        html += T.paragraphs([rng.choice(T.SIGNOFFS)]) + b.signature_of(rep)
        m = b.send(Mail(sender=rep, to=[cust], subject=f"Notes from today's call - {short(account['name'])}", unique_html=html,
                        sent_at=b.when(rng, 0.5, 40), kind="deal", account_id=account["id"], opportunity_id=opp["id"]))
        if m is not None and rng.random() < 0.5:
            b.reply(m, cust, _body(b, rng, rep.first, [rng.choice(["Thanks, this matches my notes.", "One correction: we need the admin user count confirmed by IT first.",
                    "Looks right. I'll circulate internally.", "Thanks. Adding our project lead in copy."])], cust), rng.uniform(2, 40))


def headsup_threads(b: MailBuilder) -> None:
    """Support telling the account owner about a customer's open case."""
    rng = b.ctx.random("mail.headsup")
    crm = b.crm
    for case in crm.cases:
        if case["status"] == "Closed" or case["priority"] not in ("High", "Critical") and rng.random() < 0.7:
            continue
        account = crm.accounts.get(case["account_id"] or -1)
        agent = b.by_user.get(case["owner_id"])
        owner = b.by_user.get(account["owner_id"]) if account else None
        contact = crm.contacts.get(case["contact_id"] or -1)
        if not (account and agent and owner and contact) or agent is owner or rng.random() < 0.35:
            continue
        v = {"account": account["name"], "priority": case["priority"].lower(), "case_number": case["case_number"], "subject": case["subject"].rstrip("."),
             "status": case["status"].lower(), "contact_name": f"{contact['first_name']} {contact['last_name']}", "contact_first": contact["first_name"],
             "weekday": rng.choice(T.WEEKDAYS)}
        m = b.send(Mail(sender=agent, to=[owner], subject=f"Heads-up: {short(account['name'])} case {case['case_number']}",
                        unique_html=_body(b, rng, owner.first, [T.fill(rng, T.HEADSUP, **v)], agent, signoff=False), sent_at=b.when(rng, 0.5, 30),
                        kind="internal", account_id=account["id"], case_id=case["id"]))
        if m is not None and rng.random() < 0.7:
            b.reply(m, owner, _body(b, rng, agent.first, [T.fill(rng, T.HEADSUP_REPLY, **v)], owner, signoff=False), rng.uniform(0.2, 6))


def team_updates(b: MailBuilder) -> None:
    """A sales manager's weekly note to their team, with figures from the team's CRM pipeline."""
    rng = b.ctx.random("mail.team")
    crm = b.crm
    for manager in [p for p in b.people if p.role == "sales_manager"]:
        team = [p for p in b.people if p.manager_id == manager.user_id]
        if not team:
            continue
        ids = {p.user_id for p in team}
        ids |= {p.user_id for p in b.people if p.manager_id in ids}  # a VP's note covers the managers' teams too
        opps = [o for o in crm.opportunities if o["owner_id"] in ids]
        open_ = [o for o in opps if o["stage"] not in ("Closed Won", "Closed Lost")]
        won = [o for o in opps if o["stage"] == "Closed Won" and _as_date(o["close_date"]) >= b.ctx.clock.quarter_start]
        big = max(open_, key=lambda o: o["amount"] or 0, default=None)
        v = {"pipeline": money(sum(o["amount"] or 0 for o in open_)), "n_open": len(open_), "won": len(won), "won_amount": money(sum(o["amount"] or 0 for o in won)),
             "big_opp": big["name"] if big else "none", "big_amount": money(big["amount"]) if big else "", "big_close": T.fmt_day(_as_date(big["close_date"])) if big else ""}
        for week in range(6):
            monday = (b.now - timedelta(days=b.now.weekday() + 7 * week)).replace(hour=8, minute=rng.randint(5, 50), second=0)
            if monday >= b.now:
                continue
            lines = [T.TEAM_UPDATE[0].format(**v)] + rng.sample([t.format(**v) for t in T.TEAM_UPDATE[1:]], 2) if week == 0 else rng.sample([t.format(**v) for t in T.TEAM_UPDATE[3:]], 2)
            b.send(Mail(sender=manager, to=team, subject=f"Team update - week of {T.fmt_day(monday)}", unique_html=T.paragraphs(["Hi team,"] + lines + ["Have a good week,"]) + b.signature_of(manager),
                        sent_at=monday, kind="internal"))


def invoice_threads(b: MailBuilder) -> None:
    """Finance telling the owner of a won deal that the invoice is out."""
    rng = b.ctx.random("mail.invoices")
    finance = [p for p in b.people if p.role == "finance"]
    if not finance:
        return
    for opp in b.crm.opportunities:
        if opp["stage"] != "Closed Won" or (b.now.date() - _as_date(opp["close_date"])).days > 70 or rng.random() < 0.3:
            continue
        account, rep = b.crm.accounts.get(opp["account_id"]), b.by_user.get(opp["owner_id"])
        if account is None or rep is None:
            continue
        fin = rng.choice(finance)
        sent = datetime.combine(_as_date(opp["close_date"]) + timedelta(days=rng.randint(2, 9)), datetime.min.time()).replace(hour=rng.randint(9, 16))
        invoice = f"INV-{rng.randint(100000, 999999)}"
        v = {"invoice": invoice, "account": account["name"], "amount": money(opp["amount"]), "date": T.fmt_day(sent), "due": T.fmt_day(sent + timedelta(days=30))}
        lines = [T.INVOICE_LINES[0].format(**v), T.INVOICE_LINES[1].format(**v), rng.choice(T.INVOICE_LINES[2:]).format(**v)]
        m = b.send(Mail(sender=fin, to=[rep], subject=f"Invoice {invoice} - {account['name']}", unique_html=_body(b, rng, rep.first, lines, fin),
                        sent_at=b.later(sent, 0), attachments=[_pdf(rng, f"{invoice}.pdf")], kind="internal", account_id=account["id"], opportunity_id=opp["id"]))
        if m is not None and rng.random() < 0.5:
            b.reply(m, rep, _body(b, rng, fin.first, [rng.choice(["Thanks, I'll let them know.", "Done - they confirmed receipt.", "I've asked for the PO number and will forward it."])], rep, signoff=False), rng.uniform(0.5, 24))

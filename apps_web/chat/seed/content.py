"""The company's teams, channels, chats and what people say in them: deals, cases and incidents that
exist in the CRM and the desk (names, amounts, stages, close dates, numbers, CIs), pipeline reviews,
questions and answers, announcements and social noise. Each kind of conversation has many phrasings,
filled from the records, so no two threads read the same."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from .builder import ChatBuilder
from .world import Person


def money(v) -> str:  # noqa: ANN001
    return f"${float(v or 0):,.0f}"


def day(v) -> str:  # noqa: ANN001
    if isinstance(v, str):
        v = date.fromisoformat(v[:10])
    return f"{v:%b} {v.day}"


def m(p: Person) -> str:
    return f"@{{{p.id}}}"


OPEN = ("Prospecting", "Qualification", "Needs Analysis", "Value Proposition", "Id. Decision Makers", "Perception Analysis",
        "Proposal/Price Quote", "Negotiation/Review")


class Content:
    def __init__(self, b: ChatBuilder) -> None:
        self.b = b
        self.r = b.rng
        self.people = b.people
        self.role = {}
        for p in b.people:
            self.role.setdefault(p.role, []).append(p)
        self.opps = b.facts.opportunities
        self.open = [o for o in self.opps if o["stage"] in OPEN]
        self.won = [o for o in self.opps if o["stage"] == "Closed Won"]
        self.acc = b.facts.accounts
        self.by_id = b.by_id

    def pick(self, seq, k: int | None = None):  # noqa: ANN001, ANN201
        return self.r.choice(seq) if k is None else self.r.sample(seq, min(k, len(seq)))

    def any(self, *roles: str) -> list[Person]:
        return [p for r in roles for p in self.role.get(r, [])]

    def account(self, o) -> str:  # noqa: ANN001
        return self.acc.get(o["account_id"], {}).get("name", "the customer")

    def owner(self, o) -> Person:  # noqa: ANN001
        return self.by_id.get(o["owner_id"]) or self.pick(self.any("sales_rep"))

    def manager_of(self, p: Person) -> Person | None:
        return self.by_id.get(p.manager_id) if p.manager_id else None

    # -- structure ------------------------------------------------------------------------------------
    def build(self) -> None:
        b, everyone = self.b, [p.id for p in self.people]
        sales = [p.id for p in self.any("sales_rep", "sales_manager")]
        mgrs = [p.id for p in self.any("sales_manager")]
        support = [p.id for p in self.any("support_agent", "support_manager")]
        it = [p.id for p in self.any("it", "admin")]
        fin = [p.id for p in self.any("finance")]
        mkt = [p.id for p in self.any("marketing")]
        emea = sales[::2] + mgrs[:1]
        eng = it[: max(4, len(it) // 2)]
        t = b.team("All Company", "Everyone at the company: news, announcements and the water cooler.")
        self.general = b.channel(t, "General", "Company-wide news and questions.", everyone)
        self.announce = b.channel(t, "Announcements", "Announcements from leadership, HR and facilities.", everyone)
        self.random = b.channel(t, "Random", "Anything that isn't work.", everyone)
        t = b.team("Sales", "The sales organisation: pipeline, deals, wins.")
        self.sales_general = b.channel(t, "General", "Sales news and wins.", sales + fin[:1] + mkt[:1])
        self.pipeline = b.channel(t, "Pipeline Reviews", "Weekly pipeline reviews, deal by deal.", sales)
        self.deal_desk = b.channel(t, "Deal Desk", "Discounts, terms and approvals.", sales + fin)
        self.accounts_ch = b.channel(t, "Account Questions", "Who knows whom, and who owns what.", sales + support[:3])
        t = b.team("Sales - EMEA", "Sellers covering Europe, the Middle East and Africa.")
        self.emea_general = b.channel(t, "General", "EMEA team channel.", emea)
        self.emea_renewals = b.channel(t, "Renewals", "Renewals coming up and their risks.", emea + support[:2])
        t = b.team("Customer Success", "Support and success: cases, escalations, renewals.")
        self.cs_general = b.channel(t, "General", "Customer Success team channel.", support + mgrs[:1])
        self.escalations = b.channel(t, "Escalations", "Customer escalations and how they are going.", support + mgrs)
        t = b.team("IT Service Desk", "IT operations: incidents, changes, the service desk.")
        self.it_general = b.channel(t, "General", "IT team channel: who is on what.", it)
        self.major = b.channel(t, "Major Incidents", "P1 and P2 incidents: status and bridges.", it + mgrs[:1] + support[:1])
        self.cab = b.channel(t, "Change Advisory", "Planned changes and maintenance windows.", it)
        t = b.team("Engineering", "Platform engineering and releases.")
        self.eng_general = b.channel(t, "General", "Engineering team channel.", eng)
        self.releases = b.channel(t, "Releases", "What shipped, and when.", eng + support[:2])
        self.oncall = b.channel(t, "On-call", "On-call handovers.", eng)
        t = b.team("Marketing", "Campaigns, events and content.")
        self.mkt_general = b.channel(t, "General", "Marketing team channel.", mkt + mgrs)
        self.campaigns = b.channel(t, "Campaigns", "Campaign results and plans.", mkt + mgrs)
        t = b.team("Finance", "Billing, approvals and the quarter close.")
        self.fin_general = b.channel(t, "General", "Finance team channel.", fin + mgrs)
        self.approvals = b.channel(t, "Approvals", "Spend and discount approvals.", fin + mgrs + it[:1])

    # -- generators -----------------------------------------------------------------------------------
    def run(self, scale: int) -> None:
        self.build()
        for _ in range(scale):
            self.pipeline_reviews()
            self.deal_desk_threads()
            self.wins()
            self.account_questions()
            self.renewals()
            self.escalation_threads()
            self.incident_threads()
            self.change_threads()
            self.releases_and_oncall()
            self.marketing_threads()
            self.finance_threads()
            self.announcements()
            self.social()
            self.direct_chats()
            self.group_chats()

    def pipeline_reviews(self) -> None:
        b, r = self.b, self.r
        for mgr in self.any("sales_manager"):
            reps = [p for p in self.any("sales_rep") if p.manager_id == mgr.id] or self.any("sales_rep")
            for week in range(6):
                monday = b.now - timedelta(days=b.now.weekday() + 7 * week)
                at = monday.replace(hour=r.choice((8, 9, 10)), minute=r.randint(0, 50), second=0)
                deals = [o for o in self.open if self.owner(o) in reps]
                chosen = self.pick(deals, 3) if deals else []
                if not chosen:
                    continue
                head = r.choice(("Pipeline review for the week of {d}", "Weekly pipeline check-in ({d})", "Forecast call prep, week of {d}",
                                 "Deal review: week of {d}")).format(d=day(monday))
                asks = []
                for o in chosen:
                    asks.append(r.choice((
                        "{rep}, where are we on {opp} ({amt}, {stage})? Still closing {close}?",
                        "{rep} can you give an update on {opp}? CRM says {stage} at {amt}, close date {close}.",
                        "{rep}: {opp} is sitting in {stage} with {amt}. Is {close} realistic?",
                    )).format(rep=m(self.owner(o)), opp=o["name"], amt=money(o["amount"]), stage=o["stage"], close=day(o["close_date"])))
                lines = [(mgr.id, head + "\n\n" + "\n".join(asks))]
                for o in chosen:
                    rep = self.owner(o)
                    nxt = o["next_step"] or "a follow-up call"
                    lines.append((rep.id, r.choice((
                        "{opp}: next step is {nxt}. {close} still holds, {contact} confirmed budget.",
                        "On {opp} we're {stage}; {nxt} is booked. I'd keep {amt} in commit.",
                        "{opp} might slip a week past {close}; legal at {acct} is slow. {nxt} is the next step.",
                        "Good news on {opp}: {contact} asked for the order form. Keeping {amt}.",
                        "{opp}: still {stage}. Honestly 50/50 for {close}; waiting on {contact} for {nxt}.",
                    )).format(opp=o["name"], nxt=nxt.lower().rstrip("."), close=day(o["close_date"]), amt=money(o["amount"]), stage=o["stage"],
                              acct=self.account(o), contact=self.contact_name(o["account_id"]))))
                if r.random() < 0.6:
                    lines.append((mgr.id, r.choice(("Thanks all. Please keep the close dates honest in the CRM.", "Great, thanks. Let's push on the late-stage ones.",
                                                     "Thanks. Anything slipping, update the CRM before Thursday's forecast call.",
                                                     "Appreciate it. Ping me if you need help with pricing."))))
                b.thread(self.pipeline, at, lines, gap=(5, 90), opportunity=chosen[0]["id"])

    def contact_name(self, account_id: int) -> str:
        cs = self.b.facts.contacts.get(account_id) or []
        if not cs:
            return "the customer"
        c = cs[0]
        return f"{c['first_name']} {c['last_name']}"

    def deal_desk_threads(self) -> None:
        b, r = self.b, self.r
        approvers = self.any("finance", "sales_manager")
        for o in self.pick(self.open, 40):
            rep = self.owner(o)
            pct = r.choice((5, 8, 10, 12, 15, 18, 20, 25))
            reason = r.choice(("They have a competing quote from a larger vendor.", "It's a three-year commitment.", "They want to expand to two more sites next year.",
                               "Procurement asked for it to sign this quarter.", "Budget was cut after their reorg.", "It replaces a tool they already pay for."))
            ask = r.choice(("Requesting a {pct}% discount on {opp} ({amt}). {reason}", "Can we do {pct}% off for {acct}? Deal is {opp} at {amt}. {reason}",
                            "Discount request: {opp}, {amt}, asking {pct}%. {reason} Close date {close}."))
            lines = [(rep.id, ask.format(pct=pct, opp=o["name"], amt=money(o["amount"]), acct=self.account(o), reason=reason, close=day(o["close_date"])))]
            ap = self.pick(approvers)
            if pct <= 10:
                lines.append((ap.id, r.choice(("Approved at {pct}%. Please attach the approval to the opportunity.", "{pct}% is within your limit, go ahead.",
                                               "Fine by me at {pct}%, as long as payment terms stay net 30.")).format(pct=pct)))
            elif pct <= 18:
                lines.append((ap.id, r.choice(("I can approve {lo}%; {pct}% needs a second approver.", "Counter with {lo}% and a two-year term?",
                                               "Can you share the competitor's quote? I'd approve {lo}% today.")).format(lo=pct - 5, pct=pct)))
                lines.append((rep.id, r.choice(("OK, going back to them with {lo}%.", "Sharing the quote in a minute.", "Two-year term works for them, thanks!")).format(lo=pct - 5)))
            else:
                lines.append((ap.id, r.choice(("{pct}% on {amt} is too much for this stage. Let's talk at the forecast call.",
                                               "No, {pct}% would put the margin under target. Max is 15%.")).format(pct=pct, amt=money(o["amount"]))))
            b.thread(self.deal_desk, b.work_time(60), lines, opportunity=o["id"], account=o["account_id"])

    def wins(self) -> None:
        b, r = self.b, self.r
        for o in self.pick(self.won, 30):
            rep = self.owner(o)
            helper = self.pick(self.any("sales_rep", "support_agent", "sales_manager"))
            text = r.choice(("Closed {opp} for {amt}! Thanks {h} for the help with the demo.", "We won {acct}! {opp}, {amt}, signed today.",
                             "Signed: {opp} ({amt}). Big thanks to {h}.", "{acct} is a customer: {opp} closed at {amt}. Onboarding kicks off next week."))
            lines = [(rep.id, text.format(opp=o["name"], amt=money(o["amount"]), acct=self.account(o), h=m(helper)))]
            for p in self.pick(self.any("sales_rep", "sales_manager", "marketing"), r.randint(1, 4)):
                if p.id != rep.id:
                    lines.append((p.id, r.choice(("Congrats {f}!", "Huge, well done {f}!", "Great work, {f}.", "Nice one! How long was that cycle?",
                                                  "Awesome. Was it the security review that unblocked it?", "Well deserved!")).format(f=rep.first)))
            cd = o["close_date"]
            at = datetime.fromisoformat(str(cd)[:10]).replace(hour=r.randint(9, 17), minute=r.randint(0, 59))
            b.thread(self.sales_general, min(at, b.work_time(3)) if at > b.now else at, lines, gap=(2, 60), opportunity=o["id"])

    def account_questions(self) -> None:
        b, r = self.b, self.r
        accts = [a for a in self.acc.values() if b.facts.contacts.get(a["id"])]
        for a in self.pick(accts, 40):
            asker = self.pick(self.any("sales_rep", "support_agent"))
            owner = self.by_id.get(a["owner_id"]) or self.pick(self.any("sales_rep"))
            c = self.pick(b.facts.contacts[a["id"]])
            q = r.choice(("Does anyone know who the decision maker is at {acct}?", "Who owns {acct}? They called support about their contract.",
                          "Anyone have a contact in finance at {acct} ({city})?", "Is anyone working {acct}? I met someone from there at a meetup."))
            ans = r.choice(("That's mine. Talk to {c}, {t}.", "{o} owns it; {c} ({t}) is the best contact.", "{c} is the {t}, they sign off on anything over $25k.",
                            "I'd go through {c} ({t}). Happy to intro."))
            lines = [(asker.id, q.format(acct=a["name"], city=a["city"] or "HQ")),
                     (owner.id if r.random() < 0.7 else self.pick(self.any("sales_rep")).id,
                      ans.format(c=f"{c['first_name']} {c['last_name']}", t=c["title"] or "main contact", o=owner.name))]
            if r.random() < 0.5:
                lines.append((asker.id, r.choice(("Thanks!", "Perfect, thank you.", "Got it, reaching out now.", "Thanks, will loop you in."))))
            b.thread(self.accounts_ch, b.work_time(60), lines, account=a["id"])

    def renewals(self) -> None:
        b, r = self.b, self.r
        ren = [o for o in self.opps if "Renewal" in o["name"]] or self.opps
        for o in self.pick(ren, 25):
            rep = self.owner(o)
            text = r.choice(("{acct} renewal ({opp}) is due {close}, currently {amt}. Usage is down 20%, flagging as a risk.",
                             "Heads-up: {opp} renews {close} at {amt}. Champion left {acct} last month.",
                             "{opp}: renewal quote sent, {amt}, stage {stage}. Anything I should know from support?"))
            lines = [(rep.id, text.format(acct=self.account(o), opp=o["name"], close=day(o["close_date"]), amt=money(o["amount"]), stage=o["stage"]))]
            sup = self.pick(self.any("support_agent") or self.any("sales_rep"))
            lines.append((sup.id, r.choice(("They had {n} cases this quarter, all closed. No red flags.", "One open case about SSO, should close this week.",
                                            "Their admin has been asking about the API limits, worth a call.")).format(n=r.randint(1, 6))))
            b.thread(self.emea_renewals if r.random() < 0.6 else self.emea_general, b.work_time(45), lines, opportunity=o["id"], account=o["account_id"])

    def escalation_threads(self) -> None:
        b, r = self.b, self.r
        cases = [c for c in b.facts.cases if c["priority"] in ("High", "Critical")] or b.facts.cases
        for c in self.pick(cases, 40):
            agent = self.by_id.get(c["owner_id"]) or self.pick(self.any("support_agent"))
            acct = self.acc.get(c["account_id"], {}).get("name", "a customer")
            text = r.choice(("Escalating {n} for {acct}: \u201c{s}\u201d. Customer is {mood}.", "{n} ({acct}) needs eyes: {s}. Priority {p}.",
                             "Can someone from engineering look at {n}? {acct} reports: {s}."))
            lines = [(agent.id, text.format(n=c["case_number"], acct=acct, s=c["subject"], p=c["priority"],
                                            mood=r.choice(("frustrated", "threatening to escalate to their exec", "patient but it's day three", "asking for a call today"))))]
            mgr = self.pick(self.any("support_manager") or self.any("sales_manager"))
            lines.append((mgr.id, r.choice(("Thanks {f}. I'll call their admin this afternoon.", "Status is {st} in the CRM; what's the next step?",
                                            "Looping in their account owner. Keep the case updated hourly.")).format(f=agent.first, st=c["status"])))
            if r.random() < 0.6:
                lines.append((agent.id, r.choice(("Workaround sent, customer confirmed it works.", "Reproduced it; engineering has the logs.",
                                                  "Call booked for 3 PM with their IT lead."))))
            b.thread(self.escalations, b.work_time(60), lines, account=c["account_id"])

    def incident_threads(self) -> None:
        b, r = self.b, self.r
        incs = b.facts.incidents
        if not incs:
            return
        cis, groups = b.facts.cis, b.facts.groups
        it = self.any("it", "admin")
        major = [i for i in incs if i["priority"] in (1, 2)]
        for i in self.pick(major, 35):
            ci = cis.get(i["ci_id"], {}).get("name", "the service")
            lead = self.by_id.get(i["assigned_to_id"]) or self.pick(it)
            g = groups.get(i["assignment_group_id"], "Service Desk")
            lines = [(lead.id, r.choice(("MAJOR INCIDENT {n}: {s}. CI {ci}. Bridge is open, {g} engaged.", "P{p} {n} opened: {s} ({ci}). Investigating.",
                                         "{n}: {s}. Affects everyone on {ci}. Updates every 30 minutes here.")).format(
                n=i["number"], s=i["short_description"], ci=ci, g=g, p=i["priority"]))]
            for step in range(r.randint(1, 3)):
                who = self.pick(it)
                lines.append((who.id, r.choice(("Seeing errors in the logs on {ci} since {t}.", "Restarted the service on {ci}; monitoring.",
                                                "Rolled back last night's config change on {ci}.", "Users in {loc} confirm it's back for them.",
                                                "Vendor ticket opened, waiting on their engineer.")).format(
                    ci=ci, t=str(i["opened_at"])[11:16], loc=cis.get(i["ci_id"], {}).get("location") or "the main office")))
            if i["state"] in ("Resolved", "Closed") and i["close_notes"]:
                lines.append((lead.id, f"Resolved: {i['close_notes']}"))
            at = datetime.fromisoformat(str(i["opened_at"])[:19])
            b.thread(self.major, at, lines, gap=(5, 40), incident=i["id"])
        live = [i for i in incs if i["state"] in ("New", "In Progress", "On Hold")]
        for i in self.pick(live, 30):
            ci = cis.get(i["ci_id"], {}).get("name")
            asker = self.pick(it)
            ans = self.by_id.get(i["assigned_to_id"]) or self.pick(it)
            q = r.choice(("Anyone looking at {n}? \u201c{s}\u201d{ci}", "{n} has been {st} for a while: {s}{ci}", "Who has {n}? Caller chased again. {s}"))
            lines = [(asker.id, q.format(n=i["number"], s=i["short_description"], st=i["state"].lower(), ci=f" on {ci}." if ci else ""))]
            lines.append((ans.id, r.choice(("Mine, waiting for the user to test.", "On it, {g} has it assigned.", "I'll take it after lunch.",
                                            "It's on hold: vendor part on order.")).format(g=groups.get(i["assignment_group_id"], "Service Desk"))))
            b.thread(self.it_general, b.work_time(20), lines, incident=i["id"])

    def change_threads(self) -> None:
        b, r = self.b, self.r
        it = self.any("it", "admin")
        cis = list(b.facts.cis.values())
        for k in range(30 if cis else 0):
            ci = self.pick(cis)
            when = b.now + timedelta(days=r.randint(-30, 14))
            win = r.choice(("22:00-23:30", "06:00-07:00", "Saturday 08:00-12:00", "19:00-21:00"))
            author = self.pick(it)
            lines = [(author.id, r.choice(("Planned change: patching {ci} ({os}) on {d}, window {w}. Expect a short outage.",
                                           "CAB: firmware update on {ci} ({loc}) {d} {w}. Rollback plan attached to the change.",
                                           "Maintenance on {ci} on {d}, {w}. Any objections?")).format(
                ci=ci["name"], os=ci.get("os") or ci["ci_class"], d=day(when.date()), w=win, loc=ci.get("location") or "DC1"))]
            lines.append((self.pick(it).id, r.choice(("Approved.", "Fine from the network side.", "Please notify Customer Success first.", "Can we move it after month-end close?"))))
            b.thread(self.cab, b.work_time(40), lines)

    def releases_and_oncall(self) -> None:
        b, r = self.b, self.r
        eng = self.any("it", "admin")
        feats = ("faster exports", "SAML group sync", "audit log filters", "bulk edit for cases", "a new usage dashboard", "API rate-limit headers",
                 "dark mode for the portal", "retry for failed webhooks", "CSV import validation", "per-team notification settings")
        for k in range(24):
            ver = f"{r.randint(4, 6)}.{r.randint(0, 19)}.{r.randint(0, 9)}"
            f1, f2 = self.pick(feats, 2)
            lines = [(self.pick(eng).id, r.choice(("Release {v} is out: {a} and {c}.", "Shipped {v} to production. Highlights: {a}, {c}.",
                                                   "{v} rolled out to 100%. Includes {a}; {c} behind a flag.")).format(v=ver, a=f1, c=f2))]
            if r.random() < 0.6:
                lines.append((self.pick(self.any("support_agent") or eng).id, r.choice(("Does {a} fix the ticket from last week?", "Release notes link for customers?",
                                                                                          "Nice, customers have been asking for {a}.")).format(a=f1)))
            b.thread(self.releases, b.work_time(70), lines)
        recent = [i for i in b.facts.incidents if str(i["opened_at"]) >= str(b.now - timedelta(days=60))]
        for k in range(8):
            week = self.pick(recent, 2) if recent else []
            names = ", ".join(f"{i['number']} ({i['short_description']})" for i in week) or "nothing major"
            out, inn = self.pick(eng, 2)
            b.thread(self.oncall, (b.now - timedelta(days=7 * k + b.now.weekday() + 3)).replace(hour=17, minute=r.randint(0, 30)), [
                (out.id, f"On-call handover to {m(inn)}: this week we had {names}. Pager was quiet overnight."),
                (inn.id, r.choice(("Got it, thanks.", "Thanks, I have the pager.", "Thanks! Anything still open?")))])

    def marketing_threads(self) -> None:
        b, r = self.b, self.r
        mk = self.any("marketing") or self.any("sales_manager")
        inds = sorted({a["industry"] for a in self.acc.values() if a.get("industry")}) or ["Technology"]
        for k in range(28):
            ind = self.pick(inds)
            n, leads = r.randint(80, 900), r.randint(10, 120)
            camp = r.choice(("{i} webinar", "Spring {i} roadshow", "{i} ROI guide", "Customer story: {i}", "Q{q} {i} email nurture")).format(i=ind, q=r.randint(1, 4))
            lines = [(self.pick(mk).id, r.choice(("{c}: {n} registrations, {l} MQLs so far.", "Results from {c} are in: {n} visits, {l} leads routed to sales.",
                                                  "{c} goes live {d}. Target is {l} MQLs.")).format(c=camp, n=n, l=leads, d=day((b.now + timedelta(days=r.randint(2, 30))).date())))]
            if r.random() < 0.6:
                lines.append((self.pick(self.any("sales_manager") or mk).id, r.choice(("Can we get the list of {i} accounts that attended?", "Great numbers. Who follows up on the leads?",
                                                                                       "Please tag the leads with the campaign so we can track conversion.")).format(i=ind)))
            b.thread(self.campaigns if k % 3 else self.mkt_general, b.work_time(60), lines)

    def finance_threads(self) -> None:
        b, r = self.b, self.r
        fin = self.any("finance") or self.any("admin")
        for o in self.pick(self.won, 20):
            days = r.randint(5, 60)
            lines = [(self.pick(fin).id, r.choice(("Invoice for {acct} ({amt}, {opp}) is {d} days overdue. {r}, can you nudge them?",
                                                   "PO received for {opp}: {amt}. Invoicing today.", "{acct} asked to split the {amt} invoice into quarterly payments.")).format(
                acct=self.account(o), amt=money(o["amount"]), opp=o["name"], d=days, r=m(self.owner(o))))]
            lines.append((self.owner(o).id, r.choice(("Will do, I'll email their AP team.", "Thanks! Their PO number should be on the order form.",
                                                       "Quarterly is fine if they sign for two years.")).format()))
            b.thread(self.approvals if r.random() < 0.5 else self.fin_general, b.work_time(50), lines, opportunity=o["id"])

    def announcements(self) -> None:
        b, r = self.b, self.r
        leads = self.any("admin", "sales_manager", "support_manager") or self.people
        qstart = date(b.now.year, 3 * ((b.now.month - 1) // 3) + 1, 1)
        won_q = [o for o in self.won if str(o["close_date"]) >= str(qstart)]
        total = sum(float(o["amount"] or 0) for o in won_q)
        b.thread(self.announce, b.work_time(6), [(self.pick(self.any("sales_manager") or leads).id,
                 f"Quarter to date we have closed {len(won_q)} deals worth {money(total)}. Thank you all, {len(self.open)} open opportunities to go!")])
        items = ("Reminder: benefits enrollment closes {d}.", "The office is closed on {d} for the building's fire drill.",
                 "New expense policy takes effect {d}: receipts over $75 need a photo.", "Town hall on {d} at 4 PM. Questions in the thread.",
                 "Parking garage level 2 is closed until {d}.", "Please complete the security awareness training by {d}.",
                 "IT will rotate Wi-Fi passwords on {d}.", "Q{q} kickoff is on {d}; agenda to follow.")
        for k in range(18):
            d = day((b.now + timedelta(days=r.randint(-20, 30))).date())
            lines = [(self.pick(leads).id, self.pick(items).format(d=d, q=r.randint(1, 4)))]
            for p in self.pick(self.people, r.randint(0, 3)):
                lines.append((p.id, r.choice(("Thanks for the heads-up.", "Will it be recorded?", "Does this apply to contractors too?", "Noted!"))))
            b.thread(self.announce, b.work_time(60), lines)
        for p in self.pick(self.people, 10):
            mgr = self.manager_of(p) or self.pick(leads)
            lines = [(mgr.id, r.choice(("Please welcome {p}, who joins us as {t}!", "Say hi to {p}, our new {t}.", "Welcome {p} ({t}) to the team!")).format(p=m(p), t=p.title))]
            for q in self.pick(self.people, r.randint(1, 4)):
                if q.id != p.id:
                    lines.append((q.id, r.choice(("Welcome!", "Welcome aboard, {f}!", "Great to have you, {f}.", "Welcome! Coffee sometime?")).format(f=p.first)))
            b.thread(self.general, b.work_time(80), lines, gap=(2, 120))

    def social(self) -> None:
        b, r = self.b, self.r
        food = ("tacos", "ramen", "the new Thai place", "pizza", "the salad bar", "dumplings", "the food trucks")
        openers = ("Anyone up for {f} at 12:30?", "Who left the {x} in the kitchen? It's amazing.", "Happy birthday {p}!",
                   "Coffee machine on 3 is broken again.", "Anyone watching the game tonight?", "My dog learned to open the fridge. Send help.",
                   "Recommendations for a weekend hike near {c}?", "Cake in the kitchen for {p}'s five years with us!",
                   "Lost: a blue water bottle with stickers, last seen in the big meeting room.", "Book club picks \u201c{bk}\u201d for next month.")
        replies = ("I'm in!", "Count me in.", "Can't today, next time!", "Happy birthday!", "Try the trail at the reservoir.", "Photos or it didn't happen.",
                   "Facilities knows, fix is on the way.", "Congrats {f}!", "Same, so tired of instant coffee.", "Haha, classic.", "Is it the one with the otter sticker?")
        cities = sorted({a["city"] for a in self.acc.values() if a.get("city")}) or ["town"]
        for k in range(80):
            p = self.pick(self.people)
            text = self.pick(openers).format(f=self.pick(food), x=r.choice(("banana bread", "brownies", "lemon cake")), p=m(p), c=self.pick(cities),
                                             bk=r.choice(("Project Hail Mary", "The Phoenix Project", "Atomic Habits", "Klara and the Sun")))
            author = self.pick([q for q in self.people if q.id != p.id])
            lines = [(author.id, text)]
            for q in self.pick(self.people, r.randint(0, 4)):
                lines.append((q.id, self.pick(replies).format(f=p.first)))
            b.thread(self.random, b.work_time(75), lines, gap=(1, 40))

    def direct_chats(self) -> None:
        b, r = self.b, self.r
        reps = self.any("sales_rep")
        # A manager's question about a deal; the newest ones are still unanswered and unread.
        for rep in reps:
            mgr = self.manager_of(rep) or self.pick(self.any("sales_manager"))
            mine = [o for o in self.open if o["owner_id"] == rep.id]
            if not mine or mgr is None:
                continue
            conv = b.chat([rep.id, mgr.id])
            for k, o in enumerate(self.pick(mine, 3)):
                at = b.work_time(30, 2) if k else b.work_time(1.5, 0.05)
                q = r.choice(("Hi {f}, what's the amount on {opp} right now?", "Quick one: when is {opp} closing?", "{f}, which stage is {opp} in? Prepping the forecast.",
                              "Can you remind me of the next step on {opp}?"))
                lines = [(mgr.id, q.format(f=rep.first, opp=o["name"]))]
                if k:
                    lines.append((rep.id, r.choice(("It's {amt}, closing {close}.", "{stage} at the moment; next step is {nxt}.", "Close date is {close}, {amt}.")).format(
                        amt=money(o["amount"]), close=day(o["close_date"]), stage=o["stage"], nxt=(o["next_step"] or "a call").lower())))
                    lines.append((mgr.id, r.choice(("Thanks!", "Great, thanks.", "\U0001F44D", "Perfect."))))
                msgs = b.dialogue(conv, at, lines, opportunity=o["id"])
                if not k and msgs:
                    msgs[-1].unread_hint = True
        # Colleagues helping each other.
        pool = self.any("sales_rep", "support_agent", "it", "finance", "marketing")
        topics = (("Do you have the latest deck for {acct}?", "Sent it to you by mail.", "Got it, thanks!"),
                  ("Are you joining the {acct} call at 2?", "Yes, dialing in from the car.", "Cool, I'll share the screen."),
                  ("Can you cover my cases Friday? I'm out.", "Sure, send me the list.", "You're a star."),
                  ("Visitors from {acct} tomorrow: what's the guest Wi-Fi?", "It's on the sign at reception.", "Found it, thanks."),
                  ("Did {acct} ever pay that invoice?", "Partially, {amt} still open.", "Thanks, I'll mention it on the call."),
                  ("Lunch?", "10 minutes?", "Meet you downstairs."),
                  ("Who approves my trip to {city} to see {acct}?", "Your manager, then finance if it's over {amt}.", "Ah ok, thanks."))
        for k in range(150):
            a, c = self.pick(pool, 2)
            conv = b.chat([a.id, c.id])
            o = self.pick(self.opps)
            t = self.pick(topics)
            city = self.acc.get(o["account_id"], {}).get("city") or "their HQ"
            lines = [(a.id, t[0].format(acct=self.account(o), city=city)), (c.id, t[1].format(amt=money((o["amount"] or 0) * 0.4))), (a.id, t[2])]
            b.dialogue(conv, b.work_time(60), lines)
        # IT helping someone with their own incident.
        for i in self.pick(b.facts.incidents, 30):
            caller, agent = self.by_id.get(i["caller_id"]), self.by_id.get(i["assigned_to_id"])
            if not caller or not agent or caller.id == agent.id:
                continue
            conv = b.chat([caller.id, agent.id])
            b.dialogue(conv, datetime.fromisoformat(str(i["opened_at"])[:19]) + timedelta(minutes=20), [
                (agent.id, r.choice(("Hi {f}, I picked up {n} ({s}). Can you try again now?", "About {n}: does it still happen after a restart?")).format(
                    f=caller.first, n=i["number"], s=i["short_description"])),
                (caller.id, r.choice(("Still broken, same error.", "Works now, thank you!", "Let me try in 5 minutes.", "It's better but slow."))),
            ], incident=i["id"])

    def group_chats(self) -> None:
        b, r = self.b, self.r
        for o in self.pick([o for o in self.open if o["amount"]], 18):
            rep = self.owner(o)
            mgr = self.manager_of(rep) or self.pick(self.any("sales_manager"))
            sup = self.pick(self.any("support_agent") or self.any("sales_rep"))
            members = [rep.id, mgr.id, sup.id]
            if len(set(members)) < 3:
                continue
            conv = b.chat(members, topic=f"{self.account(o)} deal team")
            b.dialogue(conv, b.work_time(40), [
                (rep.id, f"Setting this up for {o['name']}: {money(o['amount'])}, {o['stage']}, target close {day(o['close_date'])}."),
                (mgr.id, r.choice(("Thanks. What do they need from us to get to the next stage?", "Who's the economic buyer?", "Let's get a technical call on the calendar."))),
                (sup.id, r.choice(("I can join a technical call Tuesday or Wednesday.", "They had two support cases last year, both about SSO.", "Happy to help with the pilot."))),
                (rep.id, f"{self.contact_name(o['account_id'])} is the buyer. Next step: {(o['next_step'] or 'technical call').lower()}."),
            ], gap=(3, 120), opportunity=o["id"])
        # Support huddles.
        agents = self.any("support_agent")
        for k in range(6 if len(agents) >= 3 else 0):
            trio = self.pick(agents, 3)
            conv = b.chat([p.id for p in trio], topic=r.choice(("Weekend rota", "Queue huddle", "Case backlog", "Training plan")) + f" {k + 1}")
            c = self.pick(b.facts.cases) if b.facts.cases else None
            b.dialogue(conv, b.work_time(30), [
                (trio[0].id, f"Can someone take {c['case_number']} ({c['subject']})?" if c else "Who can take the morning queue?"),
                (trio[1].id, "I've got it."), (trio[2].id, "Thanks, I'll take the next one."),
            ])

    def files(self) -> None:
        """Files shared in channels: small CSVs and notes built from the records they describe."""
        b = self.b
        posts = [x for x in b.msgs if x.parent is None and x.conv == self.pipeline][:6]
        for k, post in enumerate(posts):
            rows = ["Opportunity,Account,Stage,Amount,Close date"]
            for o in self.pick(self.open, 8):
                rows.append(f"\"{o['name']}\",\"{self.account(o)}\",{o['stage']},{o['amount'] or 0:.0f},{o['close_date']}")
            b.file(post, f"Pipeline week {k + 1}.csv", "text/csv", ("\n".join(rows) + "\n").encode())
        for post in [x for x in b.msgs if x.parent is None and x.conv == self.major][:6]:
            inc = next((i for i in b.facts.incidents if i["id"] == post.refs.get("incident")), None)
            if inc:
                body = f"Incident {inc['number']}\n{inc['short_description']}\nOpened {inc['opened_at']}\nState {inc['state']}\n"
                b.file(post, f"{inc['number']} timeline.txt", "text/plain", body.encode())

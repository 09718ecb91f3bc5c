"""Virtual co-workers: the policy (pure, many cases), the engine on real worlds through the apps' own
write paths (chat, mail, desk approvals; working hours; confidential facts; scheduled events;
determinism; checkpoints), and one real-Chromium episode: a question posted by GUI actions, a
`wait`, the colleague's reply on the page and in the database."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlmodel import select

from apps_web.identity.models import User
from apps_web.messaging import Request, session_on
from sandbox.coworkers import Actor, Coworkers, CoworkerSpecError, decide, parse_amount
from sandbox.coworkers.profile import parse_days, parse_duration

MONDAY = datetime(2026, 3, 16, 9, 30)
FACTS = [
    {"topic": ["renewal", "renew"], "about": "Northwind", "answer": "Northwind renews on April 30 for $84,000."},
    {"topic": ["renewal", "renew"], "about": "Globex", "answer": "Globex renews on June 1 for $51,500."},
    {"topic": ["salary", "pay"], "answer": "Dana's salary is $131,000.", "confidential": True, "share_with": ["hr1"]},
    {"topic": ["parking"], "answer": "Visitor parking is on level 2."},
]
RULES = [{"what": ["discount"], "limit": 15, "unit": "%", "policy": "Pricing Policy PP-7"},
         {"what": ["expense", "laptop"], "limit": 2000, "unit": "$", "policy": "Spend Policy SP-2"}]


def actor(**over) -> Actor:
    data = {"user": "boss", "manager": "vp", "knows": FACTS, "approves": RULES,
            "delegates": [{"topic": ["invoice", "billing"], "to": "ap1"}], "never_share": "pay data is confidential under HR-4"}
    return Actor.model_validate({**data, **over})


def ask(text: str, *, sender: str = "rep1", at: datetime = MONDAY, kind: str = "message", amount: float | None = None) -> Request:
    return Request(app="chat", kind=kind, sender=sender, to=("boss",), text=text, at=at, amount=amount)  # type: ignore[arg-type]


# -- the policy ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, kind, detail", [
    ("When does Northwind renew?", "answer", "April 30"),
    ("what's the globex renewal amount", "answer", "June 1"),
    ("When is the renewal?", "clarify", ("Northwind", "Globex")),  # topic known for two subjects, none named
    ("Northwind or Globex renewal first?", "clarify", ("Northwind", "Globex")),
    ("Where do visitors park? parking?", "answer", "level 2"),
    ("What's for lunch?", "clarify", ()),  # nothing it knows
    ("Who do I ask about this invoice?", "delegate", "ap1"),
    ("What is Dana's salary?", "refuse", "HR-4"),  # confidential, asker not allowed
    ("Can you approve a 12% discount for Northwind?", "approve", 12.0),
    ("Can you approve a 15 percent discount?", "approve", 15.0),  # at the limit
    ("Please approve a 10% discount now and 18% at renewal", "refuse", 18.0),  # the larger one counts
    ("Could you approve a discount for Globex?", "clarify", "%"),  # no percentage given
    ("Can you approve my laptop expense of $1,850.00?", "approve", 1850.0),
    ("Can you sign off on a $2.5k laptop expense?", "refuse", 2500.0),
    ("Can you approve a 12% discount? Also when does Northwind renew?", "approve", 12.0),
])
def test_decisions(text: str, kind: str, detail) -> None:  # noqa: ANN001
    d = decide(actor(), ask(text))
    assert d.kind == kind, (text, d)
    if kind == "answer":
        assert detail in d.fact.answer
    elif kind == "clarify" and isinstance(detail, tuple):
        assert d.options == detail
    elif kind == "clarify":
        assert d.notes["missing"] == detail
    elif kind == "delegate":
        assert d.to == detail
    elif kind == "refuse" and isinstance(detail, str):
        assert detail in d.reason
    else:
        assert d.amount == detail
        if kind == "refuse":
            assert "Pricing Policy PP-7" in d.reason or "Spend Policy SP-2" in d.reason


def test_confidential_facts_go_to_share_with_only_and_approval_records_use_their_amount() -> None:
    assert decide(actor(), ask("What is Dana's salary?", sender="hr1")).kind == "answer"
    rec = ask("Approval requested: 1 x Developer Laptop", kind="approval", amount=2400.0)
    d = decide(actor(), rec)
    assert (d.kind, d.amount) == ("refuse", 2400.0) and "$2,000 limit in Spend Policy SP-2" in d.reason
    assert decide(actor(), ask("Approval requested: 1 x Standard Laptop", kind="approval", amount=1100.0)).kind == "approve"
    other = decide(actor(), ask("Approval requested: 1 x Headset", kind="approval", amount=140.0))
    assert other.kind == "refuse" and "I can only approve" in other.reason  # not a kind of request it may approve


def test_hours_and_out_of_office() -> None:
    friday_evening = datetime(2026, 3, 20, 18, 5)
    d = decide(actor(), ask("When does Northwind renew?", at=friday_evening))
    assert d.kind == "defer" and d.at == datetime(2026, 3, 23, 9, 0) and d.final.kind == "answer"
    assert decide(actor(days="Mon-Sat", hours="10:00-16:00"), ask("parking?", at=friday_evening)).at == datetime(2026, 3, 21, 10, 0)
    assert decide(actor(out_of_office=True), ask("parking?")).kind == "out_of_office"
    back = MONDAY + timedelta(days=2)
    assert decide(actor(out_of_office=back), ask("parking?")).kind == "out_of_office"
    assert decide(actor(out_of_office=back), ask("parking?", at=back)).kind == "answer"


def test_parsing_and_bad_profiles() -> None:
    assert parse_amount("a 7.5% cut", "%") == 7.5 and parse_amount("$1.2m deal", "$") == 1_200_000
    assert parse_amount("3,400 USD and €100", "$") == 3400 and parse_amount("no numbers", "%") is None
    assert parse_duration("1.5h") == timedelta(minutes=90) and parse_days("Fri-Mon") == (0, 4, 5, 6)
    for bad, says in [({"hours": "9-5"}, "HH:MM-HH:MM"), ({"delay": "soon"}, "such as '20m'"), ({"days": "Funday"}, "Mon-Fri"),
                      ({"tone": "rude"}, "friendly"), ({"knows": [{"topic": [], "answer": "x"}]}, "at least one keyword"),
                      ({"delegates": [{"topic": "x", "to": "boss"}]}, "themselves")]:
        with pytest.raises(ValueError, match=says):
            actor(**bad)
    with pytest.raises(CoworkerSpecError, match="exactly one of 'at'"):
        Coworkers.from_spec([], [{"message": {"app": "chat", "from": "a", "to": "b", "text": "x"}}])
    with pytest.raises(CoworkerSpecError, match="cannot carry messages"):
        Coworkers.from_spec([], [{"at": "+5m", "message": {"app": "desk", "from": "a", "to": "b", "text": "x"}}])
    with pytest.raises(CoworkerSpecError, match="per_step"):
        Coworkers.from_spec([], [], {"per_step": "often"})


# -- the engine on real worlds --------------------------------------------------------------------------------
def _people(conn):  # noqa: ANN001, ANN202
    """A sales rep, their manager, and a colleague of the manager who is in no chat with the rep."""
    rep, manager = conn.execute(
        "select u.username, m.username from identity_user u join identity_user m on m.id = u.manager_id "
        "where u.role = 'sales_rep' and u.active order by u.id limit 1").fetchone()
    other = conn.execute("select username from identity_user where role = 'finance' and active order by id limit 1").fetchone()[0]
    return rep, manager, other


def _chat(conn, sender: str, to: str, text: str, at: datetime) -> int:  # noqa: ANN001
    from apps_web.chat.service import Draft, existing_oneonone, post, start_chat

    with session_on(conn) as s:
        me = s.exec(select(User).where(User.username == sender)).one()
        other = s.exec(select(User).where(User.username == to)).one()
        conv = existing_oneonone(s, me.id, other.id)
        msg = post(s, me, conv, Draft(text=text), at) if conv else start_chat(s, me, [other.id], "", Draft(text=text), at)[1]
        s.commit()
        return msg.conversation_id


def _mail(conn, sender: str, to: str, subject: str, text: str, at: datetime) -> None:  # noqa: ANN001
    from apps_web.mail.compose import ComposeForm, send
    from apps_web.mail.mailbox import mailbox_for
    from apps_web.mail.models import Mailbox
    from apps_web.world import WorldClock

    with session_on(conn) as s:
        me = s.exec(select(User).where(User.username == sender)).one()
        box = mailbox_for(s, me)
        target = s.exec(select(Mailbox).join(User, User.id == Mailbox.user_id).where(User.username == to)).one()
        send(s, box, me, ComposeForm(to=target.address, subject=subject, body=f"<p>{text}</p>"), WorldClock(at), box.address.split("@")[1])


@pytest.fixture
def world(store):  # noqa: ANN001, ANN201
    w = store.create(0)
    conn = w.connect(readonly=False)
    yield w, conn
    conn.close()
    store.drop(w)


def test_mail_approvals_and_desk_approvals_are_decided_by_the_limit(world) -> None:  # noqa: ANN001
    w, conn = world
    rep, manager, _ = _people(conn)
    hardware = {"what": ["laptop", "hardware"], "limit": 2500, "unit": "$", "policy": "Hardware Standard HW-1"}
    boss = {"user": manager, "delay": "30m", "tone": "formal", "approves": [RULES[0], hardware]}
    cw = Coworkers.from_spec([boss], [], {"per_step": "1m"}, seed=3)
    cw.attach(conn)
    _mail(conn, rep, manager, "Discount for Northwind", "Could you approve a 12% discount on the Northwind renewal?", cw.now)
    _mail(conn, rep, manager, "Discount for Globex", "Could you approve a 22% discount on the Globex deal?", cw.now)
    assert cw.after_step(conn, persona=rep, action_name="click") == []  # replies wait for the delay
    assert [p["decision"] for p in cw.pending()] == ["approve", "refuse"]
    out = cw.after_step(conn, persona=rep, action_name="wait")
    assert [d["decision"] for d in out] == ["approve", "refuse"] and cw.now == datetime(2026, 3, 16, 10, 0)
    rows = conn.execute(
        "select m.subject, m.unique_body_html, m.from_address, m.is_read, m.in_reply_to is not null, f.kind from mail_message m "
        "join mail_folder f on f.id = m.folder_id join mail_mailbox b on b.id = m.mailbox_id join identity_user u on u.id = b.user_id "
        "where u.username = ? and m.subject like 'RE: Discount for%' order by m.id", (rep,)).fetchall()
    assert [r[0] for r in rows] == ["RE: Discount for Northwind", "RE: Discount for Globex"]
    assert all(r[3] == 0 and r[4] and r[5] == "inbox" for r in rows)  # unread replies in the same threads
    assert "12%" in rows[0][1] and "15%" in rows[0][1] and "Pricing Policy PP-7" in rows[0][1]
    assert "22%" in rows[1][1] and "over the 15% limit in Pricing Policy PP-7" in rows[1][1]
    sent = conn.execute("select count(*) from mail_message m join mail_folder f on f.id = m.folder_id where f.kind = 'sent' "
                        "and m.subject like 'RE: Discount for%'").fetchone()[0]
    assert sent == 2  # the manager's own copies sit in Sent Items

    # The desk: two catalog orders over the approval limit go to the manager, who decides by the spend rule.
    from apps_web.desk.catalog import place_order
    from apps_web.desk.models import CatalogItem
    from apps_web.world import WorldClock

    with session_on(conn) as s:
        me = s.exec(select(User).where(User.username == rep)).one()
        for name, qty in (("Developer Laptop", 1), ("Developer Laptop", 2)):
            item = s.exec(select(CatalogItem).where(CatalogItem.name == name)).one()
            place_order(s, item, {}, qty, me, me, WorldClock(cw.now))
        s.commit()
    cw.after_step(conn, persona=rep, action_name="click")
    out = cw.after_step(conn, persona=rep, action_name="wait")
    assert [(d["decision"], d["verdict"]) for d in out] == [("approve", "approved"), ("refuse", "rejected")]
    rows = conn.execute("select a.state, a.comments, r.stage, q.state from desk_approval a join desk_req_item r on r.id = a.req_item_id "
                        "join desk_request q on q.id = r.request_id order by a.id desc limit 2").fetchall()[::-1]
    assert [r[0] for r in rows] == ["approved", "rejected"] and all("Hardware Standard HW-1" in r[1] for r in rows)
    assert rows[0][2:] == ("Fulfillment", "Approved") and rows[1][2:] == ("Request Cancelled", "Closed Rejected")
    assert "$2,400" in rows[0][1] and "$4,800 is over the $2,500 limit" in rows[1][1]  # each record's own total


def test_a_crm_quote_approval_is_decided_by_the_approvers_discount_limit(world) -> None:  # noqa: ANN001
    from apps_web.crm.models import ApprovalRequest, Opportunity, Quote
    from apps_web.crm.quotes import copy_lines, next_number, quote_lines, refresh_totals

    w, conn = world
    rep, manager, _ = _people(conn)
    boss = {"user": manager, "delay": "45m", "approves": [RULES[0]]}  # discounts up to 15%
    cw = Coworkers.from_spec([boss], [], {"per_step": "1m"}, seed=2)
    cw.attach(conn)
    steps = []
    with session_on(conn) as s:
        me = s.exec(select(User).where(User.username == rep)).one()
        opps = s.exec(select(Opportunity).where(Opportunity.owner_id == me.id, Opportunity.pricebook_id.is_not(None))
                      .order_by(Opportunity.id)).all()
        opps = [o for o in opps if s.exec(select(Quote).where(Quote.opportunity_id == o.id)).first() is None][:2]
        assert len(opps) == 2
        for opp, pct in zip(opps, (12, 22)):
            quote = Quote(quote_number=next_number(s), name=f"{opp.name} quote", opportunity_id=opp.id, status="In Review",
                          owner_id=me.id, created_at=cw.now, updated_at=cw.now)
            s.add(quote)
            s.flush()
            assert copy_lines(s, opp, quote) >= 1
            s.flush()
            for li in quote_lines(s, quote.id):
                li.discount = pct
                s.add(li)
            refresh_totals(s, quote)
            step = ApprovalRequest(quote_id=quote.id, status="Pending", submitter_id=me.id, approver_id=me.manager_id,
                                   submitted_at=cw.now, submit_comments="Multi-year renewal.")
            s.add(step)
            s.flush()
            steps.append((step.id, quote.id))
        s.commit()
    cw.after_step(conn, persona=rep, action_name="click")
    assert [p["decision"] for p in cw.pending()] == ["approve", "refuse"]
    out = cw.after_step(conn, persona=rep, action_name="wait")
    assert [(d["decision"], d["verdict"]) for d in out] == [("approve", "approved"), ("refuse", "rejected")]
    rows = [conn.execute("select a.status, a.comments, q.status, a.decided_at from crm_approval_request a join crm_quote q "
                         "on q.id = a.quote_id where a.id = ?", (sid,)).fetchone() for sid, _ in steps]
    assert [r[0] for r in rows] == ["Approved", "Rejected"] and [r[2] for r in rows] == ["Approved", "Rejected"]
    assert "12%" in rows[0][1] and "22%" in rows[1][1] and "Pricing Policy PP-7" in rows[1][1]
    assert rows[0][3] == "2026-03-16 10:15:00.000000"  # submitted 9:30, decided after the 45-minute delay


def test_a_shared_mailbox_is_answered_by_its_member_from_the_shared_address(world) -> None:  # noqa: ANN001
    from apps_web.mail.compose import ComposeForm, send
    from apps_web.mail.mailbox import mailbox_for
    from apps_web.world import WorldClock

    w, conn = world
    box, address = conn.execute("select id, address from mail_mailbox where kind = 'shared' and address like 'support@%'").fetchone()
    members = [r[0] for r in conn.execute("select u.username from mail_mailbox_member m join identity_user u on u.id = m.user_id "
                                          "where m.mailbox_id = ? and m.full_access and m.send_as order by m.id", (box,)).fetchall()]
    rep, _, other = _people(conn)
    assert len(members) >= 2 and rep not in members
    agent = {"user": members[1], "delay": "10m", "knows": [{"topic": ["outage", "status"], "about": "Northwind",
                                                             "answer": "The Northwind outage was fixed at 14:05; the RCA follows on Friday."}]}
    cw = Coworkers.from_spec([agent], [], {"per_step": "1m"}, seed=1)  # only the member with a profile answers
    cw.attach(conn)
    _mail_to(conn, rep, address, "Northwind outage", "What is the status of the Northwind outage?", cw.now)
    cw.after_step(conn, persona=rep, action_name="click")
    assert [(p["actor"], p["decision"]) for p in cw.pending()] == [(members[1], "answer")]
    out = cw.after_step(conn, persona=rep, action_name="wait")
    assert [d["decision"] for d in out] == ["answer"]
    row = conn.execute("select m.from_address, m.unique_body_html, m.in_reply_to is not null, f.kind from mail_message m "
                       "join mail_folder f on f.id = m.folder_id join mail_mailbox b on b.id = m.mailbox_id "
                       "join identity_user u on u.id = b.user_id where u.username = ? and m.subject = 'RE: Northwind outage'",
                       (rep,)).fetchone()
    assert row is not None and row[0] == address and "14:05" in row[1] and row[2] and row[3] == "inbox"  # from support@, in the thread
    assert conn.execute("select count(*) from mail_message m join mail_folder f on f.id = m.folder_id where m.mailbox_id = ? "
                        "and f.kind = 'sent' and m.subject = 'RE: Northwind outage'", (box,)).fetchone()[0] == 1

    # A member writes from the shared mailbox: the colleague's answer lands in the shared Inbox.
    member = members[0]
    helper = {"user": other, "delay": "5m", "knows": [{"topic": ["invoice"], "about": "Globex", "answer": "Invoice 4471 was paid on March 12."}]}
    cw = Coworkers.from_spec([helper], [], {"per_step": "1m"}, seed=1)
    cw.attach(conn)
    with session_on(conn) as s:
        me = s.exec(select(User).where(User.username == member)).one()
        target = s.exec(select(User).where(User.username == other)).one()
        own = mailbox_for(s, me)
        send(s, own, me, ComposeForm(to=target.email, subject="Globex invoice", body="<p>Was the Globex invoice paid?</p>",
                                     from_address=address), WorldClock(cw.now), own.address.split("@")[1])
    cw.after_step(conn, persona=member, action_name="click")
    cw.after_step(conn, persona=member, action_name="wait")
    row = conn.execute("select f.kind, m.unique_body_html from mail_message m join mail_folder f on f.id = m.folder_id "
                       "where m.mailbox_id = ? and m.subject = 'RE: Globex invoice'", (box,)).fetchone()
    assert row is not None and row[0] == "inbox" and "March 12" in row[1]


def test_a_meeting_invitation_is_answered_in_the_calendar_not_by_a_mail_reply(world) -> None:  # noqa: ANN001
    w, conn = world
    rep, manager, _ = _people(conn)
    lead = {"user": manager, "delay": "10m", "knows": [{"topic": ["kickoff"], "about": "Globex", "answer": "The Globex kickoff suits me on Thursday."}]}
    cw = Coworkers.from_spec([lead], [], {"per_step": "1m"}, seed=2)
    cw.attach(conn)
    # the calendar sends an invitation as a mail, then marks it as the event's request (as events.save does)
    _mail(conn, rep, manager, "Globex kickoff", "Globex kickoff call", cw.now)
    conn.execute("update mail_message set meeting_type = 'request' where subject = 'Globex kickoff'")
    conn.commit()
    _mail(conn, rep, manager, "Globex kickoff date", "Which day suits you for the Globex kickoff?", cw.now)
    cw.after_step(conn, persona=rep, action_name="click")
    assert [(p["actor"], p["decision"]) for p in cw.pending()] == [(manager, "answer")]  # the question only
    cw.after_step(conn, persona=rep, action_name="wait")
    assert conn.execute("select count(*) from mail_message where subject = 'RE: Globex kickoff'").fetchone()[0] == 0
    assert conn.execute("select count(*) from mail_message where subject = 'RE: Globex kickoff date'").fetchone()[0] == 2


def _mail_to(conn, sender: str, address: str, subject: str, text: str, at: datetime) -> None:  # noqa: ANN001
    from apps_web.mail.compose import ComposeForm, send
    from apps_web.mail.mailbox import mailbox_for
    from apps_web.world import WorldClock

    with session_on(conn) as s:
        me = s.exec(select(User).where(User.username == sender)).one()
        box = mailbox_for(s, me)
        send(s, box, me, ComposeForm(to=address, subject=subject, body=f"<p>{text}</p>"), WorldClock(at), box.address.split("@")[1])


def test_confidential_hours_events_determinism_and_checkpoints(store) -> None:  # noqa: ANN001
    """Two worlds run the same script with the same seed: the same replies, word for word; one is
    resumed from a checkpoint half way."""
    results = []
    for round_ in range(2):
        w = store.create(0)
        conn = w.connect(readonly=False)
        try:
            rep, manager, other = _people(conn)
            hr = {"user": other, "hours": "10:00-17:00", "delay": "5m", "tone": "terse", "knows": [
                {"topic": ["salary"], "about": "Dana", "answer": "Dana earns $131,000.", "confidential": True, "share_with": [manager]},
                {"topic": ["holiday", "holidays"], "answer": "We have 25 days of paid holiday."}]}
            events = [{"at": "+45m", "message": {"app": "chat", "from": manager, "to": rep, "text": "Standup moved to 11:00."}},
                      {"after_step": 2, "update": lambda c: c.execute("update identity_user set title = 'Senior AE' where username = ?", (rep,))}]
            cw = Coworkers.from_spec([hr], events, {"per_step": "2m"}, seed=7)
            cw.attach(conn)
            _chat(conn, rep, other, "What is Dana's salary?", cw.now)
            _chat(conn, rep, other, "How many holidays do we get?", cw.now)
            first = cw.after_step(conn, persona=rep, action_name="click")
            assert first == [] and [p["due"] for p in cw.pending()[:2]] == ["2026-03-16T10:05:00"] * 2  # before hours: 10:00 + delay
            if round_ == 1:  # resume from a checkpoint in a fresh engine
                saved = cw.state()
                cw = Coworkers.from_spec([hr], events, {"per_step": "2m"}, seed=7)
                cw.restore(saved)
            out = cw.after_step(conn, persona=rep, action_name="wait")
            assert [d.get("decision") or d["kind"] for d in out] == ["refuse", "answer", "update"] and cw.now == datetime(2026, 3, 16, 10, 5)
            out += cw.after_step(conn, persona=rep, action_name="wait")
            assert out[-1]["kind"] == "message" and cw.now == datetime(2026, 3, 16, 10, 15)
            texts = [r[0] for r in conn.execute(
                "select body_text from chat_message m join identity_user u on u.id = m.author_id where u.username in (?, ?) "
                "and m.created_at >= '2026-03-16 09:30' order by m.id", (other, manager))]
            assert "$131,000" not in " ".join(texts) and "25 days of paid holiday" in texts[1] and texts[2] == "Standup moved to 11:00."
            assert "confidential" in texts[0]
            assert conn.execute("select title from identity_user where username = ?", (rep,)).fetchone()[0] == "Senior AE"
            assert conn.execute("select value from sandbox_meta where key = 'clock'").fetchone()[0] == "2026-03-16T10:15:00"
            results.append(texts)
        finally:
            conn.close()
            store.drop(w)
    assert results[0] == results[1]


def test_the_host_sees_the_moved_clock_at_once(live_host) -> None:  # noqa: ANN001
    """A page rendered after the clock moved shows the new time; the resolver only notices that the
    file changed (one small read) and the request's own connection reads the clock."""
    import time

    import httpx

    from apps_web.identity import WORLD_COOKIE
    from apps_web.world.meta import write_clock

    store, resolver = live_host.store, live_host.app.state.resolver
    w = store.create(0)
    try:
        def request() -> None:  # any route with a database session (here: refused for want of a sign-in)
            r = httpx.get(f"http://127.0.0.1:{live_host.port}/mail/inbox", headers={"host": f"mail.localhost:{live_host.port}"},
                          cookies={WORLD_COOKIE: w.id}, follow_redirects=False)
            assert r.status_code in (302, 303, 307, 401), r.status_code

        request()
        assert resolver.resolve(w.id).clock.now == MONDAY and not resolver.resolve(w.id).stale
        conn = w.connect(readonly=False)
        write_clock(conn, MONDAY + timedelta(minutes=7))
        conn.commit()
        conn.close()
        assert resolver.resolve(w.id).stale  # written since: the next request's session reads the clock
        request()
        handle = resolver.resolve(w.id)
        assert handle.clock.now == MONDAY + timedelta(minutes=7) and not handle.stale
        t0 = time.perf_counter()
        for _ in range(200):
            resolver.resolve(w.id)
        per_request = (time.perf_counter() - t0) / 200
        assert per_request < 0.002, per_request  # a stat and a 28-byte read, no query
    finally:
        store.drop(w)


# -- a real episode in Chromium ---------------------------------------------------------------------------------
@pytest.mark.browser
def test_a_colleague_answers_a_chat_question_after_a_wait(make_env, store) -> None:  # noqa: ANN001
    from sandbox.spec import free_spec

    w = store.create(0)
    with w.connect() as conn:
        conv, persona, colleague, colleague_id = conn.execute(
            "select c.id, a.username, b.username, b.id from chat_conversation c "
            "join chat_member ma on ma.conversation_id = c.id join identity_user a on a.id = ma.user_id "
            "join chat_member mb on mb.conversation_id = c.id join identity_user b on b.id = mb.user_id "
            "where c.kind = 'oneonone' and a.id < b.id order by c.id limit 1").fetchone()
    store.drop(w)
    fact = "The Northwind renewal is due on April 30."
    spec = free_spec("chat", f"/chat/{conv}", "Ask about the renewal", persona=persona).replace(
        actors=({"user": colleague, "delay": "25m", "knows": [{"topic": ["renewal"], "about": "Northwind", "answer": fact}]},),
        clock={"per_step": "1m"})
    env = make_env(spec=spec)
    env.reset(seed=0)
    page = env.core.page
    box = env.run(page.get_by_role("textbox", name="Type a message").bounding_box())
    env.step({"action": "left_click", "x": int(box["x"] + 20), "y": int(box["y"] + 10)})
    env.step({"action": "type", "text": "Hi! When is the Northwind renewal due?"})
    obs, _, _, _, info = env.step({"action": "key", "key": "Return"})
    assert "coworkers" not in info and fact not in env.run(page.inner_text("main"))
    obs, _, _, _, info = env.step({"action": "wait", "duration": 0})
    assert [d["actor"] for d in info["coworkers"]] == [colleague] and fact in info["coworkers"][0]["text"]
    assert fact in env.run(page.inner_text("main"))  # the reply arrived on the page the agent sees
    episode = env.core.episode
    added = episode.changes_since_start().table("chat_message").added
    assert [(r["author_id"], fact in r["body_text"]) for r in added][-1] == (colleague_id, True)
    assert added[-1]["created_at"].startswith("2026-03-16 09:57")  # posted at 09:32 world time + 25 minutes
    assert episode.trajectory[-1]["coworkers"][0]["decision"] == "answer"
    assert episode.extensions["coworkers"].state()["pending"] == []


def test_a_tool_session_asks_waits_and_passes_the_approval_task(store, registry) -> None:  # noqa: ANN001
    """The shipped mail task worked by tool calls: the manager's refusal arrives after `wait()`, and the
    task's `before` guard holds only when the decision came first."""
    from apps_web.host import create_host
    from sandbox.loop import background_loop
    from sandbox.tool_episode import ToolEpisode

    host = create_host(store, secret="test-secret")
    spec = registry.get("mail.workflow-discount-approval", 1)  # 20%: over the manager's 15% limit
    p = spec.params

    async def solve(ask: bool):  # noqa: ANN202
        ep = await ToolEpisode.open(host, spec)
        try:
            if ask:
                sent = await ep.call("mail_send_message", {"to": p["opp"]["maddr"], "subject": p["subject"],
                                                           "body": f"Could you approve a {p['pct']}% discount on {p['opp']['name']}?"})
                assert sent.ok, sent.text()
                assert ep.extensions["coworkers"].pending()[0]["decision"] == "refuse"
                arrived = await ep.wait()
                assert arrived[0]["verdict"] is None and "over the 15% limit in Sales Discount Policy SDP-4" in arrived[0]["text"]
            done = await ep.call("crm_update_opportunity", {"record_id": p["opp"]["id"], "next_step": p["outcome"]})
            assert done.ok, done.text()
            return await ep.verify(), list(ep.steps)
        finally:
            await ep.close()

    verdict, steps = background_loop().run(solve(True))
    assert verdict.passed, verdict.reason
    assert p["outcome"] == "Discount 20% declined" and steps[1]["action"] == {"action": "wait"} and steps[1]["coworkers"]
    skipped, _ = background_loop().run(solve(False))
    assert not skipped.passed and skipped.score == 0 and "decision-first" in skipped.capped

"""Builds the calendar rows in memory (explicit ids), then inserts them in bulk."""

from __future__ import annotations

import random
from datetime import date, datetime, time, timedelta
from html import escape
from typing import Any

from ...delivery import text_preview
from ...seed.world import CrmData, Person
from ..recurrence import starts
from . import text as T

WEEKS_BEFORE, WEEKS_AFTER = 4, 5
DAY_NAMES = ("MO", "TU", "WE", "TH", "FR")


def _money(v) -> str:  # noqa: ANN001
    return f"${v:,.0f}" if v else "the quoted amount"


def _day(d) -> str:  # noqa: ANN001
    if isinstance(d, str):
        d = date.fromisoformat(d[:10])
    return f"{d:%B} {d.day}, {d.year}" if d else "the close date"


class CalendarBuilder:
    def __init__(self, ctx, people: list[Person], crm: CrmData) -> None:  # noqa: ANN001
        self.ctx = ctx
        self.now: datetime = ctx.clock.now
        self.people = [p for p in people if p.user_id is not None]
        self.by_user = {p.user_id: p for p in self.people}
        self.crm = crm
        self.domain = ctx.domain
        self.company = ctx.company or "the company"
        monday = self.now.date() - timedelta(days=self.now.weekday())
        self.first = monday - timedelta(weeks=WEEKS_BEFORE)
        self.last = monday + timedelta(weeks=WEEKS_AFTER)  # exclusive
        self.workdays = [self.first + timedelta(days=i) for i in range((self.last - self.first).days) if (self.first + timedelta(days=i)).weekday() < 5]
        self.rooms: list[dict[str, Any]] = []
        self.profiles: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.attendees: list[dict[str, Any]] = []
        self.messages: list[dict[str, Any]] = []
        self.recipients: list[dict[str, Any]] = []
        self.taken: dict[tuple[str, date], list[tuple[datetime, datetime]]] = {}
        self.reports: dict[int, list[Person]] = {}
        for p in self.people:
            if p.manager_id in self.by_user:
                self.reports.setdefault(p.manager_id, []).append(p)

    # -- occupancy ------------------------------------------------------------------------------------
    def _free(self, key: str, start: datetime, end: datetime) -> bool:
        return not any(s < end and e > start for s, e in self.taken.get((key, start.date()), ()))

    def _take(self, key: str, start: datetime, end: datetime) -> None:
        self.taken.setdefault((key, start.date()), []).append((start, end))

    def _room_for(self, n: int, start: datetime, end: datetime, rng: random.Random) -> dict[str, Any] | None:
        fits = sorted((r for r in self.rooms if r["capacity"] >= n and self._free(r["address"], start, end)), key=lambda r: (r["capacity"], r["id"]))
        return fits[0] if fits and rng.random() < 0.9 else (fits[1] if len(fits) > 1 else (fits[0] if fits else None))

    def _slot(self, keys: list[str], day: date, minutes: int, rng: random.Random, tries: int = 10) -> datetime | None:
        for _ in range(tries):
            start = datetime.combine(day, time(8)) + timedelta(minutes=30 * rng.randrange(0, (9 * 60 - minutes) // 30 + 1))
            end = start + timedelta(minutes=minutes)
            if all(self._free(k, start, end) for k in keys):
                return start
        return None

    # -- rows -----------------------------------------------------------------------------------------
    def _event(self, organizer: Person, subject: str, start: datetime, minutes: int, *, room=None, location: str = "", body: str = "",  # noqa: ANN001
               online: bool = False, recurrence: str = "none", days: str = "", until: date | None = None, account: int | None = None,
               opportunity: int | None = None, show_as: str = "busy", all_day: bool = False) -> dict[str, Any]:
        eid = len(self.events) + 1
        end = start + timedelta(minutes=minutes)
        created = min(self.now - timedelta(hours=2), start - timedelta(days=1 + (eid * 7919) % 13, hours=(eid * 31) % 7))
        row = dict(id=eid, organizer_id=organizer.user_id, subject=subject, location=room["name"] if room else location,
                   room_id=room["id"] if room else None, start=start, end=end, all_day=all_day, show_as=show_as, body_html=body,
                   is_online=online, recurrence=recurrence, recur_interval=1, recur_days=days, recur_until=until, recur_count=None,
                   series_id=None, original_start=None, is_cancelled=False, ical_uid=f"evt-{eid}@{self.domain}",
                   crm_account_id=account, crm_opportunity_id=opportunity, created_at=created, updated_at=created)
        self.events.append(row)
        keys = [organizer.address] + ([room["address"]] if room else [])
        if recurrence == "none":
            for k in keys:
                self._take(k, start, end)
        else:
            for s in starts(start, recurrence, 1, days, until, None, stop=datetime.combine(self.last, time(0))):
                if s.date() >= self.first:
                    for k in keys:
                        self._take(k, s, s + timedelta(minutes=minutes))
        if room:
            self._attend(row, room["address"], room["name"], None, "resource", room_id=room["id"])
        return row

    def _attend(self, ev: dict[str, Any], address: str, name: str, person: Person | None, kind: str, room_id: int | None = None) -> None:
        self.attendees.append(dict(id=len(self.attendees) + 1, event_id=ev["id"], address=address.lower(), name=name,
                                   user_id=person.user_id if person else None, room_id=room_id, kind=kind,
                                   response="accepted" if kind == "resource" else "none",
                                   responded_at=ev["created_at"] if kind == "resource" else None, comment=""))
        if person is not None and ev["recurrence"] == "none":
            self._take(person.address, ev["start"], ev["end"])
        elif person is not None:
            minutes = int((ev["end"] - ev["start"]).total_seconds() // 60)
            for s in starts(ev["start"], ev["recurrence"], 1, ev["recur_days"], ev["recur_until"], None, stop=datetime.combine(self.last, time(0))):
                if s.date() >= self.first:
                    self._take(person.address, s, s + timedelta(minutes=minutes))

    # -- generators -----------------------------------------------------------------------------------
    def rooms_and_profiles(self) -> None:
        for i, (name, building, floor, cap, equip) in enumerate(T.ROOMS, 1):
            self.rooms.append(dict(id=i, name=f"Conf Room {name} ({building}-{floor})", address=f"confroom.{name.lower()}@{self.domain}",
                                   building=building, floor=floor, capacity=cap, equipment=equip))
        rng = self.ctx.random("calendar.profiles")
        fake = self.ctx.faker("calendar.profiles")
        for p in self.people:
            remote = p.role == "sales_rep" and rng.random() < 0.35
            office = f"Remote - {rng.choice(T.REMOTE_CITIES)}" if remote else f"HQ {rng.randint(2, 5)}.{rng.randint(1, 40):02d}"
            self.profiles.append(dict(id=len(self.profiles) + 1, user_id=p.user_id, office=office, mobile=fake.numerify("(###) 555-####")))

    def one_on_ones(self) -> None:
        rng = self.ctx.random("calendar.one_on_ones")
        for manager_id in sorted(self.reports):
            manager = self.by_user[manager_id]
            for k, rep in enumerate(sorted(self.reports[manager_id], key=lambda p: p.user_id)):
                day = k % 5
                first = self.first - timedelta(weeks=6) + timedelta(days=day)
                for _ in range(6):
                    start = datetime.combine(first, time(9)) + timedelta(minutes=30 * rng.randrange(0, 15))
                    probe = [datetime.combine(self.first + timedelta(days=day, weeks=w), start.time()) for w in range(WEEKS_BEFORE + WEEKS_AFTER)]
                    if all(self._free(a, t, t + timedelta(minutes=30)) for t in probe for a in (manager.address, rep.address)):
                        break
                ev = self._event(manager, f"{rep.first} / {manager.first} 1:1", start, 30, location="Microsoft Teams Meeting", online=True,
                                 recurrence="weekly", days=DAY_NAMES[day],
                                 body=f"<p>Our weekly 1:1. Bring your top three priorities and anything blocked.</p>")
                self._attend(ev, rep.address, rep.name, rep, "required")

    def team_meetings(self) -> None:
        rng = self.ctx.random("calendar.teams")
        for manager_id in sorted(self.reports):
            team = sorted(self.reports[manager_id], key=lambda p: p.user_id)
            if len(team) < 2:
                continue
            manager = self.by_user[manager_id]
            day = rng.randrange(0, 5)
            start, room = None, None
            for hour in [rng.choice([9, 10, 14, 15])] + [9, 10, 11, 13, 14, 15, 16]:
                t = datetime.combine(self.first - timedelta(weeks=8) + timedelta(days=day), time(hour))
                weekly = [datetime.combine(self.first + timedelta(days=day, weeks=w), t.time()) for w in range(WEEKS_BEFORE + WEEKS_AFTER)]
                room = next((r for r in sorted(self.rooms, key=lambda r: (r["capacity"], r["id"])) if r["capacity"] > len(team)
                             and all(self._free(r["address"], x, x + timedelta(hours=1)) for x in weekly)), None)
                if room is not None:
                    start = t
                    break
            if start is None:
                start = datetime.combine(self.first - timedelta(weeks=8) + timedelta(days=day), time(9))
            subject = T.TEAM_SUBJECTS.get(manager.department, "{last} team meeting").format(last=manager.name.split()[-1])
            ev = self._event(manager, subject, start, 60, room=room, recurrence="weekly", days=DAY_NAMES[day], online=True,
                             body=f"<p>Weekly team meeting: wins, blockers and the week ahead. Join in {room['name'] if room else 'Teams'} or online.</p>")
            for p in team:
                self._attend(ev, p.address, p.name, p, "required")

    def all_hands(self) -> None:
        rng = self.ctx.random("calendar.allhands")
        ceo = next((p for p in self.people if p.title == "VP of Sales"), self.people[0])
        big = max(self.rooms, key=lambda r: r["capacity"])
        for k, week in enumerate((1, WEEKS_BEFORE + 2)):
            day = self.first + timedelta(weeks=week, days=3)
            month = f"{day:%B}"
            quarter = f"Q{(day.month - 1) // 3 + 1} {day.year}"
            subject = T.ALL_HANDS[k % 2].format(company=self.company, month=month, quarter=quarter)
            hour = next((h for h in (16, 15, 14, 11, 10) if self._free(big["address"], datetime.combine(day, time(h)), datetime.combine(day, time(h + 1)))), None)
            room = big if hour is not None else None
            ev = self._event(ceo, subject, datetime.combine(day, time(hour or 16)), 60, room=room, location="Microsoft Teams Meeting", online=True,
                             body=f"<p>Company update for {month}: results, priorities for {quarter} and questions. Join in {big['name']} or online.</p>")
            for p in self.people:
                if p.user_id != ceo.user_id:
                    self._attend(ev, p.address, p.name, p, "optional" if rng.random() < 0.1 else "required")

    def customer_meetings(self) -> None:
        rng = self.ctx.random("calendar.customers")
        contacts_of: dict[int, list[dict]] = {}
        for c in self.crm.contacts.values():
            contacts_of.setdefault(c["account_id"], []).append(c)
        target = 240 * self.ctx.scale
        opps = [o for o in self.crm.opportunities if o["owner_id"] in self.by_user and contacts_of.get(o["account_id"])]
        rng.shuffle(opps)
        made = 0
        for opp in opps:
            if made >= target:
                break
            owner = self.by_user[opp["owner_id"]]
            account = self.crm.accounts.get(opp["account_id"], {"name": "the customer", "city": ""})
            stage = opp["stage"] or ""
            phase = ("closed" if stage.startswith("Closed") else "late" if stage in ("Negotiation/Review", "Proposal/Price Quote")
                     else "mid" if stage in ("Value Proposition", "Id. Decision Makers", "Perception Analysis") else "early")
            if stage == "Closed Lost":
                continue
            for _ in range(rng.choice([1, 1, 2])):
                contacts = sorted(contacts_of[opp["account_id"]], key=lambda c: c["id"])
                primary = self.crm.primary_contact.get(opp["id"])
                chosen = [c for c in contacts if c["id"] == primary] or [contacts[0]]
                others = [c for c in contacts if c not in chosen]
                chosen += rng.sample(others, min(len(others), rng.choice([0, 0, 1, 2])))
                internal = [owner]
                if rng.random() < 0.35 and owner.manager_id in self.by_user:
                    internal.append(self.by_user[owner.manager_id])
                day = rng.choice(self.workdays)
                minutes = rng.choice([30, 45, 60, 60, 90])
                start = self._slot([p.address for p in internal], day, minutes, rng)
                if start is None:
                    continue
                where = rng.random()
                room = self._room_for(len(internal) + len(chosen), start, start + timedelta(minutes=minutes), rng) if where < 0.45 else None
                location = "" if room else ("Microsoft Teams Meeting" if where < 0.8 else f"{account['name']} office, {account.get('city') or 'on site'}")
                fmt = dict(account=account["name"], opp=opp["name"], company=self.company)
                subject = rng.choice(T.CUSTOMER_SUBJECTS[phase]).format(**fmt)
                first = chosen[0]["first_name"]
                agenda = [a.format(first=first, amount=_money(opp["amount"]), close=_day(opp["close_date"]), next_step=opp.get("next_step") or "agree the next step")
                          for a in rng.sample(T.CUSTOMER_AGENDA, 2)]
                body = "<p>Agenda:</p><ul>" + "".join(f"<li>{escape(a)}</li>" for a in agenda) + "</ul>"
                ev = self._event(owner, subject, start, minutes, room=room, location=location, body=body, online=location.startswith("Microsoft"),
                                 account=opp["account_id"], opportunity=opp["id"])
                for p in internal[1:]:
                    self._attend(ev, p.address, p.name, p, "optional" if rng.random() < 0.5 else "required")
                for c in chosen:
                    self._attend(ev, c["email"], f"{c['first_name']} {c['last_name']}", None, "required")
                made += 1

    def internal_meetings(self) -> None:
        rng = self.ctx.random("calendar.internal")
        target = 600 * self.ctx.scale - len(self.events)
        by_dept: dict[str, list[Person]] = {}
        for p in self.people:
            by_dept.setdefault(p.department, []).append(p)
        opps = [o for o in self.crm.opportunities if o["owner_id"] in self.by_user and not (o["stage"] or "").startswith("Closed")]
        cases = [c for c in self.crm.cases if c["owner_id"] in self.by_user and c["status"] != "Closed"]
        made, guard = 0, 0
        while made < target and guard < target * 4:
            guard += 1
            kind, agendas = T.INTERNAL_KINDS[rng.randrange(len(T.INTERNAL_KINDS))]
            day = rng.choice(self.workdays)
            fmt: dict[str, Any] = dict(month=f"{day:%B}", campaign=rng.choice(T.CAMPAIGNS), topic=rng.choice(T.TOPICS), role=rng.choice(ROLES_LIST))
            account = opp = None
            if "{opp}" in kind:
                if not opps:
                    continue
                o = rng.choice(opps)
                organizer = self.by_user[o["owner_id"]]
                group = [self.by_user[organizer.manager_id]] if organizer.manager_id in self.by_user else []
                group += rng.sample([p for p in by_dept.get("Sales", []) if p.user_id not in (organizer.user_id, organizer.manager_id)], 1)
                fmt.update(opp=o["name"], amount=_money(o["amount"]), close=_day(o["close_date"]),
                           account=self.crm.accounts.get(o["account_id"], {}).get("name", "the customer"))
                account, opp = o["account_id"], o["id"]
            elif "{account}" in kind:
                if not cases:
                    continue
                c = rng.choice(cases)
                organizer = self.by_user[c["owner_id"]]
                owner = self.by_user.get(self.crm.accounts.get(c["account_id"], {}).get("owner_id"))
                group = [p for p in (owner, self.by_user.get(organizer.manager_id)) if p is not None and p.user_id != organizer.user_id]
                fmt.update(account=self.crm.accounts.get(c["account_id"], {}).get("name", "the customer"), case=c["case_number"],
                           subject=c["subject"], priority=(c["priority"] or "normal").lower())
                account = c["account_id"]
            else:
                dept = {"Forecast": "Sales", "Campaign": "Marketing", "Change": "IT", "Month-end": "Finance"}.get(kind.split()[0], "")
                pool = by_dept.get(dept) or self.people
                organizer = rng.choice(pool)
                size = rng.randint(2, 6) if not kind.startswith("Lunch") else rng.randint(6, 14)
                others = [p for p in self.people if p.user_id != organizer.user_id]
                group = rng.sample([p for p in pool if p.user_id != organizer.user_id] or others, min(size, len(pool) - 1 or 1))
                if kind.startswith("Lunch") or kind.startswith("Interview"):
                    group = rng.sample(others, min(size, len(others)))
            minutes = rng.choice([30, 30, 45, 60, 60, 90]) if not kind.startswith("Lunch") else 60
            keys = [organizer.address] + [p.address for p in group]
            start = self._slot(keys, day, minutes, rng, tries=6) or self._slot([organizer.address], day, minutes, rng, tries=6)
            if start is None:
                continue
            room = self._room_for(len(group) + 1, start, start + timedelta(minutes=minutes), rng) if rng.random() < 0.7 else None
            body = f"<p>{escape(rng.choice(agendas).format(**fmt))}</p>"
            ev = self._event(organizer, kind.format(**fmt), start, minutes, room=room, location="" if room else "Microsoft Teams Meeting",
                             online=room is None or rng.random() < 0.5, body=body, account=account, opportunity=opp,
                             show_as="tentative" if rng.random() < 0.05 else "busy")
            for p in group:
                self._attend(ev, p.address, p.name, p, "optional" if rng.random() < 0.2 else "required")
            made += 1

    def responses_and_invitations(self) -> None:
        """Past meetings mostly accepted; future ones a mix, and an unread invitation in the inbox of
        everyone who has not answered yet."""
        rng = self.ctx.random("calendar.responses")
        events = {e["id"]: e for e in self.events}
        for a in self.attendees:
            if a["kind"] == "resource":
                continue
            ev = events[a["event_id"]]
            past = ev["start"] < self.now or ev["recurrence"] != "none"
            r = rng.random()
            weights = (0.82, 0.9, 0.95) if past else (0.45, 0.6, 0.7)
            a["response"] = "accepted" if r < weights[0] else "tentative" if r < weights[1] else "declined" if r < weights[2] else "none"
            if a["user_id"] is None and not past:
                a["response"] = "accepted" if r < 0.5 else "none"
            if a["response"] != "none":
                span = max(1.0, (min(self.now, ev["start"]) - ev["created_at"]).total_seconds())
                a["responded_at"] = (ev["created_at"] + timedelta(seconds=int(span * rng.uniform(0.05, 0.9)))).replace(microsecond=0)

    def invitations(self, boxes: dict[int, tuple[int, str, str]], inboxes: dict[int, int], next_message: int, next_recipient: int) -> None:
        """Unread invitations for the meetings still waiting for an answer (``boxes``: user id ->
        (mailbox id, address, name); ``inboxes``: mailbox id -> inbox folder id)."""
        events = {e["id"]: e for e in self.events}
        by_event: dict[int, list[dict]] = {}
        for a in self.attendees:
            by_event.setdefault(a["event_id"], []).append(a)
        rooms = {r["id"]: r for r in self.rooms}
        mid, rid = next_message, next_recipient
        for a in self.attendees:
            ev = events[a["event_id"]]
            if a["user_id"] is None or a["response"] != "none" or ev["start"] < self.now or a["user_id"] not in boxes:
                continue
            organizer = self.by_user[ev["organizer_id"]]
            box, _, _ = boxes[a["user_id"]]
            when = _when(ev)
            body = f"<p><b>When:</b> {escape(when)}</p>" + (f"<p><b>Where:</b> {escape(ev['location'])}</p>" if ev["location"] else "") + ev["body_html"]
            self.messages.append(dict(
                id=mid, mailbox_id=box, folder_id=inboxes[box], conversation_id=f"conv-evt{ev['id']}", internet_message_id=f"<evt{ev['id']}.invite@{self.domain}>",
                in_reply_to=None, subject=ev["subject"], body_html=body, unique_body_html=body, preview=text_preview(body)[:255],
                from_address=organizer.address, from_name=organizer.name, sent_at=ev["created_at"], received_at=ev["created_at"], is_read=False,
                is_flagged=False, is_draft=False, importance="normal", categories="", has_attachments=False, crm_account_id=ev["crm_account_id"],
                crm_opportunity_id=ev["crm_opportunity_id"], crm_case_id=None, event_id=ev["id"], meeting_type="request",
                created_at=ev["created_at"], updated_at=ev["created_at"]))
            for pos, other in enumerate(x for x in by_event[ev["id"]]):
                self.recipients.append(dict(id=rid, message_id=mid, kind="cc" if other["kind"] == "optional" else "to", address=other["address"],
                                            name=other["name"] if other["room_id"] is None else rooms[other["room_id"]]["name"], position=pos))
                rid += 1
            mid += 1

    def insert(self) -> None:
        from sqlalchemy import text

        session = self.ctx.session
        boxes = {u: (b, addr, name) for b, u, addr, name in session.execute(text("select id, user_id, address, display_name from mail_mailbox"))}
        inboxes = {b: f for f, b in session.execute(text("select id, mailbox_id from mail_folder where kind = 'inbox'"))}
        next_m = (session.execute(text("select max(id) from mail_message")).scalar() or 0) + 1
        next_r = (session.execute(text("select max(id) from mail_recipient")).scalar() or 0) + 1
        self.invitations(boxes, inboxes, next_m, next_r)
        dbapi = session.connection().connection.driver_connection
        for table, rows in (("mail_room", self.rooms), ("mail_profile", self.profiles), ("mail_event", self.events), ("mail_attendee", self.attendees),
                            ("mail_message", self.messages), ("mail_recipient", self.recipients)):
            if rows:
                columns = list(rows[0])
                sql = f'insert into {table} ({", ".join(columns)}) values ({", ".join("?" * len(columns))})'
                dbapi.executemany(sql, [tuple(_db(r[c]) for c in columns) for r in rows])


ROLES_LIST = T.ROLES


def _when(ev: dict[str, Any]) -> str:
    s, e = ev["start"], ev["end"]
    hm = lambda t: f"{t.hour % 12 or 12}:{t:%M} {'AM' if t.hour < 12 else 'PM'}"  # noqa: E731
    return f"{s:%A}, {s:%B} {s.day}, {s.year} {hm(s)}-{hm(e)}"


def _db(value):  # noqa: ANN001, ANN202
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")
    if isinstance(value, date):
        return value.isoformat()
    return value

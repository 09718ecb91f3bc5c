"""Collects teams, conversations and messages as plain rows, then gives message ids in time order
(read state is "the newest message id I have seen"), and adds reactions, read state and Activity."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from html import escape
from typing import Any

from ..models import REACTIONS
from .world import Facts, Person

REACTION_WEIGHTS = (60, 15, 15, 5, 3, 2)
_MENTION = re.compile(r"@\{(\d+)\}")


@dataclass
class Msg:
    conv: int
    author: int
    text: str  # plain text; "@{user id}" marks a mention
    at: datetime
    parent: "Msg | None" = None
    subject: str = ""
    refs: dict[str, int] = field(default_factory=dict)
    unread_hint: bool = False  # keep it unread for its recipients (an open question)
    id: int = 0


class ChatBuilder:
    def __init__(self, now: datetime, people: list[Person], facts: Facts, rng: random.Random) -> None:
        self.now = now
        self.people = people
        self.by_id = {p.id: p for p in people}
        self.facts = facts
        self.rng = rng
        self.teams: list[dict[str, Any]] = []
        self.convs: list[dict[str, Any]] = []
        self.members: dict[int, list[int]] = {}
        self.msgs: list[Msg] = []
        self.files: list[dict[str, Any]] = []
        self._pairs: dict[tuple[int, int], int] = {}

    # -- structure ------------------------------------------------------------------------------------
    def team(self, name: str, description: str) -> int:
        self.teams.append({"id": len(self.teams) + 1, "name": name, "description": description, "created_at": self.now - timedelta(days=400)})
        return len(self.teams)

    def channel(self, team: int, name: str, description: str, members: list[int]) -> int:
        return self._conv("channel", team, name, description, members)

    def chat(self, members: list[int], topic: str = "") -> int:
        members = sorted(set(members))
        if len(members) == 2 and not topic:
            key = (members[0], members[1])
            if key not in self._pairs:
                self._pairs[key] = self._conv("oneonone", None, "", "", members)
            return self._pairs[key]
        return self._conv("group", None, topic, "", members)

    def _conv(self, kind: str, team: int | None, name: str, description: str, members: list[int]) -> int:
        cid = len(self.convs) + 1
        self.convs.append({"id": cid, "kind": kind, "team_id": team, "name": name, "description": description,
                           "created_by_id": members[0] if members else None, "created_at": self.now - timedelta(days=300 if team else 90),
                           "last_message_at": None})
        self.members[cid] = sorted(set(members))
        return cid

    # -- messages -------------------------------------------------------------------------------------
    def say(self, conv: int, author: int, text: str, at: datetime, parent: Msg | None = None, subject: str = "", **refs: int | None) -> Msg:
        at = min(at, self.now - timedelta(minutes=2))
        if parent is not None:
            at = max(at, parent.at + timedelta(minutes=1))
        m = Msg(conv, author, text, at, parent, subject, {k: v for k, v in refs.items() if v is not None})
        self.msgs.append(m)
        return m

    def thread(self, conv: int, at: datetime, lines: list[tuple[int, str]], subject: str = "", gap: tuple[int, int] = (3, 180), **refs) -> Msg:
        """A post and its replies, each a few minutes to hours after the one before."""
        root = self.say(conv, lines[0][0], lines[0][1], at, subject=subject, **refs)
        t = root.at
        for author, text in lines[1:]:
            t = t + timedelta(minutes=self.rng.randint(*gap))
            if t >= self.now:
                break
            if author != root.author and "@{" not in text and self.rng.random() < 0.3:
                text = f"@{{{root.author}}} {text}"  # answering the poster by name, as people do in busy channels
            self.say(conv, author, text, t, root, **refs)
        return root

    def dialogue(self, conv: int, at: datetime, lines: list[tuple[int, str]], gap: tuple[int, int] = (1, 45), **refs) -> list[Msg]:
        out, t = [], at
        for author, text in lines:
            if t >= self.now:
                break
            out.append(self.say(conv, author, text, t, **refs))
            t = t + timedelta(minutes=self.rng.randint(*gap))
        return out

    def work_time(self, days_back: float, min_days: float = 0.0) -> datetime:
        """A moment on a working day in the last ``days_back`` days, during office hours."""
        for _ in range(20):
            d = self.now - timedelta(days=self.rng.uniform(min_days, days_back))
            if d.weekday() < 5:
                break
        t = d.replace(hour=self.rng.randint(8, 17), minute=self.rng.randint(0, 59), second=self.rng.randint(0, 59), microsecond=0)
        return min(t, self.now - timedelta(minutes=self.rng.randint(5, 240)))

    # -- rows -----------------------------------------------------------------------------------------
    def finish(self) -> dict[str, list[dict[str, Any]]]:
        rng = self.rng
        msgs = sorted(self.msgs, key=lambda m: (m.at, m.conv, m.author, m.text))
        for i, m in enumerate(msgs, 1):
            m.id = i
        messages, mentions, reactions, activity = [], [], [], []
        last_at: dict[int, datetime] = {}
        for m in msgs:
            ids = [int(x) for x in _MENTION.findall(m.text)]
            html, plain = _render(m.text, self.by_id)
            messages.append({"id": m.id, "conversation_id": m.conv, "parent_id": m.parent.id if m.parent else None, "author_id": m.author,
                             "subject": m.subject, "body_html": html, "body_text": plain, "created_at": m.at, "edited_at": None, "deleted_at": None,
                             "crm_account_id": m.refs.get("account"), "crm_opportunity_id": m.refs.get("opportunity"),
                             "desk_incident_id": m.refs.get("incident"), "updated_at": m.at})
            last_at[m.conv] = m.at
            for uid in dict.fromkeys(ids):
                mentions.append({"id": len(mentions) + 1, "message_id": m.id, "user_id": uid})
                if uid != m.author:
                    activity.append([uid, "mention", m.id, m.author, m.at])
            if m.parent is not None and m.parent.author != m.author and m.parent.author not in ids:
                activity.append([m.parent.author, "reply", m.id, m.author, m.at])
            if not m.unread_hint and rng.random() < 0.28:
                others = [u for u in self.members[m.conv] if u != m.author]
                for uid in rng.sample(others, min(len(others), rng.choice((1, 1, 1, 2, 2, 3, 4)))):
                    kind = rng.choices(REACTIONS, REACTION_WEIGHTS)[0]
                    at = min(m.at + timedelta(minutes=rng.randint(1, 300)), self.now - timedelta(minutes=1))
                    reactions.append({"id": len(reactions) + 1, "message_id": m.id, "user_id": uid, "kind": kind, "created_at": at})
                    activity.append([m.author, "reaction", m.id, uid, at])
        for c in self.convs:
            c["last_message_at"] = last_at.get(c["id"])
        # Read state: most people are up to date; some last looked hours or days ago; open questions stay unread.
        by_conv: dict[int, list[Msg]] = {}
        for m in msgs:
            by_conv.setdefault(m.conv, []).append(m)
        members, seen = [], {}
        for c in self.convs:
            cm = by_conv.get(c["id"], [])
            for uid in self.members[c["id"]]:
                r = rng.random()
                cutoff = self.now if r < 0.72 else self.now - timedelta(hours=rng.uniform(0.5, 96))
                read = 0
                for m in cm:
                    if m.at > cutoff or (m.unread_hint and m.author != uid):
                        break
                    read = m.id
                seen[(c["id"], uid)] = read
                members.append({"id": len(members) + 1, "conversation_id": c["id"], "user_id": uid, "role": "owner" if uid == c["created_by_id"] else "member",
                                "last_read_id": read, "joined_at": c["created_at"]})
        conv_of = {m.id: m.conv for m in msgs}
        activity.sort(key=lambda a: (a[4], a[2], a[0]))
        acts = [{"id": i, "user_id": u, "kind": k, "message_id": mid, "actor_id": actor, "created_at": at,
                 "is_read": mid <= seen.get((conv_of[mid], u), 0) and at < self.now - timedelta(hours=6)}
                for i, (u, k, mid, actor, at) in enumerate(activity, 1)]
        for f in self.files:
            f["message_id"] = f.pop("msg").id
        return {"teams": self.teams, "convs": self.convs, "members": members, "messages": messages, "mentions": mentions,
                "reactions": reactions, "activity": acts, "files": self.files}

    def file(self, msg: Msg, name: str, mime: str, content: bytes) -> None:
        self.files.append({"id": len(self.files) + 1, "conversation_id": msg.conv, "msg": msg, "name": name, "mime": mime, "size": len(content),
                           "content": content, "uploaded_by_id": msg.author, "created_at": msg.at})


def _render(text: str, people: dict[int, Person]) -> tuple[str, str]:
    body = escape(text)
    plain = _MENTION.sub(lambda mm: people[int(mm.group(1))].name, text)

    def span(mm: re.Match) -> str:
        uid = int(mm.group(1))
        return f'<span class="mention" data-user="{uid}">{escape(people[uid].name)}</span>'

    body = _MENTION.sub(span, body)
    html = "".join(f"<p>{p.replace(chr(10), '<br>')}</p>" for p in body.split("\n\n"))
    return html, " ".join(plain.split())

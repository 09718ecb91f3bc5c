"""The CRM's co-worker adapter: a quote the persona submits for approval is a request to the approver
(the owner's manager), with the quote's largest line discount as its amount; the reply approves or
rejects it through the CRM's own decision path (Approval History shows the approver and comments),
or, when it decides nothing (a question back, an automatic reply), leaves the request pending."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import select

from ..identity.models import User
from ..messaging import Reply, Request, session_on, usernames_of
from ..world.clock import WorldClock
from .models import ApprovalRequest, Quote
from .quotes import decide, decide_error


class CrmCoworkers:
    app = "crm"

    def inbound(self, conn: Any, diff: Any, persona_id: int) -> list[Request]:
        out: list[Request] = []
        sender = usernames_of(conn, [persona_id]).get(persona_id, "")
        for row in sorted(diff.table("crm_approval_request").added, key=lambda r: r["id"]):
            if row.get("status") != "Pending" or row.get("approver_id") in (None, persona_id):
                continue
            approver = usernames_of(conn, [row["approver_id"]]).get(row["approver_id"])
            quote = conn.execute(
                "SELECT q.name, q.quote_number, q.total_price, o.name, a.name, "
                "(SELECT max(coalesce(l.discount, 0)) FROM crm_quote_line_item l WHERE l.quote_id = q.id) "
                "FROM crm_quote q JOIN crm_opportunity o ON o.id = q.opportunity_id LEFT JOIN crm_account a ON a.id = o.account_id "
                "WHERE q.id = ?", (row["quote_id"],)).fetchone()
            if approver is None or quote is None:
                continue
            name, number, total, opp, account, discount = quote
            text = (f"Approval requested for quote {number} \u201c{name}\u201d on {opp}" + (f" ({account})" if account else "")
                    + f": a {discount or 0:g}% discount, total ${total or 0:,.2f}." + (f" {row['submit_comments']}" if row.get("submit_comments") else ""))
            out.append(Request(app="crm", kind="approval", sender=sender, to=(approver,), text=text, subject=f"Quote {number}: {name}",
                               amount=float(discount or 0), amount_unit="%", at=_dt(row.get("submitted_at")), ref={"approval_id": row["id"]}))
        return out

    def deliver(self, conn: Any, reply: Reply) -> dict[str, Any]:
        with session_on(conn) as session:
            step = session.get(ApprovalRequest, reply.ref["approval_id"])
            actor = session.exec(select(User).where(User.username == reply.actor)).first()
            if step is None or actor is None or reply.verdict is None or decide_error(step, actor):
                return {}  # decided already (or withdrawn), or nothing decided: the request stays as it is
            quote = session.get(Quote, step.quote_id)
            decide(session, step, quote, actor, reply.verdict == "approved", reply.text, WorldClock(reply.at))
            session.commit()
            return {"table": "crm_approval_request", "id": step.id}


def _dt(value: Any) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


def adapter() -> CrmCoworkers:
    return CrmCoworkers()

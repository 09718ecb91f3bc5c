"""The desk's co-worker adapter: an approval (sysapproval_approver) the persona's step created for
someone (a catalog request over the approval limit goes to their manager, a change's Request Approval
to the CAB) is a request to that approver; the reply decides it (approved or rejected, with the
reason in its comments) through the desk's own decision path, or comments it when no decision."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..messaging import Reply, Request, session_on, usernames_of
from ..world.clock import WorldClock
from .catalog import decide
from .models import Approval


class DeskCoworkers:
    app = "desk"

    def inbound(self, conn: Any, diff: Any, persona_id: int) -> list[Request]:
        out: list[Request] = []
        sender = usernames_of(conn, [persona_id]).get(persona_id, "")
        for row in sorted(diff.table("desk_approval").added, key=lambda r: r["id"]):
            if row.get("state") != "requested" or row["approver_id"] == persona_id:
                continue
            approver = usernames_of(conn, [row["approver_id"]]).get(row["approver_id"])
            if approver is None:
                continue
            subject, text, amount = _describe(conn, row)
            out.append(Request(app="desk", kind="approval", sender=sender, to=(approver,), text=text, subject=subject,
                               amount=amount, at=_dt(row.get("created_at")), ref={"approval_id": row["id"]}))
        return out

    def deliver(self, conn: Any, reply: Reply) -> dict[str, Any]:
        with session_on(conn) as session:
            approval = session.get(Approval, reply.ref["approval_id"])
            if approval is None or approval.state != "requested":
                return {}
            if reply.verdict is None:  # a question back, or an automatic reply: a comment, no decision
                approval.comments = reply.text
                approval.updated_at = reply.at
                session.add(approval)
            else:
                errors = decide(session, approval, reply.verdict, reply.text, WorldClock(reply.at))
                if errors:
                    return {"errors": errors}
            session.commit()
            return {"table": "desk_approval", "id": approval.id}


def _describe(conn: Any, row: dict[str, Any]) -> tuple[str, str, float | None]:
    """(subject, text, amount) of what an approval is for."""
    if row.get("req_item_id"):
        r = conn.execute(
            "SELECT ri.number, ri.quantity, ri.price, ri.variables, c.name, c.category, c.short_description "
            "FROM desk_req_item ri JOIN desk_catalog_item c ON c.id = ri.item_id WHERE ri.id = ?", (row["req_item_id"],)).fetchone()
        if r:
            number, qty, price, variables, name, category, short = r
            text = f"Approval requested for {number}: {qty} x {name} ({category}). {short} Total ${price:,.2f}. Variables: {variables}"
            return f"{number}: {name}", text, float(price)
    if row.get("change_id"):
        r = conn.execute("SELECT number, short_description, justification, risk, type FROM desk_change WHERE id = ?", (row["change_id"],)).fetchone()
        if r:
            number, short, why, risk, kind = r
            return f"{number}: {short}", f"Approval requested for change {number} ({kind}, risk {risk}): {short}. {why}", None
    return "Approval", "Approval requested.", None


def _dt(value: Any) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


def adapter() -> DeskCoworkers:
    return DeskCoworkers()

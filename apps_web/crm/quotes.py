"""Quotes: created from an opportunity (its products copied as quote lines), totals, statuses, and the
discount approval: a line discount above the threshold needs the owner's manager's approval before the
quote can be presented or accepted. The messages follow Salesforce's approval processes."""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import Session, select

from ..identity.models import Role, User
from ..world.clock import WorldClock
from .models import ApprovalRequest, Opportunity, Quote, QuoteLineItem
from .picklists import APPROVAL_DISCOUNT_THRESHOLD, QUOTE_STATUSES
from .products import line_items

# Statuses a quote reaches only after the approval when it needs one (and "Approved" only through it).
NEEDS_APPROVAL_FOR = ("Approved", "Presented", "Accepted")
NO_PROCESS = "No applicable approval process was found."
IN_PROCESS = "This record is currently in an approval process. A record can be in only one approval process at a time."
NO_MANAGER = "Manager undefined. You can't submit this record for approval: your user record has no manager."


def next_number(session: Session) -> str:
    top = session.exec(select(func.max(Quote.id))).one() or 0
    return f"{top + 1:08d}"


def quote_lines(session: Session, quote_id: int) -> list[QuoteLineItem]:
    return list(session.exec(select(QuoteLineItem).where(QuoteLineItem.quote_id == quote_id).order_by(QuoteLineItem.sort_order, QuoteLineItem.id)).all())


def totals(lines: list[QuoteLineItem]) -> tuple[float, float]:
    return round(sum(li.quantity * li.unit_price for li in lines), 2), round(sum(li.total_price for li in lines), 2)


def refresh_totals(session: Session, quote: Quote) -> None:
    session.flush()
    quote.subtotal, quote.total_price = totals(quote_lines(session, quote.id))


def copy_lines(session: Session, opp: Opportunity, quote: Quote) -> int:
    n = 0
    for li, _product in line_items(session, opp.id):
        session.add(QuoteLineItem(quote_id=quote.id, product_id=li.product_id, quantity=li.quantity, list_price=li.list_price,
                                  unit_price=li.unit_price, discount=li.discount, total_price=li.total_price, description=li.description,
                                  sort_order=n))
        n += 1
    return n


def max_discount(lines: list[QuoteLineItem]) -> float:
    return max((li.discount or 0.0 for li in lines), default=0.0)


def needs_approval(lines: list[QuoteLineItem]) -> bool:
    return max_discount(lines) > APPROVAL_DISCOUNT_THRESHOLD


def approvals(session: Session, quote_id: int) -> list[ApprovalRequest]:
    return list(session.exec(select(ApprovalRequest).where(ApprovalRequest.quote_id == quote_id)
                             .order_by(ApprovalRequest.submitted_at.desc(), ApprovalRequest.id.desc())).all())


def pending(session: Session, quote_id: int) -> ApprovalRequest | None:
    return session.exec(select(ApprovalRequest).where(ApprovalRequest.quote_id == quote_id, ApprovalRequest.status == "Pending")).first()


def approved_since_change(session: Session, quote: Quote) -> bool:
    """The latest decision approved the quote as it stands (lines unchanged since: editing lines recalls it)."""
    steps = approvals(session, quote.id)
    return bool(steps) and steps[0].status == "Approved"


def status_error(session: Session, quote: Quote, status: str) -> str | None:
    """Why the quote can't take ``status`` now (None when it can)."""
    if status not in QUOTE_STATUSES:
        return "Select a status from the list."
    if status == quote.status:
        return None
    if pending(session, quote.id):
        return "This quote is locked while it's pending approval. Wait for the approver, or recall the request."
    if status in ("Approved", "Rejected", "In Review"):
        return f'A quote becomes "{status}" only through its approval process. Use Submit for Approval.'
    if status in NEEDS_APPROVAL_FOR and needs_approval(quote_lines(session, quote.id)) and not approved_since_change(session, quote):
        return (f"This quote has a line discount above {APPROVAL_DISCOUNT_THRESHOLD:g}%, so it must be approved before it can be "
                f"{status.lower()}. Click Submit for Approval.")
    return None


def submit_error(session: Session, quote: Quote, user: User) -> str | None:
    if pending(session, quote.id):
        return IN_PROCESS
    if not needs_approval(quote_lines(session, quote.id)) or approved_since_change(session, quote):
        return NO_PROCESS
    owner = session.get(User, quote.owner_id) if quote.owner_id else None
    if owner is None or not owner.manager_id:
        return NO_MANAGER
    return None


def decide_error(step: ApprovalRequest, user: User) -> str | None:
    """Why ``user`` may not approve or reject this step now (None: they may)."""
    if step.status != "Pending":
        return f"This approval request was already {step.status.lower()}."
    if user.id != step.approver_id and user.role != Role.admin:
        return "You can't approve or reject this request: it's assigned to another approver."
    return None


def decide(session: Session, step: ApprovalRequest, quote: Quote, user: User, approve: bool, comments: str, clock: WorldClock) -> None:
    """Approve or reject a pending step (checked with :func:`decide_error`): the step and its quote."""
    from .common import stamp

    step.status, step.decided_at, step.comments = ("Approved" if approve else "Rejected"), clock.now, comments or None
    quote.status = "Approved" if approve else "Rejected"
    stamp(quote, user, clock)
    session.add(step)
    session.add(quote)


def items_to_approve(session: Session, user: User, limit: int | None = None) -> list[tuple[ApprovalRequest, Quote]]:
    q = (select(ApprovalRequest, Quote).join(Quote, Quote.id == ApprovalRequest.quote_id)
         .where(ApprovalRequest.approver_id == user.id, ApprovalRequest.status == "Pending")
         .order_by(ApprovalRequest.submitted_at.desc(), ApprovalRequest.id.desc()))
    return list(session.exec(q.limit(limit) if limit else q).all())

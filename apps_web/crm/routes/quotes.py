"""Quotes: New Quote from an opportunity, the quote page (status, lines, totals, Approval History),
Edit Lines, Create PDF (a printable quote), Submit for Approval, and the approver's Items to Approve
with Approve / Reject."""

from __future__ import annotations

from datetime import timedelta

from fastapi import APIRouter, Request
from fastapi.responses import Response

from sqlmodel import select

from ...deps import ClockDep, CurrentUser, SessionDep
from ...ui import redirect, render
from ..common import get_or_404, stamp, users_by_id
from ..models import Account, ApprovalRequest, Opportunity, Product, Quote
from ..picklists import APPROVAL_DISCOUNT_THRESHOLD, QUOTE_STATUSES
from ..products import LineInput, check_line, grid_errors, line_total
from ..quotes import (approvals, copy_lines, decide, decide_error, items_to_approve, needs_approval, next_number, pending, quote_lines, refresh_totals,
                      status_error, submit_error)
from ..record import raw
from ..validation import REQUIRED, Invalid, parse_date

from .records import load

router = APIRouter()


def _quote(session, quote_id: int) -> Quote:
    return get_or_404(session, Quote, quote_id, "Quote")


def quote_context(session, quote: Quote) -> dict:
    lines = quote_lines(session, quote.id)
    products = {p.id: p for p in session.exec(select(Product)).all()} if lines else {}
    return {
        "quote": quote, "lines": lines, "products": products, "opp": session.get(Opportunity, quote.opportunity_id),
        "account": session.get(Account, quote.account_id) if quote.account_id else None, "steps": approvals(session, quote.id),
        "users": users_by_id(session), "statuses": QUOTE_STATUSES, "needs_approval": needs_approval(lines),
        "threshold": APPROVAL_DISCOUNT_THRESHOLD, "pending": pending(session, quote.id),
    }


def render_quote(request: Request, session, quote: Quote, status_code: int = 200, **extra) -> Response:
    return render(request, "crm/quote.html", status_code=status_code, **quote_context(session, quote), **extra)


# -- New Quote --------------------------------------------------------------------------------------------
@router.get("/opportunities/{record_id:int}/quotes/new", include_in_schema=False)
def new_quote(request: Request, record_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    opp = load(session, "opportunity", record_id, "edit")
    values = {"name": opp.name + " Quote", "expiration_date": raw(clock.today + timedelta(days=30)), "description": ""}
    return render(request, "crm/quote_new.html", opp=opp, values=values, errors={})


@router.post("/opportunities/{record_id:int}/quotes", include_in_schema=False)
async def create_quote(request: Request, record_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    opp = load(session, "opportunity", record_id, "edit")
    form = await request.form()
    values = {k: str(form.get(k, "")).strip() for k in ("name", "expiration_date", "description")}
    errors: dict[str, str] = {}
    if not values["name"]:
        errors["name"] = REQUIRED
    expiration = None
    if values["expiration_date"]:
        try:
            expiration = parse_date(values["expiration_date"])
        except Invalid as exc:
            errors["expiration_date"] = str(exc)
        else:
            if expiration < clock.today:
                errors["expiration_date"] = "Expiration Date can't be in the past."
    if errors:
        return render(request, "crm/quote_new.html", status_code=422, opp=opp, values=values, errors=errors)
    quote = Quote(quote_number=next_number(session), name=values["name"][:255], opportunity_id=opp.id, account_id=opp.account_id,
                  pricebook_id=opp.pricebook_id, status="Draft", expiration_date=expiration, description=values["description"] or None,
                  owner_id=opp.owner_id or user.id)
    stamp(quote, user, clock, created=True)
    session.add(quote)
    session.flush()
    copy_lines(session, opp, quote)
    refresh_totals(session, quote)
    session.commit()
    return redirect(request, f"/quotes/{quote.id}", toast=f'Quote "{quote.name}" was created.')


# -- the quote page ------------------------------------------------------------------------------------------
@router.get("/quotes/{quote_id:int}", include_in_schema=False)
def quote_page(request: Request, quote_id: int, session: SessionDep, user: CurrentUser) -> Response:
    return render_quote(request, session, _quote(session, quote_id))


@router.post("/quotes/{quote_id:int}/status", include_in_schema=False)
async def set_status(request: Request, quote_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    quote = _quote(session, quote_id)
    status = str((await request.form()).get("status", ""))
    error = status_error(session, quote, status)
    if error:
        return render_quote(request, session, quote, status_code=422, status_error=error, status_value=status)
    if status != quote.status:
        quote.status = status
        stamp(quote, user, clock)
        session.add(quote)
        session.commit()
    return redirect(request, f"/quotes/{quote.id}", toast=f'Status changed to "{status}".')


def _line_rows(session, quote: Quote, form=None) -> list[LineInput]:
    products = {p.id: p.name for p in session.exec(select(Product)).all()}
    out = []
    for li in quote_lines(session, quote.id):
        key = str(li.id)
        if form is None:
            values = {"quantity": raw(li.quantity), "unit_price": raw(li.unit_price), "discount": raw(li.discount), "description": li.description or ""}
        else:
            values = {c: str(form.get(f"{c}_{key}", "")).strip() for c in ("quantity", "unit_price", "discount", "description")}
        out.append(LineInput(key, products.get(li.product_id, "Product"), li.list_price, values))
    return out


def _grid(request, session, quote, rows, errors, status_code=200) -> Response:
    opp = session.get(Opportunity, quote.opportunity_id)
    return render(request, "crm/products_grid.html", status_code=status_code, opp=opp, book=None, rows=rows, mode="edit", errors=errors,
                  heading=f"Edit Quote Line Items: {quote.name}", action=f"/quotes/{quote.id}/lines/edit", back=f"/quotes/{quote.id}")


@router.get("/quotes/{quote_id:int}/lines/edit", include_in_schema=False)
def edit_lines(request: Request, quote_id: int, session: SessionDep, user: CurrentUser) -> Response:
    quote = _quote(session, quote_id)
    if pending(session, quote.id):
        return redirect(request, f"/quotes/{quote.id}", toast="This quote is locked while it's pending approval.", kind="error")
    return _grid(request, session, quote, _line_rows(session, quote), [])


@router.post("/quotes/{quote_id:int}/lines/edit", include_in_schema=False)
async def save_lines(request: Request, quote_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    quote = _quote(session, quote_id)
    if pending(session, quote.id):
        return redirect(request, f"/quotes/{quote.id}", toast="This quote is locked while it's pending approval.", kind="error")
    rows = [check_line(r) for r in _line_rows(session, quote, await request.form())]
    if any(r.errors for r in rows):
        return _grid(request, session, quote, rows, grid_errors(rows), 422)
    lines = {str(li.id): li for li in quote_lines(session, quote.id)}
    changed = False
    for row in rows:
        li, c = lines[row.key], row.cleaned
        new = {"quantity": c["quantity"], "unit_price": c["unit_price"], "discount": c["discount"], "description": row.values.get("description") or None}
        if any(getattr(li, k) != v for k, v in new.items()):
            for k, v in new.items():
                setattr(li, k, v)
            li.total_price = line_total(li.quantity, li.unit_price, li.discount)
            session.add(li)
            changed = True
    if changed:
        refresh_totals(session, quote)
        if quote.status in ("Approved", "Rejected", "Presented", "Needs Review"):
            quote.status = "Draft"  # new prices: an earlier approval no longer covers them
            for step in approvals(session, quote.id):
                if step.status == "Approved":
                    step.status = "Recalled"
                    session.add(step)
        stamp(quote, user, clock)
        session.add(quote)
    session.commit()
    return redirect(request, f"/quotes/{quote.id}", toast="Your changes are saved." if changed else "No changes to save.")


@router.get("/quotes/{quote_id:int}/pdf", include_in_schema=False)
def quote_pdf(request: Request, quote_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    """Create PDF: the quote as the customer sees it, laid out for the browser's print to PDF."""
    quote = _quote(session, quote_id)
    owner = session.get(type(user), quote.owner_id) if quote.owner_id else None
    return render(request, "crm/quote_print.html", **quote_context(session, quote), owner=owner, today=clock.today)


# -- approval --------------------------------------------------------------------------------------------------
@router.post("/quotes/{quote_id:int}/submit", include_in_schema=False)
async def submit(request: Request, quote_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    quote = _quote(session, quote_id)
    comments = str((await request.form()).get("comments", "")).strip()
    error = submit_error(session, quote, user)
    if error:
        return render_quote(request, session, quote, status_code=422, submit_error=error, submit_comments=comments)
    owner = session.get(type(user), quote.owner_id)
    session.add(ApprovalRequest(quote_id=quote.id, status="Pending", submitter_id=user.id, approver_id=owner.manager_id,
                                submitted_at=clock.now, submit_comments=comments or None))
    quote.status = "In Review"
    stamp(quote, user, clock)
    session.add(quote)
    session.commit()
    return redirect(request, f"/quotes/{quote.id}", toast="Quote was submitted for approval.")


@router.get("/approvals", include_in_schema=False)
def approvals_list(request: Request, session: SessionDep, user: CurrentUser) -> Response:
    return render(request, "crm/approvals.html", items=items_to_approve(session, user), users=users_by_id(session))


def _step(session, step_id: int) -> ApprovalRequest:
    return get_or_404(session, ApprovalRequest, step_id, "Approval request")


@router.get("/approvals/{step_id:int}", include_in_schema=False)
def approval_page(request: Request, step_id: int, session: SessionDep, user: CurrentUser) -> Response:
    step = _step(session, step_id)
    return render(request, "crm/approval.html", step=step, **quote_context(session, _quote(session, step.quote_id)), me=user)


async def _decide(request: Request, step_id: int, session, user, clock, approve: bool) -> Response:
    step = _step(session, step_id)
    quote = _quote(session, step.quote_id)
    comments = str((await request.form()).get("comments", "")).strip()
    error = decide_error(step, user)
    if error:
        return render(request, "crm/approval.html", status_code=403 if "assigned" in error else 422, step=step,
                      **quote_context(session, quote), me=user, decide_error=error, comments=comments)
    decide(session, step, quote, user, approve, comments, clock)
    session.commit()
    return redirect(request, "/approvals", toast=f'Quote "{quote.name}" was {"approved" if approve else "rejected"}.')


@router.post("/approvals/{step_id:int}/approve", include_in_schema=False)
async def approve(request: Request, step_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    return await _decide(request, step_id, session, user, clock, True)


@router.post("/approvals/{step_id:int}/reject", include_in_schema=False)
async def reject(request: Request, step_id: int, session: SessionDep, user: CurrentUser, clock: ClockDep) -> Response:
    return await _decide(request, step_id, session, user, clock, False)



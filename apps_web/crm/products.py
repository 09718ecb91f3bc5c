"""Opportunity products: price book entries on a deal, their line totals and the amount they roll up to.

A line's total price is quantity x sales price less the discount (a percent), as Salesforce computes
it; an opportunity with products has the sum of their totals as its amount, read-only on the page.
The same checks serve the add and edit grids of the UI and the JSON API.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select

from .models import Opportunity, OpportunityLineItem, Pricebook, PricebookEntry, Product
from .validation import REQUIRED, Invalid, parse_number

AMOUNT_LOCKED = "This opportunity has products, so its amount is the sum of their total prices. Edit the products instead."


def line_total(quantity: float, unit_price: float, discount: float | None) -> float:
    return round(quantity * unit_price * (1 - (discount or 0) / 100), 2)


def line_count(session: Session, opportunity_id: int) -> int:
    return session.exec(select(func.count()).select_from(OpportunityLineItem).where(OpportunityLineItem.opportunity_id == opportunity_id)).one()


def line_items(session: Session, opportunity_id: int) -> list[tuple[OpportunityLineItem, Product]]:
    q = (select(OpportunityLineItem, Product).join(Product, Product.id == OpportunityLineItem.product_id)
         .where(OpportunityLineItem.opportunity_id == opportunity_id).order_by(OpportunityLineItem.sort_order, OpportunityLineItem.id))
    return list(session.exec(q).all())


def roll_up(session: Session, opp: Opportunity) -> None:
    """Set the amount from the lines (an opportunity without lines keeps its last amount, editable again)."""
    session.flush()
    total = session.exec(select(func.sum(OpportunityLineItem.total_price)).where(OpportunityLineItem.opportunity_id == opp.id)).one()
    if total is not None:
        opp.amount = round(float(total), 2)
    session.add(opp)


def active_pricebooks(session: Session) -> list[Pricebook]:
    return list(session.exec(select(Pricebook).where(Pricebook.is_active).order_by(Pricebook.is_standard.desc(), Pricebook.name)).all())


def entries(session: Session, pricebook_id: int, q: str = "", ids: list[int] | None = None) -> list[tuple[PricebookEntry, Product]]:
    """The active products of a price book (searched by name, code or family), by name."""
    query = (select(PricebookEntry, Product).join(Product, Product.id == PricebookEntry.product_id)
             .where(PricebookEntry.pricebook_id == pricebook_id, PricebookEntry.is_active, Product.is_active))
    if ids is not None:
        query = query.where(PricebookEntry.id.in_(ids))
    if q:
        like = f"%{q.strip()}%"
        query = query.where(Product.name.ilike(like) | Product.product_code.ilike(like) | Product.family.ilike(like))
    return list(session.exec(query.order_by(Product.name)).all())


@dataclass
class LineInput:
    """One row of an add or edit grid: the raw strings typed, and the errors per column."""

    key: str  # the entry id (add) or line id (edit): names the row's inputs
    product: str
    list_price: float | None
    values: dict[str, str]
    errors: dict[str, str] = field(default_factory=dict)
    cleaned: dict[str, Any] = field(default_factory=dict)


def check_line(row: LineInput) -> LineInput:
    """Quantity (required, above zero), Sales Price (required, not negative), Discount (0 to 100 percent)."""
    v, errors, cleaned = row.values, row.errors, row.cleaned
    for name, label in (("quantity", "Quantity"), ("unit_price", "Sales Price"), ("discount", "Discount")):
        text = v.get(name, "").strip().replace("$", "").replace("%", "").replace(",", "")
        if not text:
            if name != "discount":
                errors[name] = REQUIRED
            else:
                cleaned[name] = None
            continue
        try:
            value = float(parse_number(text, integer=False))
        except Invalid:
            errors[name] = f"{label}: enter a number."
            continue
        if name == "quantity" and value <= 0:
            errors[name] = "Quantity must be greater than zero."
        elif name == "unit_price" and value < 0:
            errors[name] = "Sales Price can't be negative."
        elif name == "discount" and not 0 <= value <= 100:
            errors[name] = "Discount must be between 0% and 100%."
        else:
            cleaned[name] = value
    return row


def grid_errors(rows: list[LineInput]) -> list[str]:
    """The page-level summary Salesforce shows above a grid with bad rows."""
    bad = [r for r in rows if r.errors]
    if not bad:
        return []
    return [f"{r.product}: " + " ".join(r.errors.values()) for r in bad]

"""Accounts payable on the Finance team site: vendor invoices as PDF files (what a supplier emails) and
the *AP Tracker* workbook finance keeps of them. The tracker lists the invoices entered so far; the
newest ones (received this week) are not in it yet, as in a real AP inbox.

Generated last and from its own RNG namespace, so the rest of the drive is the same with or without it
(its rows are appended after every other row)."""

from __future__ import annotations

from datetime import timedelta

from ...world.seeding import SeedContext
from ..pdf import MARGIN, WIDTH, Pdf
from .builder import DriveBuilder

# (vendor, city line, what they bill for: (description, unit, low price, high price))
VENDORS = (
    ("Northgate Office Supply Co.", "1840 Commerce Pkwy, Columbus, OH 43215", (("Copy paper, letter, 10-ream case", "case", 42, 58), ("Toner cartridge, black, high yield", "each", 89, 149), ("Desk organizer set", "set", 18, 35))),
    ("Brightline Facilities Services", "77 Harbor St, Suite 300, Boston, MA 02110", (("Janitorial services, monthly", "month", 2400, 4800), ("Carpet deep clean, per floor", "floor", 650, 1100), ("Window washing, exterior", "visit", 900, 1600))),
    ("Cobalt Ridge Hosting", "500 Data Center Dr, Ashburn, VA 20147", (("Dedicated server, 32 vCPU", "month", 1150, 1900), ("Backup storage, per TB", "TB", 45, 80), ("Managed firewall", "month", 380, 620))),
    ("Meridian & Shaw LLP", "1 Liberty Plaza, 24th Floor, New York, NY 10006", (("Legal services: contract review", "hour", 395, 640), ("Legal services: employment advice", "hour", 350, 520))),
    ("Summit Print & Design", "412 Pine Ave, Denver, CO 80202", (("Trade show banner, 8 ft", "each", 240, 420), ("Brochures, tri-fold, 1,000 ct", "lot", 310, 560), ("Business cards, 500 ct", "box", 38, 65))),
    ("Keystone Catering Company", "9 Market Sq, Pittsburgh, PA 15222", (("Working lunch, per person", "person", 18, 32), ("Coffee service, half day", "event", 140, 260))),
    ("Atlas Guard Security Systems", "2300 Industrial Blvd, Dallas, TX 75207", (("Alarm monitoring, quarterly", "quarter", 540, 900), ("Badge reader maintenance", "visit", 275, 450), ("Replacement access badges", "each", 6, 12))),
    ("Pinecrest Staffing Partners", "60 W Madison St, Chicago, IL 60602", (("Temporary staff: accounts clerk", "hour", 34, 52), ("Temporary staff: receptionist", "hour", 26, 38))),
    ("Vantage Telecom Services", "150 Tower Rd, Atlanta, GA 30303", (("Business fiber 1 Gbps", "month", 780, 1400), ("SIP trunk channels", "channel", 18, 30), ("Conference bridge minutes", "1,000 min", 22, 40))),
)
TERMS = ((30, "Net 30"), (15, "Net 15"), (45, "Net 45"))
TAX = (("", 0.0), ("Sales tax 6.25%", 0.0625), ("Sales tax 8%", 0.08), ("", 0.0))


def money(v: float) -> str:
    return f"${v:,.2f}"


def invoice_pdf(company: str, vendor: tuple, number: str, issued, due, terms: str, po: str, lines: list[tuple[str, str, float, float]],
                tax: tuple[str, float]) -> tuple[bytes, float]:
    """The invoice's PDF and its total due."""
    name, address, _items = vendor
    doc = Pdf(title=f"Invoice {number}")
    right = WIDTH - MARGIN
    doc.line(name, size=16, bold=True)
    doc.line(address, size=9, gray=0.35)
    doc.text(right, doc.y + 14, "INVOICE", size=20, bold=True, align="right", gray=0.25)
    doc.space(18)
    for label, value in (("Invoice number", number), ("Invoice date", f"{issued:%B} {issued.day}, {issued.year}"),
                         ("Due date", f"{due:%B} {due.day}, {due.year}"), ("Terms", terms), ("PO number", po)):
        doc.line([(MARGIN, label), (MARGIN + 110, value)], size=10)
    doc.space(12)
    doc.line("Bill to", size=10, bold=True)
    doc.line(company, size=10)
    doc.line("Attn: Accounts Payable", size=10)
    doc.space(16)
    cols = (MARGIN, 330, 400, right)
    doc.line([(cols[0], "Description"), (cols[1], "Qty"), (cols[2] + 70, "Unit price"), (cols[3], "Amount")], size=10, bold=True, right=(cols[1], cols[2] + 70, cols[3]))
    doc.rule(doc.y - 5)
    doc.space(4)
    subtotal = 0.0
    for desc, unit, qty, price in lines:
        amount = round(qty * price, 2)
        subtotal += amount
        q = f"{qty:g} {unit}" if unit not in ("each",) else f"{qty:g}"
        doc.line([(cols[0], desc), (cols[1], q), (cols[2] + 70, money(price)), (cols[3], money(amount))], size=10, gap=1.7,
                 right=(cols[1], cols[2] + 70, cols[3]))
    doc.rule(doc.y - 7)
    doc.space(6)
    subtotal = round(subtotal, 2)
    tax_amount = round(subtotal * tax[1], 2)
    total = round(subtotal + tax_amount, 2)
    doc.line([(380, "Subtotal"), (right, money(subtotal))], size=10, right=(right,))
    if tax[1]:
        doc.line([(380, tax[0]), (right, money(tax_amount))], size=10, right=(right,))
    doc.line([(380, "Total due"), (right, money(total))], size=12, bold=True, right=(right,), gap=1.8)
    doc.space(24)
    doc.paragraph(f"Please remit payment by {due:%B} {due.day}, {due.year}, quoting invoice {number} on your remittance. "
                  "Late payments may incur a finance charge of 1.5% per month. Questions about this invoice: billing@"
                  + "".join(ch for ch in name.lower().split()[0] if ch.isalpha()) + ".com.", size=9, gray=0.35)
    return doc.to_bytes(), total


def build_invoices(b: DriveBuilder, ctx: SeedContext, people: list[dict]) -> None:
    site_row = next((s for s in b.rows["drive_site"] if s["kind"] == "team" and s["name"] == "Finance Team"), None)
    if site_row is None:
        return
    rng = ctx.random("drive.invoices")
    site, root, owner = site_row["id"], site_row["root_id"], site_row["owner_id"]
    finance = [p for p in people if p["department"] == "Finance"]
    clerk = next((p for p in finance if p["manager_id"] is not None), finance[0] if finance else {"id": owner})
    now = ctx.clock.now
    folder = b.folder(site, root, "Accounts Payable", owner, now - timedelta(days=120))
    vendors = rng.sample(VENDORS, 6)
    invoices = []
    for n, vendor in enumerate(vendors):
        issued = (now - timedelta(days=rng.randint(3, 6) if n >= 4 else rng.randint(12, 55))).replace(hour=0, minute=0, second=0, microsecond=0)
        days, terms = rng.choice(TERMS)
        number = rng.choice(("INV-{}", "{}", "A-{}", "INV{}")).format(rng.randint(10000, 98999))
        po = f"PO-{now.year}-{rng.randint(1000, 4999)}"
        items = rng.sample(vendor[2], min(len(vendor[2]), rng.randint(1, 3)))
        lines = []
        for desc, unit, lo, hi in items:
            qty = rng.choice((1, 1, 2, 3, 4, 6, 10, 12)) if hi < 200 else rng.choice((1, 1, 2, 3))
            if unit == "hour":
                qty = rng.choice((2.5, 4, 6.5, 8, 11.5))
            price = round(rng.uniform(lo, hi), 2) if hi < 100 else float(rng.randrange(lo, hi, 5))
            lines.append((desc, unit, qty, price))
        data, total = invoice_pdf(ctx.company, vendor, number, issued, issued + timedelta(days=days), terms, po, lines, rng.choice(TAX))
        fname = f"{vendor[0].split(' ')[0].rstrip(',&')} Invoice {number}.pdf"
        at = issued + timedelta(days=1, hours=rng.randint(8, 16), minutes=rng.randint(0, 59))
        item = b.item(site, folder, fname, "file", clerk["id"], at, content_type="application/pdf", data=data, size=len(data),
                      text=f"Invoice {number} {vendor[0]} Total due {money(total)}")
        b.add("drive_version", item_id=item, number=1, content="{}", size=len(data), author_id=clerk["id"], created_at=at, note="")
        b.add("drive_activity", item_id=item, user_id=clerk["id"], action="created", detail=f"Uploaded “{fname}”", at=at)
        invoices.append((vendor[0], number, issued, issued + timedelta(days=days), total))
    cells = {"A1": "Vendor", "B1": "Invoice No.", "C1": "Invoice date", "D1": "Due date", "E1": "Amount", "F1": "Status"}
    entered = sorted(invoices[:4], key=lambda i: i[2])
    for r, (vendor, number, issued, due, total) in enumerate(entered, start=2):
        cells.update({f"A{r}": vendor, f"B{r}": number, f"C{r}": issued.date().isoformat(), f"D{r}": due.date().isoformat(),
                      f"E{r}": f"{total:.2f}".rstrip("0").rstrip("."), f"F{r}": rng.choice(("Approved", "Paid", "Pending approval"))})
    last = len(entered) + 1
    cells.update({"D9": "Total entered", "E9": f"=SUM(E2:E{max(last, 8)})"})
    b.workbook(site, folder, "AP Tracker", owner, now - timedelta(days=2, hours=3), [("Invoices", cells)])

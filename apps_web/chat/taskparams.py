"""Task parameter hooks over the chat (``python: apps_web.chat.taskparams:NAME``): the contents of
files a task shares in a conversation, built from the CRM records they are about."""

from __future__ import annotations

import csv
import io


def _csv(rows: list[list]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def quote_versions(ctx) -> dict:  # noqa: ANN001
    """Two versions of a quote for the opportunity ``opp`` (its line items): the first at the CRM's
    prices, the second with ``pct`` percent off its first line only (as Finance approved it), so the
    second total is in no record but the file. Totals are whole dollars, as a quote shows them."""
    p = ctx.params
    lines = ctx.query("select p.name as product, li.quantity as qty, li.unit_price as price from crm_opportunity_line_item li "
                      "join crm_product p on p.id = li.product_id where li.opportunity_id = {{ opp.id }} order by li.sort_order, li.id")
    pct = float(p["pct"])
    header = ["Product", "Quantity", "Unit price", "Discount", "Line total"]
    v1, v2, t1, t2 = [header], [header], 0, 0
    for i, ln in enumerate(lines):
        qty, price = int(ln["qty"]), round(float(ln["price"]))
        full = qty * price
        off = pct if i == 0 else 0.0
        net = round(full * (1 - off / 100))
        v1.append([ln["product"], qty, f"{price:.2f}", "0%", f"{full:.2f}"])
        v2.append([ln["product"], qty, f"{price:.2f}", f"{off:g}%", f"{net:.2f}"])
        t1, t2 = t1 + full, t2 + net
    v1.append(["Total", "", "", "", f"{t1:.2f}"])
    v2.append(["Total", "", "", "", f"{t2:.2f}"])
    first_net = round(int(lines[0]["qty"]) * round(float(lines[0]["price"])) * (1 - pct / 100)) if lines else 0
    return {"v1": _csv(v1), "v2": _csv(v2), "total_v1": t1, "total_v2": t2, "all_lines": round(t1 * (1 - pct / 100)),
            "first_line": first_net, "lines": len(lines)}

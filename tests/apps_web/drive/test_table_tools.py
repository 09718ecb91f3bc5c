"""Tables through the tools derived from the drive's API (what an MCP client or the CLI calls): the
schema describes table blocks, a seeded proposal's pricing table is read cell by cell and matches the
CRM's products, and a row written through the tool lands in the world as the editor would store it."""

from __future__ import annotations

import json

import pytest

from apps_web.host import create_host
from apps_web.tools import ToolSession
from sandbox.loop import background_loop

from .conftest import rows


def run(coro):  # noqa: ANN001, ANN201
    return background_loop().run(coro)


@pytest.fixture(scope="module")
def tools(store, world):  # noqa: ANN001
    """A tool session as the author of a proposal with a pricing table, and that proposal's id."""
    item, owner = world.one("SELECT i.id, u.username FROM drive_item i JOIN identity_user u ON u.id = i.owner_id WHERE i.name LIKE 'Proposal - %' "
                            "AND EXISTS (SELECT 1 FROM drive_block b WHERE b.item_id = i.id AND b.style = 'Table') ORDER BY i.id LIMIT 1")
    session = ToolSession.for_host(create_host(store, secret="test-secret"), world.id, owner, apps=["drive"])
    yield session, item
    run(session.aclose())


def test_the_schema_describes_table_blocks(tools) -> None:  # noqa: ANN001
    session, _item = tools
    put = session.tools["drive_put_document"]
    block = put.input_schema["properties"]["blocks"]["items"]
    assert "Table" in block["properties"]["style"]["enum"]
    cell = block["properties"]["rows"]["items"]["items"]
    assert cell["items"]["required"] == ["text"] and "bold" in cell["items"]["properties"]
    out = session.tools["drive_get_document"].output_schema
    assert out["properties"]["blocks"]["items"]["properties"]["rows"]["items"]["items"] == cell


def test_a_tool_reads_a_seeded_pricing_table_that_matches_the_crm(tools, world) -> None:  # noqa: ANN001
    session, item = tools
    got = run(session.call("drive_get_document", {"item_id": item}))
    assert got.ok, got.text()
    table = next(b for b in got.data["blocks"] if b["style"] == "Table")
    cells = [["".join(r["text"] for r in cell) for cell in row] for row in table["rows"]]
    assert table["rows"][0][0][0].get("bold") and cells[-1][0] == "Total"
    opp, amount = world.one("SELECT o.id, o.amount FROM crm_opportunity o JOIN drive_item i ON i.crm_opportunity_id = o.id WHERE i.id = ?", item)
    items = rows(world, "SELECT p.name, l.quantity, l.total_price FROM crm_opportunity_line_item l JOIN crm_product p ON p.id = l.product_id "
                        "WHERE l.opportunity_id = ? ORDER BY l.sort_order, l.id", opp)
    assert [(r[0], r[-1]) for r in cells[1:-1]] == [(name, f"${total:,.2f}") for name, _q, total in items]
    assert cells[-1][-1] == f"${amount:,.2f}"
    qty_col = next(i for i, h in enumerate(cells[0]) if h in ("Quantity", "Qty"))
    assert [r[qty_col] for r in cells[1:-1]] == [f"{q:,.0f}" for _n, q, _t in items]


def test_a_tool_writes_a_table_row_stored_as_the_editor_stores_it(tools, world) -> None:  # noqa: ANN001
    session, item = tools
    blocks = run(session.call("drive_get_document", {"item_id": item})).data["blocks"]
    at = next(i for i, b in enumerate(blocks) if b["style"] == "Table")
    width = len(blocks[at]["rows"][0])
    new_row = [[{"text": "Admin Certification"}], *[[] for _ in range(width - 2)], [{"text": "$2,400.00", "bold": True}]]
    blocks[at]["rows"].insert(-1, new_row)
    done = run(session.call("drive_put_document", {"item_id": item, "blocks": blocks}))
    assert done.ok, done.text()
    assert done.data["blocks"][at]["rows"][-2] == new_row
    text, runs = world.one("SELECT text, runs FROM drive_block WHERE item_id = ? AND position = ?", item, at)
    assert text.split("\n")[-2] == "Admin Certification" + "\t" * (width - 1) + "$2,400.00"
    assert json.loads(runs)[-2][-1] == [{"text": "$2,400.00", "bold": True}]
    assert "Admin Certification" in world.one("SELECT text FROM drive_item WHERE id = ?", item)[0]  # search reads it
    # A malformed table is refused in the API's words, and nothing changes.
    bad = run(session.call("drive_put_document", {"item_id": item, "blocks": [{"style": "Table", "rows": []}]}))
    assert not bad.ok and "needs at least one row" in bad.error
    assert world.one("SELECT count(*) FROM drive_block WHERE item_id = ?", item)[0] == len(blocks)

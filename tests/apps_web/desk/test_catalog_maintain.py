"""Service Catalog > Maintain Items in real Chromium, checked against the database: a catalog
administrator edits an item and its variables (a bad price and a Select Box without choices are
refused with nothing saved), adds a variable that the order page then asks for, and creates an item;
an agent without catalog_admin gets the security constraints page for the list and the form."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from .conftest import agent
from .test_acl import api, signed_in

DENIED = "Security constraints prevent access to requested page"


@pytest.fixture(scope="module")
def world(live_host):
    return live_host.world()


def catalog_admin(world) -> str:  # noqa: ANN001
    """A catalog administrator who is not an admin (the Hardware group's lead)."""
    return world.one("""SELECT u.username FROM identity_user u JOIN desk_user_role r ON r.user_id = u.id WHERE r.role = 'catalog_admin'
                        AND NOT EXISTS (SELECT 1 FROM desk_user_role a WHERE a.user_id = u.id AND a.role = 'admin') ORDER BY u.id""")[0]


def test_catalog_admin_edits_an_item_and_its_variables(browser, live_host, world) -> None:
    context, page, errors = signed_in(browser, live_host, world, catalog_admin(world))
    item_id, before = world.one("SELECT id, variables FROM desk_catalog_item WHERE name = 'Monitor'")
    page.goto(live_host.url("desk", "/"))
    page.get_by_role("button", name="All", exact=True).click()
    page.get_by_label("Filter navigator").fill("maintain")
    page.get_by_role("link", name="Maintain Items").click()
    page.get_by_role("link", name="Monitor", exact=True).click()
    form = page.get_by_role("form", name="Catalog item form")
    expect(form.get_by_label("Choices (Size)")).to_have_value("24 inch\n27 inch | +120\n34 inch ultrawide | +380")
    # Invalid: a price that is no amount, and a new Select Box without choices. Nothing is saved.
    form.get_by_label("Price").fill("about 300")
    form.get_by_label("Question (new variable)").fill("Stand")
    form.get_by_label("Type (new variable)").select_option("Select Box")
    form.get_by_role("button", name="Update").click()
    form = page.get_by_role("form", name="Catalog item form")
    expect(form.get_by_text("Price must be an amount")).to_be_visible()
    expect(form.get_by_text("A Select Box needs its choices")).to_be_visible()
    assert world.one("SELECT price, variables FROM desk_catalog_item WHERE id = ?", item_id) == (320.0, before)
    # Corrected: the price, the new variable's choices, the 34 inch choice removed.
    form.get_by_label("Price").fill("299.00")
    form.get_by_label("Choices (new variable)").fill("Fixed\nHeight-adjustable | +85")
    form.get_by_label("Mandatory (new variable)").check()
    form.get_by_label("Choices (Size)").fill("24 inch\n27 inch | +120")
    form.get_by_role("button", name="Update").click()
    expect(page.get_by_role("status")).to_contain_text("Catalog item Monitor updated")
    price, variables = world.one("SELECT price, variables FROM desk_catalog_item WHERE id = ?", item_id)
    assert price == 299.0
    assert json.loads(variables) == [
        {"name": "size", "label": "Size", "type": "choice", "mandatory": True, "choices": [{"value": "24 inch", "price": 0}, {"value": "27 inch", "price": 120}]},
        {"name": "stand", "label": "Stand", "type": "choice", "mandatory": True, "choices": [{"value": "Fixed", "price": 0}, {"value": "Height-adjustable", "price": 85}]},
    ]
    # The order page asks for the new variable and prices it.
    page.goto(live_host.url("desk", f"/sc_cat_item.do?sys_id={item_id}"))
    order = page.get_by_role("form", name="Monitor")
    expect(order.get_by_label("Stand")).to_contain_text("Height-adjustable (+$85)")
    # A new item from the list's New button.
    page.goto(live_host.url("desk", "/sc_cat_item_list.do"))
    page.get_by_role("link", name="New", exact=True).click()
    form = page.get_by_role("form", name="Catalog item form")
    form.get_by_role("textbox", name="Name", exact=True).fill("Ergonomic Keyboard")
    form.get_by_label("Category").select_option("Peripherals")
    form.get_by_label("Price").fill("89")
    form.get_by_label("Short description").fill("A split keyboard for <b>wrist</b> comfort.")
    form.get_by_label("Question (new variable)").fill("Layout")
    form.get_by_label("Type (new variable)").select_option("Select Box")
    form.get_by_label("Choices (new variable)").fill("US\nUK | +5")
    form.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("status")).to_contain_text("Catalog item Ergonomic Keyboard created")
    row = world.one("SELECT category, price, active, short_description, variables FROM desk_catalog_item WHERE name = 'Ergonomic Keyboard'")
    assert row[:4] == ("Peripherals", 89.0, 1, "A split keyboard for <b>wrist</b> comfort.")
    assert [v["name"] for v in json.loads(row[4])] == ["layout"]
    expect(page.get_by_role("heading", name="Ergonomic Keyboard")).to_be_visible()
    expect(page.get_by_label("Short description")).to_have_value("A split keyboard for <b>wrist</b> comfort.")
    # The same name again is refused.
    page.goto(live_host.url("desk", "/sc_cat_item_maintain.do?sys_id=-1"))
    form = page.get_by_role("form", name="Catalog item form")
    form.get_by_role("textbox", name="Name", exact=True).fill("ergonomic keyboard")
    form.get_by_label("Category").select_option("Peripherals")
    form.get_by_label("Short description").fill("Duplicate")
    form.get_by_role("button", name="Submit").click()
    expect(page.get_by_role("form", name="Catalog item form").get_by_text("already exists")).to_be_visible()
    assert world.one("SELECT count(*) FROM desk_catalog_item WHERE lower(name) = 'ergonomic keyboard'")[0] == 1
    context.close()
    assert not errors, errors


def test_maintain_items_is_refused_without_catalog_admin(browser, live_host, world) -> None:
    context, page, errors = signed_in(browser, live_host, world, agent(world)[0])
    item_id = world.one("SELECT id FROM desk_catalog_item WHERE name = 'Headset'")[0]
    for path in ("/sc_cat_item_list.do", f"/sc_cat_item_maintain.do?sys_id={item_id}", "/sc_cat_item_maintain.do?sys_id=-1"):
        response = page.goto(live_host.url("desk", path))
        assert response is not None and response.status == 403
        expect(page.get_by_text(DENIED)).to_be_visible()
    page.goto(live_host.url("desk", "/"))
    page.get_by_role("button", name="All", exact=True).click()
    expect(page.get_by_role("link", name="Maintain Items")).to_have_count(0)
    # A forged post changes nothing; the catalog still orders.
    with api(live_host, world, agent(world)[0]) as client:
        response = client.post("/sc_cat_item_maintain.do", data={"sys_id": str(item_id), "name": "Headset", "price": "1"})
    assert response.status_code == 403
    assert world.one("SELECT price FROM desk_catalog_item WHERE id = ?", item_id)[0] == 140.0
    page.goto(live_host.url("desk", f"/sc_cat_item.do?sys_id={item_id}"))
    expect(page.get_by_role("button", name="Order Now")).to_be_visible()
    context.close()
    assert not errors, errors

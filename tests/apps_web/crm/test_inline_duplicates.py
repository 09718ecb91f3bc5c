"""Inline edit runs the duplicate rules as the Edit dialog does, in real Chromium: an Allow rule shows its
alert and saves nothing until Save is clicked again; a Block rule refuses every time. Each checks the database."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import write

ALERT = "It looks like you're creating a duplicate Contact. We recommend you use an existing record instead."


def two_contacts(world) -> tuple[tuple, tuple]:  # noqa: ANN001
    """A contact to edit and another one whose email it will be given."""
    rows = world.query("SELECT id, email FROM crm_contact WHERE email IS NOT NULL ORDER BY id LIMIT 2")
    return rows[0], rows[1]


def edit_email(page, email: str):  # noqa: ANN001, ANN201
    page.get_by_role("button", name="Edit Email").click()
    form = page.get_by_role("form", name="Edit Email")
    form.get_by_label("Email").fill(email)
    form.get_by_role("button", name="Save").click()
    return page.get_by_role("form", name="Edit Email")


def test_inline_edit_alerts_then_saves_on_second_save(fresh, live_host) -> None:
    world, page = fresh
    mine, other = two_contacts(world)
    page.goto(live_host.url("crm", f"/contacts/{mine[0]}"))
    form = edit_email(page, other[1].upper())
    expect(form.get_by_role("alert")).to_contain_text(ALERT)
    assert world.one("SELECT email FROM crm_contact WHERE id = ?", mine[0])[0] == mine[1]  # nothing saved
    form.get_by_role("button", name="Save").click()  # save again: past the alert
    expect(page.get_by_role("button", name="Edit Email")).to_be_visible()
    assert world.one("SELECT email FROM crm_contact WHERE id = ?", mine[0])[0] == other[1].upper()


def test_inline_edit_obeys_a_block_rule(fresh, live_host) -> None:
    world, page = fresh
    message = "This email belongs to another contact. Update that contact instead."
    write(world, "UPDATE crm_duplicate_rule SET action_on_edit = 'Block', alert_text = ? WHERE object_type = 'contact'", message)
    mine, other = two_contacts(world)
    page.goto(live_host.url("crm", f"/contacts/{mine[0]}"))
    form = edit_email(page, other[1])
    for _ in range(2):  # saving again does not get past a Block rule
        expect(form.get_by_role("alert")).to_contain_text(message)
        form.get_by_role("button", name="Save").click()
        form = page.get_by_role("form", name="Edit Email")
    expect(form.get_by_role("alert")).to_contain_text(message)
    assert world.one("SELECT email FROM crm_contact WHERE id = ?", mine[0])[0] == mine[1]
    # A value that matches nobody saves at once.
    form.get_by_label("Email").fill("no.match.anywhere@example.org")
    form.get_by_role("button", name="Save").click()
    expect(page.get_by_role("button", name="Edit Email")).to_be_visible()
    assert world.one("SELECT email FROM crm_contact WHERE id = ?", mine[0])[0] == "no.match.anywhere@example.org"

"""Signing out while impersonating ends the impersonation, in real Chromium against the live host:
the open ``desk_impersonation`` row is closed at the world's clock whether the admin signs out from
the desk's user menu or from another app (the sign-out round passes through the desk)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .test_acl import admin, signed_in


@pytest.fixture(scope="module")
def world(live_host):
    return live_host.world()


def impersonate(page, live_host, world) -> tuple[int, str]:  # noqa: ANN001
    """Impersonate a finance employee (no role) from the user menu; returns their id and name."""
    uid, name = world.one("""SELECT u.id, u.first_name || ' ' || u.last_name FROM identity_user u WHERE u.role = 'finance'
                             AND NOT EXISTS (SELECT 1 FROM desk_user_role r WHERE r.user_id = u.id) AND u.active ORDER BY u.id""")
    page.goto(live_host.url("desk", "/"))
    page.get_by_role("button", name=re.compile("^View profile")).click()
    page.get_by_role("menuitem", name="Impersonate user").click()
    dialog = page.get_by_role("dialog", name="Impersonate user")
    dialog.get_by_role("combobox", name="User").press_sequentially(name.split()[-1])
    dialog.get_by_role("listbox", name="User results").get_by_role("option", name=re.compile(re.escape(name))).first.click()
    dialog.get_by_role("button", name="Impersonate user", exact=True).click()
    expect(page.get_by_role("region", name="Impersonation")).to_contain_text(f"Impersonating {name}")
    return uid, name


def test_signing_out_of_the_desk_while_impersonating_closes_the_row(browser, live_host, world) -> None:
    admin_name, admin_id = admin(world)
    now = world.one("SELECT value FROM sandbox_meta WHERE key = 'clock'")[0]
    context, page, errors = signed_in(browser, live_host, world, admin_name)
    uid, _name = impersonate(page, live_host, world)
    assert world.query("SELECT impersonator_id, user_id FROM desk_impersonation WHERE ended_at IS NULL") == [(admin_id, uid)]
    page.get_by_role("button", name=re.compile("^View profile")).click()
    page.get_by_role("menuitem", name="Sign out").click()
    page.wait_for_url(re.compile(r"/signin\?signed_out=1"))
    rows = world.query("SELECT user_id, ended_at FROM desk_impersonation WHERE impersonator_id = ?", admin_id)
    assert len(rows) == 1 and rows[0][0] == uid and rows[0][1] is not None
    assert str(rows[0][1])[:16].replace("T", " ") == now[:16].replace("T", " ")
    assert not [c for c in context.cookies() if c["name"] == "desk_impersonation"]
    context.close()
    assert not errors, errors


def test_signing_out_of_another_app_ends_the_desk_impersonation(browser, live_host, world) -> None:
    admin_name, admin_id = admin(world)
    context, page, errors = signed_in(browser, live_host, world, admin_name)
    uid, _name = impersonate(page, live_host, world)
    assert world.query("SELECT user_id FROM desk_impersonation WHERE ended_at IS NULL") == [(uid,)]
    page.goto(live_host.url("crm", "/"))
    page.get_by_role("button", name=re.compile("^View profile")).click()
    page.get_by_role("menuitem", name="Sign out").click()
    page.wait_for_url(re.compile(r"/signin\?signed_out=1"))
    assert world.query("SELECT count(*) FROM desk_impersonation WHERE ended_at IS NULL") == [(0,)]
    # Signed in again, the admin is themselves: no banner, the admin's own pages.
    context.close()
    context, page, errors2 = signed_in(browser, live_host, world, admin_name)
    page.goto(live_host.url("desk", "/"))
    expect(page.get_by_role("region", name="Impersonation")).to_have_count(0)
    context.close()
    assert not errors and not errors2, errors + errors2

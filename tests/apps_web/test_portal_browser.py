"""The portal in real Chromium: sign in, launcher, open an app, profile, sign out; world isolation."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect
from sqlmodel import select

from apps_web.identity.models import User


def rep(world) -> str:
    return world.one("SELECT username FROM identity_user WHERE role = 'sales_rep' ORDER BY id")[0]


def test_sign_in_launcher_open_app_sign_out(browser: Browser, live_host) -> None:
    world = live_host.world()
    context = live_host.new_context(browser, world)  # bound to the world, not signed in
    page = context.new_page()
    page.goto(live_host.url())
    expect(page).to_have_url(re.compile(r"/signin"))
    page.get_by_label("Username").fill(rep(world))
    page.get_by_label("Password").fill("wrong")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("incorrect")
    page.get_by_label("Password").fill("sandbox")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Apps", exact=True)).to_be_visible()
    tile = page.get_by_role("link", name=re.compile("Sales Cloud"))
    expect(tile).to_be_visible()
    tile.click()
    expect(page).to_have_url(re.compile(rf"^http://crm\.localhost:{live_host.port}/"))
    expect(page.get_by_role("navigation", name="Sales Cloud")).to_be_visible()
    page.get_by_role("button", name=re.compile("View profile")).click()
    page.get_by_role("menuitem", name="Sign out").click()
    expect(page).to_have_url(re.compile(r"localhost:\d+/signin"))
    expect(page.get_by_text("You have signed out.")).to_be_visible()
    page.goto(live_host.url("crm", "/"))  # the app asks for sign-in again
    expect(page).to_have_url(re.compile(r"localhost:\d+/signin\?next="))
    context.close()


def test_deep_link_returns_after_sign_in(browser: Browser, live_host) -> None:
    world = live_host.world()
    context = live_host.new_context(browser, world)
    page = context.new_page()
    page.goto(live_host.url("crm", "/accounts"))
    expect(page).to_have_url(re.compile(r"/signin\?next="))
    page.get_by_label("Username").fill(rep(world))
    page.get_by_label("Password").fill("sandbox")
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(f"http://crm.localhost:{live_host.port}/accounts")
    context.close()


def test_two_worlds_never_see_each_other(browser: Browser, live_host) -> None:
    """50 interleaved writes and reads from two contexts bound to two worlds of the same seed."""
    w1, w2 = live_host.world(), live_host.world()
    user = rep(w1)
    c1, c2 = live_host.new_context(browser, w1, user), live_host.new_context(browser, w2, user)
    p1, p2 = c1.new_page(), c2.new_page()
    for page in (p1, p2):
        page.goto(live_host.url(path="/profile"))
    for i in range(25):
        for page, tag in ((p1, "one"), (p2, "two")):
            page.get_by_label("Title").fill(f"{tag}-{i}")
            page.get_by_role("button", name="Save").click()
            expect(page.get_by_text("Your profile was saved.")).to_be_visible()
        for page, tag in ((p1, "one"), (p2, "two")):
            expect(page.get_by_label("Title")).to_have_value(f"{tag}-{i}")
    for world, tag in ((w1, "one"), (w2, "two")):
        with world.session() as s:
            u = s.exec(select(User).where(User.username == user)).one()
            assert u.title == f"{tag}-24"
    c1.close()
    c2.close()


def test_profile_validation_saves_nothing(browser: Browser, live_host) -> None:
    world = live_host.world()
    user = rep(world)
    context = live_host.new_context(browser, world, user)
    page = context.new_page()
    page.goto(live_host.url(path="/profile"))
    page.get_by_label("Phone").fill("call me <script>alert(1)</script>")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Use digits, spaces")).to_be_visible()
    expect(page.get_by_label("Phone")).to_have_value("call me <script>alert(1)</script>")
    assert world.changes_since(0)[0].is_empty
    context.close()


def test_unknown_world_header_in_the_browser(browser: Browser, live_host) -> None:
    world = live_host.world()
    live_host.store.drop(world)
    context = live_host.new_context(browser, world)
    page = context.new_page()
    response = page.goto(live_host.url("crm", "/"))
    assert response.status == 404
    expect(page.get_by_role("heading", name="World not found")).to_be_visible()
    context.close()

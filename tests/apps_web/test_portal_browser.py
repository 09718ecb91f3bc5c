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
    context = live_host.person_context(browser, world)  # a person browsing the world, not signed in
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
    context = live_host.person_context(browser, world)
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
    expect(page.get_by_role("heading", name="World unavailable")).to_be_visible()
    expect(page.get_by_role("alert")).not_to_contain_text(world.id)  # an episode never sees world ids
    expect(page.get_by_role("button", name="Start a new world")).to_have_count(0)
    context.close()


# -- episodes (the world named by header, as the runtime binds a context) ------------------------------
RESET_FORM = """() => { const f = document.createElement('form'); f.method = 'post'; f.action = '/worlds/reset';
  f.innerHTML = '<button type="submit">Reset world</button>'; document.querySelector('main').append(f); }"""


def test_episode_cannot_reset_its_world(browser: Browser, live_host) -> None:
    """The launcher shows an episode no world controls; a Reset world form posted anyway is refused and
    the episode's world is untouched (before, the world file was deleted and every page then 404ed)."""
    world = live_host.world()
    context = live_host.new_context(browser, world, rep(world))
    page = context.new_page()
    page.goto(live_host.url())
    expect(page.get_by_role("heading", name="Apps", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Reset world")).to_have_count(0)
    expect(page.get_by_role("main")).not_to_contain_text(world.id)
    expect(page.get_by_role("main")).not_to_contain_text("Seed")
    page.evaluate(RESET_FORM)  # the form the launcher shows people, submitted from the episode
    with page.expect_response(re.compile(r"/worlds/reset$")) as response:
        page.get_by_role("button", name="Reset world").click()
    assert response.value.status == 403
    expect(page.get_by_role("heading", name="Not allowed in this episode")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("Changing worlds is not allowed in an episode")
    assert world.path.exists() and live_host.store.get(world.id).meta.seed == 0
    page.get_by_role("link", name="Go to the apps").click()
    expect(page.get_by_role("heading", name="Apps", exact=True)).to_be_visible()  # still signed in, same world
    context.close()


def test_episode_cannot_sign_in_as_someone_else(browser: Browser, live_host) -> None:
    """Signing out works; signing back in (as an admin or anyone) is refused, on every app too."""
    world = live_host.world()
    context = live_host.new_context(browser, world, rep(world))
    page = context.new_page()
    page.goto(live_host.url("crm", "/"))
    page.get_by_role("button", name=re.compile("View profile")).click()
    page.get_by_role("menuitem", name="Sign out").click()
    expect(page).to_have_url(re.compile(r"^http://localhost:\d+/signin\?signed_out=1$"))
    expect(page.get_by_role("heading", name="Not allowed in this episode")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("You have signed out")
    expect(page.get_by_label("Username")).to_have_count(0)
    assert [c for c in context.cookies() if c["name"] == "sbx_session"] == []  # cleared on the portal and every app
    page.goto(live_host.url("crm", "/accounts"))  # the app sends the signed-out agent to the refusal
    expect(page.get_by_role("heading", name="Not allowed in this episode")).to_be_visible()
    context.close()


def test_sso_with_a_bad_token_shows_an_error_page_after_one_navigation(browser: Browser, live_host) -> None:
    world = live_host.world()
    context = live_host.new_context(browser, world, rep(world))
    page = context.new_page()
    documents: list[str] = []
    page.on("response", lambda r: documents.append(r.url) if r.request.resource_type == "document" else None)
    response = page.goto(live_host.url("crm", "/_sso?t=expired-or-forged&next=/accounts"))
    assert response.status == 400 and len(documents) == 1  # no redirect at all
    expect(page.get_by_role("heading", name="This sign-in link is not valid")).to_be_visible()
    expect(page.get_by_role("alert")).to_contain_text("invalid or has expired")
    page.get_by_role("link", name="Go to the sign-in page").click()  # still signed in: straight to the app
    expect(page).to_have_url(live_host.url("crm", "/accounts"))
    context.close()


def test_api_docs_work_offline_for_people_and_are_refused_in_episodes(browser: Browser, live_host) -> None:
    world = live_host.world()
    context = live_host.person_context(browser, world)
    page = context.new_page()
    elsewhere: list[str] = []
    failed: list[str] = []
    page.on("request", lambda r: elsewhere.append(r.url) if not re.match(rf"^http://crm\.localhost:{live_host.port}/", r.url) else None)
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.goto(live_host.url("crm", "/api/docs"))
    expect(page.get_by_role("heading", name=re.compile("^Sales Cloud"))).to_be_visible()
    expect(page.locator(".opblock").first).to_be_visible()  # the operations, read from /api/openapi.json
    assert elsewhere == [] and failed == []
    context.close()
    episode = live_host.new_context(browser, world, rep(world))
    page = episode.new_page()
    response = page.goto(live_host.url("crm", "/api/docs"))
    assert response.status == 403
    expect(page.get_by_role("heading", name="Not allowed in this episode")).to_be_visible()
    episode.close()


def test_people_keep_the_world_controls(browser: Browser, live_host) -> None:
    """Browsing without an episode (world chosen by cookie, as with `sandbox serve`): the launcher shows
    the world's id and seed, and Reset world and New world work."""
    world = live_host.store.create(seed=0, owned=False)  # kept for people, as the portal's worlds are
    context = live_host.person_context(browser, world)
    page = context.new_page()
    page.goto(live_host.url(path="/signin"))
    page.get_by_label("Username").fill(rep(world))
    page.get_by_label("Password").fill("sandbox")
    page.get_by_role("button", name="Sign in").click()
    card = page.get_by_role("region", name="World")
    expect(card).to_contain_text(world.id)
    expect(card).to_contain_text("Seed")
    page.get_by_role("button", name="Reset world").click()
    expect(card).not_to_contain_text(world.id)  # a fresh copy, still signed in
    expect(page.get_by_role("heading", name="Apps", exact=True)).to_be_visible()
    assert not world.path.exists()  # the copy it replaced is gone
    page.get_by_label("Seed").fill("0")
    page.get_by_role("button", name="New world").click()
    expect(page).to_have_url(re.compile(r"/signin$"))  # a new world: sign in to it
    context.close()

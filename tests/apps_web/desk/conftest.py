"""Fixtures of the desk's browser tests: worlds and signed-in pages on the live host."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser


def agent(world) -> tuple[str, int]:
    """A Service Desk analyst (an IT agent the desk's generator added)."""
    return world.one("""SELECT u.username, u.id FROM identity_user u JOIN desk_group_member m ON m.user_id = u.id
                        JOIN desk_group g ON g.id = m.group_id WHERE g.name = 'Service Desk' AND u.title = 'Service Desk Analyst' ORDER BY u.id""")


@pytest.fixture()
def fresh(browser: Browser, live_host):
    """A world of its own and a page signed in as a Service Desk analyst (for tests that write)."""
    world = live_host.world()
    context = live_host.new_context(browser, world, agent(world)[0])
    page = context.new_page()
    page.on("dialog", lambda d: pytest.fail(f"unexpected browser dialog: {d.message}"))
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield world, page
    context.close()
    assert not errors, errors


@pytest.fixture(scope="module")
def shared(browser: Browser, live_host):
    """A world nobody writes to, and a signed-in context."""
    world = live_host.world()
    context = live_host.new_context(browser, world, agent(world)[0])
    yield world, context
    context.close()


@pytest.fixture()
def page(shared):
    world, context = shared
    p = context.new_page()
    yield p
    p.close()

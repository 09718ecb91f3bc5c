"""Helpers the CRM tests share: a role's first user, a write to a world for a test's set-up, and a fresh
world with a sales rep's page (``fresh``; a module that needs another persona defines its own)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser


def user_of(world, role: str) -> str:  # noqa: ANN001
    return world.one(f"SELECT username FROM identity_user WHERE role = '{role}' ORDER BY id")[0]


def write(world, query: str, *args) -> None:  # noqa: ANN001, ANN002
    with world.connect(readonly=False) as conn:
        conn.execute(query, args)
        conn.commit()


@pytest.fixture()
def fresh(browser: Browser, live_host):  # noqa: ANN001, ANN201
    world = live_host.world()
    context = live_host.new_context(browser, world, user_of(world, "sales_rep"))
    yield world, context.new_page()
    context.close()

"""Fixtures of the mail tests: a fresh world per test, a signed-in Chromium page, database helpers."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from playwright.sync_api import Page

from apps_web.world import World


@dataclass
class Mailbox:
    id: int
    user_id: int
    username: str
    address: str
    name: str

    def folder(self, world: World, kind: str) -> int:
        return world.one("SELECT id FROM mail_folder WHERE mailbox_id = ? AND kind = ?", self.id, kind)[0]


def mailbox_of(world: World, role: str = "sales_rep", nth: int = 0) -> Mailbox:
    row = world.one(
        "SELECT b.id, u.id, u.username, b.address, b.display_name FROM mail_mailbox b JOIN identity_user u ON u.id = b.user_id "
        "WHERE u.role = ? ORDER BY u.id LIMIT 1 OFFSET ?", role, nth)
    return Mailbox(*row)


@pytest.fixture()
def world(live_host) -> World:
    return live_host.world()


@pytest.fixture()
def me(world) -> Mailbox:
    return mailbox_of(world)


@pytest.fixture()
def page(browser, live_host, world, me):
    context = live_host.new_context(browser, world, me.username)
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.dialogs = dialogs
    yield page
    context.close()


def goto(page: Page, live_host, path: str) -> None:
    page.goto(live_host.url("mail", path))

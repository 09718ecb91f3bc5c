"""Fixtures of the drive tests: a world, an HTTP client signed in as a user, database helpers."""

from __future__ import annotations

from contextlib import contextmanager

import httpx
import pytest

from apps_web.identity import SESSION_COOKIE, session_cookie


def client_for(live_host, world, username: str | None, accept: str = "application/json") -> httpx.Client:
    headers = {"Host": f"drive.localhost:{live_host.port}", "X-Sandbox-World": world.id, "Accept": accept}
    if username:
        headers["Cookie"] = f"{SESSION_COOKIE}={session_cookie(live_host.secret, username, world.id)}"
    return httpx.Client(base_url=f"http://127.0.0.1:{live_host.port}", headers=headers)


def user(world, role: str = "sales_rep", nth: int = 0) -> tuple[int, str, str]:
    """(id, username, department) of the nth user with ``role``."""
    return world.one("SELECT id, username, department FROM identity_user WHERE role = ? ORDER BY id LIMIT 1 OFFSET ?", role, nth)


def my_root(world, user_id: int) -> int:
    return world.one("SELECT root_id FROM drive_site WHERE kind = 'personal' AND owner_id = ?", user_id)[0]


def rows(world, sql: str, *args) -> list[tuple]:
    with world.connect() as conn:
        return conn.execute(sql, args).fetchall()


@pytest.fixture(scope="module")
def world(live_host):
    """The module's own world (its tests share it)."""
    return live_host.world()


@contextmanager
def signed_in_page(browser, live_host, world, username: str, **context_options):
    """(context, page) of a new browser context signed in as ``username``; closed afterwards."""
    context = live_host.new_context(browser, world, username, **context_options)
    try:
        yield context, context.new_page()
    finally:
        context.close()


@pytest.fixture(scope="module")
def page(browser, live_host, world, me):
    """A page signed in as the module's ``me`` fixture (id, username, department)."""
    with signed_in_page(browser, live_host, world, me[1]) as (_context, page):
        yield page

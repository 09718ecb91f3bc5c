"""The host without a browser: Host-name dispatch, world selection errors, sign-in and SSO, sign-out."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient

from apps_web.host import create_host
from apps_web.identity import SESSION_COOKIE, session_cookie
from apps_web.world import WorldStore

SECRET = "host-test-secret"


@pytest.fixture(scope="module")
def world(store: WorldStore):
    return store.create(seed=0)


@pytest.fixture(scope="module")
def host(store: WorldStore, world):
    return create_host(store, secret=SECRET, default_world=world.id)


@pytest.fixture()
def client(host) -> TestClient:
    return TestClient(host, base_url="http://localhost:8765", follow_redirects=False)


def a_user(world) -> str:
    return world.one("SELECT username FROM identity_user WHERE role = 'sales_rep' ORDER BY id")[0]


def test_unknown_host_names_the_apps(client: TestClient) -> None:
    r = client.get("/", headers={"host": "nope.localhost:8765"})
    assert r.status_code == 404
    assert "nope.localhost" in r.text and "crm.localhost" in r.text


def test_malformed_world_header_is_400(client: TestClient) -> None:
    r = client.get("/signin", headers={"x-sandbox-world": "../../etc/passwd"})
    assert r.status_code == 400 and "malformed world id" in r.text


def test_unknown_and_dropped_worlds_are_404(client: TestClient, store: WorldStore) -> None:
    r = client.get("/signin", headers={"x-sandbox-world": "never-made"})
    assert r.status_code == 404 and "never-made" in r.text
    w = store.create(seed=0)
    assert client.get("/signin", headers={"x-sandbox-world": w.id}).status_code == 200
    store.drop(w)
    r = client.get("/signin", headers={"x-sandbox-world": w.id})
    assert r.status_code == 404 and "dropped" in r.text
    r = client.get("/api/accounts", headers={"host": "crm.localhost:8765", "x-sandbox-world": w.id})
    assert r.status_code == 404 and r.headers["content-type"].startswith("application/json")


def test_wrong_password_is_refused(client: TestClient, world) -> None:
    r = client.post("/signin", data={"username": a_user(world), "password": "wrong"})
    assert r.status_code == 401 and "incorrect" in r.text
    assert SESSION_COOKIE not in r.cookies


def test_sign_in_hands_the_session_to_the_app(client: TestClient, world) -> None:
    username = a_user(world)
    r = client.post("/signin", data={"username": username, "password": "sandbox", "next": "http://crm.localhost:8765/accounts?x=1"})
    assert r.status_code == 303
    target = urlsplit(r.headers["location"])
    assert target.hostname == "crm.localhost" and target.path == "/_sso"
    r2 = client.get(f"{target.path}?{target.query}", headers={"host": "crm.localhost:8765"})
    assert r2.status_code == 303 and r2.headers["location"] == "/accounts?x=1"
    assert SESSION_COOKIE in r2.headers["set-cookie"]


def test_sign_in_never_redirects_off_the_host(client: TestClient, world) -> None:
    r = client.post("/signin", data={"username": a_user(world), "password": "sandbox", "next": "https://evil.example.com/"})
    assert r.status_code == 303 and r.headers["location"] == "/"


def test_sso_token_is_checked(client: TestClient) -> None:
    r = client.get("/_sso?t=forged&next=/", headers={"host": "crm.localhost:8765"})
    assert r.status_code == 303 and "signin" in r.headers["location"]


def test_signed_out_apps_redirect_to_sign_in(client: TestClient) -> None:
    r = client.get("/", headers={"host": "crm.localhost:8765"})
    assert r.status_code == 303
    parts = urlsplit(r.headers["location"])
    assert parts.hostname == "localhost" and parts.path == "/signin"
    assert parse_qs(parts.query)["next"] == ["http://crm.localhost:8765/"]


def test_sign_out_anywhere_signs_out_everywhere(client: TestClient, world) -> None:
    cookie = session_cookie(SECRET, a_user(world), world.id)
    client.cookies.set(SESSION_COOKIE, cookie)
    assert client.get("/").status_code == 200  # launcher
    r = client.get("/signout", headers={"host": "crm.localhost:8765"})
    assert r.status_code == 303 and r.headers["location"].endswith("/signout")
    client.cookies.set(SESSION_COOKIE, cookie)  # even if a copy of the cookie survives
    r = client.get("/")
    assert r.status_code == 303 and r.headers["location"] == "/signin"


def test_session_of_another_world_does_not_sign_in(client: TestClient, store: WorldStore, world) -> None:
    other = store.create(seed=0)
    client.cookies.set(SESSION_COOKIE, session_cookie(SECRET, a_user(world), other.id))
    r = client.get("/")
    assert r.status_code == 303 and r.headers["location"] == "/signin"


def test_portal_without_any_world_offers_to_start_one(store: WorldStore) -> None:
    client = TestClient(create_host(store, secret=SECRET), base_url="http://localhost:8765", follow_redirects=False)
    r = client.get("/")
    assert r.status_code == 409 and "Start a world" in r.text
    r = client.post("/worlds/new", data={"seed": "0"})
    assert r.status_code == 303
    world_id = re.search(r"sbx_world=([^;]+)", r.headers["set-cookie"]).group(1)
    assert store.exists(world_id)


def test_static_kit_needs_no_world(client: TestClient) -> None:
    r = client.get("/_ui/static/ui.css", headers={"host": "crm.localhost:8765", "x-sandbox-world": "never-made"})
    assert r.status_code == 200 and "font-face" in r.text


def test_healthz(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"ok": True}

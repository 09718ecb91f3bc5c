"""The host without a browser: Host-name dispatch, world selection errors, sign-in and SSO, sign-out."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from fastapi.testclient import TestClient

from apps_web.host import create_host
from apps_web.identity import SESSION_COOKIE, Signer, session_cookie
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
    assert "etc/passwd" not in r.text  # an episode's page never shows a world id


def test_unknown_and_dropped_worlds_are_404(client: TestClient, store: WorldStore) -> None:
    r = client.get("/signin", headers={"x-sandbox-world": "never-made"})
    assert r.status_code == 404 and "does not exist" in r.text and "never-made" not in r.text
    w = store.create(seed=0)
    assert client.get("/", headers={"x-sandbox-world": w.id}).status_code == 303  # to sign-in: the world is there
    store.drop(w)
    r = client.get("/signin", headers={"x-sandbox-world": w.id})
    assert r.status_code == 404 and "dropped" in r.text and w.id not in r.text
    assert "Start a new world" not in r.text and "Seed" not in r.text  # no world controls for agents
    r = client.get("/api/accounts", headers={"host": "crm.localhost:8765", "x-sandbox-world": w.id})
    assert r.status_code == 404 and r.headers["content-type"].startswith("application/json") and w.id not in r.text


def test_unknown_world_cookie_names_it_for_people(client: TestClient) -> None:
    """People browsing (world chosen by cookie) see which world is missing and can start another."""
    client.cookies.set("sbx_world", "never-made")
    r = client.get("/signin")
    assert r.status_code == 404 and "never-made" in r.text and "Start a new world" in r.text


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
    """A bad hand-off gets a page (not a redirect that could loop) with a way on: the sign-in page."""
    r = client.get("/_sso?t=forged&next=/accounts", headers={"host": "crm.localhost:8765"})
    assert r.status_code == 400 and "sign-in link is not valid" in r.text
    retry = re.search(r'href="(http://localhost:8765/signin\?next=[^"]+)"', r.text).group(1)
    assert parse_qs(urlsplit(retry.replace("&amp;", "&")).query)["next"] == ["http://crm.localhost:8765/accounts"]


def test_expired_sso_token_gets_the_page(client: TestClient, world) -> None:
    """A real hand-off token, signed three minutes ago (links live two): the same page, no redirect."""
    import time

    from itsdangerous import TimestampSigner, URLSafeTimedSerializer

    class ThreeMinutesAgo(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - 180

    old = URLSafeTimedSerializer(SECRET, salt="sbx-sso", signer=ThreeMinutesAgo)
    payload = {"u": a_user(world), "w": world.id, "s": "abc123"}
    token = old.dumps(payload)
    fresh = URLSafeTimedSerializer(SECRET, salt="sbx-sso").dumps(payload)
    assert Signer(SECRET).load_sso_token(fresh) is not None and Signer(SECRET).load_sso_token(token) is None  # only its age differs
    r = client.get(f"/_sso?t={token}&next=/", headers={"host": "crm.localhost:8765"})
    assert r.status_code == 400 and "invalid or has expired" in r.text and SESSION_COOKIE not in r.headers.get("set-cookie", "")


def test_sso_of_a_signed_out_session_is_refused(client: TestClient, world) -> None:
    r = client.post("/signin", data={"username": a_user(world), "password": "sandbox", "next": "http://crm.localhost:8765/"})
    handoff = urlsplit(r.headers["location"])
    client.get("/signout")  # the portal session is signed out before the link is used
    r = client.get(f"{handoff.path}?{handoff.query}", headers={"host": "crm.localhost:8765"})
    assert r.status_code == 400 and SESSION_COOKIE not in r.headers.get("set-cookie", "")


def test_sign_in_never_hands_on_to_a_hand_off(client: TestClient, world) -> None:
    """A hand-off link as the target after sign-in would hand itself on forever: the app's home instead."""
    client.cookies.set(SESSION_COOKIE, session_cookie(SECRET, a_user(world), world.id))
    r = client.get("/signin", params={"next": "http://crm.localhost:8765/_sso?t=forged&next=/"})
    assert r.status_code == 303 and urlsplit(r.headers["location"]).path == "/_sso"
    assert parse_qs(urlsplit(r.headers["location"]).query)["next"] == ["/"]


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


def test_sign_out_clears_every_apps_cookie(client: TestClient, host) -> None:
    """Each app clears its own session cookie in turn, then the portal says so (front-channel sign-out)."""
    r = client.get("/signout")
    hops = []
    while r.status_code == 303:
        hops.append(r.headers["location"])
        assert 'sbx_session=""' in r.headers.get("set-cookie", "")
        url = urlsplit(r.headers["location"])
        r = client.get(f"{url.path}?{url.query}", headers={"host": url.netloc})
    apps = [spec.name for spec in host.state.specs]
    assert hops == [f"http://{name}.localhost:8765/_signout" for name in apps] + ["http://localhost:8765/signin?signed_out=1"]
    assert r.status_code == 200 and "You have signed out." in r.text


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


# -- inside an episode (the world named by header), agents cannot leave their world or persona ----------
HTML = {"accept": "text/html,application/xhtml+xml"}


def test_world_controls_are_refused_in_an_episode(client: TestClient, store: WorldStore, world) -> None:
    episode = store.create(seed=0)
    before = sorted(p.name for p in store.worlds_dir.iterdir())
    templates = sorted(p.name for p in store.templates_dir.iterdir())
    client.cookies.set(SESSION_COOKIE, session_cookie(SECRET, a_user(world), episode.id))
    headers = {"x-sandbox-world": episode.id, **HTML}
    for path, data in (("/worlds/reset", {}), ("/worlds/new", {"seed": "77"})):
        r = client.post(path, data=data, headers=headers)
        assert r.status_code == 403, path
        assert "Changing worlds" in r.text and "not allowed in an episode" in r.text
        assert episode.id not in r.text and "sbx_world" not in r.headers.get("set-cookie", "")
    assert store.exists(episode.id)
    assert sorted(p.name for p in store.worlds_dir.iterdir()) == before  # nothing made, nothing dropped
    assert sorted(p.name for p in store.templates_dir.iterdir()) == templates  # no template built for seed 77
    r = client.post("/worlds/new", data={"seed": "77"}, headers={"x-sandbox-world": episode.id})
    assert r.status_code == 403 and "not allowed in an episode" in r.json()["detail"]  # JSON for API clients
    store.drop(episode)


def test_launcher_in_an_episode_shows_no_world_id_seed_or_controls(client: TestClient, store: WorldStore, world) -> None:
    episode = store.create(seed=0)
    client.cookies.set(SESSION_COOKIE, session_cookie(SECRET, a_user(world), episode.id))
    r = client.get("/", headers={"x-sandbox-world": episode.id})
    assert r.status_code == 200 and ">Apps<" in r.text
    assert episode.id not in r.text and "Seed" not in r.text and "Reset world" not in r.text and "New world" not in r.text
    people = client.get("/", headers={"cookie": f"sbx_world={episode.id}; sbx_session={client.cookies[SESSION_COOKIE]}"})
    assert "Reset world" in people.text and episode.id in people.text  # people browsing keep the controls
    store.drop(episode)


def test_signing_in_is_refused_in_an_episode(client: TestClient, store: WorldStore, world) -> None:
    episode = store.create(seed=0)
    admin = episode.one("SELECT username FROM identity_user WHERE role = 'admin' ORDER BY id")[0]
    headers = {"x-sandbox-world": episode.id, **HTML}
    r = client.post("/signin", data={"username": admin, "password": "sandbox"}, headers=headers)
    assert r.status_code == 403 and "Signing in" in r.text and SESSION_COOKIE not in r.headers.get("set-cookie", "")
    r = client.get("/signin?signed_out=1", headers=headers)  # where signing out ends
    assert r.status_code == 403 and "You have signed out" in r.text and "<form" not in r.text
    # Signed in as the persona, the portal still hands the session to the apps (no new sign-in).
    client.cookies.set(SESSION_COOKIE, session_cookie(SECRET, a_user(world), episode.id))
    r = client.get("/signin", params={"next": "http://crm.localhost:8765/accounts"}, headers=headers)
    assert r.status_code == 303 and urlsplit(r.headers["location"]).path == "/_sso"
    r = client.post("/signin", data={"username": admin, "password": "sandbox"}, headers=headers)
    assert r.status_code == 403  # switching user is refused as well
    store.drop(episode)


def test_sso_into_another_world_is_refused_in_an_episode(client: TestClient, store: WorldStore, world) -> None:
    episode = store.create(seed=0)
    r = client.post("/signin", data={"username": a_user(world), "password": "sandbox", "next": "http://crm.localhost:8765/"})
    handoff = urlsplit(r.headers["location"])  # a valid hand-off, but for the host's default world
    r = client.get(f"{handoff.path}?{handoff.query}", headers={"host": "crm.localhost:8765", "x-sandbox-world": episode.id})
    assert r.status_code == 400 and SESSION_COOKIE not in r.headers.get("set-cookie", "")
    store.drop(episode)


def test_api_docs_work_without_a_cdn_for_people_and_are_refused_in_episodes(client: TestClient, world) -> None:
    crm = {"host": "crm.localhost:8765"}
    r = client.get("/api/docs", headers={**crm, **HTML})
    assert r.status_code == 200 and "SwaggerUIBundle" in r.text
    assets = re.findall(r'(?:href|src)="([^"]+)"', r.text)
    assert assets and all(a.startswith("/_ui/static/vendor/swagger-ui/") for a in assets), assets
    for asset in assets:
        assert client.get(asset, headers=crm).status_code == 200
    assert client.get("/api/openapi.json", headers=crm).json()["info"]["title"] == "Sales Cloud"
    r = client.get("/api/docs", headers={**crm, **HTML, "x-sandbox-world": world.id})
    assert r.status_code == 403 and "interactive API documentation" in r.text and "SwaggerUIBundle" not in r.text
    assert client.get("/api/docs/oauth2-redirect", headers={**crm, "x-sandbox-world": world.id}).status_code == 403


def test_people_resetting_an_episodes_world_never_drop_it(client: TestClient, store: WorldStore) -> None:
    """A person whose world cookie names an episode's world gets a fresh copy; the episode keeps its own."""
    episode = store.create(seed=0)  # owned by this (running) process, as an episode's world is
    client.cookies.set("sbx_world", episode.id)
    r = client.post("/worlds/reset")
    assert r.status_code == 303 and store.exists(episode.id)
    fresh = re.search(r"sbx_world=([^;]+)", r.headers["set-cookie"]).group(1)
    assert fresh != episode.id and store.exists(fresh) and store.owner(fresh) is None
    kept = fresh
    client.cookies.set("sbx_world", kept)
    r = client.post("/worlds/reset")  # a world kept for people is replaced as before
    assert r.status_code == 303 and not store.exists(kept)
    store.drop(episode)

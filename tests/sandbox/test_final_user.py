"""Who is signed in at an episode's end (``VerifyContext.final_user``), read from the episode's browser."""

from __future__ import annotations

import pytest

from sandbox.spec import free_spec

pytestmark = pytest.mark.browser


def graded_spec(app: str, start_url: str = "/"):  # noqa: ANN201
    """A free-form spec whose verifier keeps the context it is given."""
    from verifiers import Verdict

    seen: dict = {}

    def verify(ctx) -> Verdict:  # noqa: ANN001
        seen["ctx"] = ctx
        return Verdict(passed=True, score=1.0, reason="kept")

    return free_spec(app, start_url, "look around").replace(verify=verify, max_steps=5), seen


def test_a_normal_episode_ends_signed_in_as_the_persona(make_env) -> None:  # noqa: ANN001
    spec, seen = graded_spec("crm")
    env = make_env(spec=spec)
    obs, info = env.reset(seed=0)
    env.step({"action": "answer", "text": "done"})
    ctx = seen["ctx"]
    assert ctx.persona == info["persona"] and ctx.final_user == info["persona"]


def test_an_episode_that_signs_out_ends_with_nobody_signed_in(make_env, sbx_runtime) -> None:  # noqa: ANN001
    """Signed out through the CRM's sign-out link; signing in as an admin is then refused, so the episode ends
    with nobody signed in (before, the verifier had no way to tell)."""
    spec, seen = graded_spec("crm")
    env = make_env(spec=spec)
    obs, info = env.reset(seed=0)
    world = sbx_runtime.store.get(info["world_id"])
    admin = world.one("SELECT username FROM identity_user WHERE role = 'admin' ORDER BY id")[0]
    obs, *_ = env.step({"action": "goto", "url": "/signout"})
    assert obs["url"].endswith("/signin?signed_out=1") and obs["title"] == "Not allowed in this episode"
    page = env.core.page
    # The refused page has no sign-in form; an agent posting one anyway is refused too.
    status = env.run(page.evaluate(
        """async (u) => (await fetch('/signin', {method: 'POST', headers: {accept: 'text/html'},
             body: new URLSearchParams({username: u, password: 'sandbox'})})).status""", admin,
    ))  # fmt: skip
    assert status == 403
    env.step({"action": "answer", "text": "done"})
    ctx = seen["ctx"]
    assert ctx.persona == info["persona"] and ctx.final_user == ""


def test_final_user_sees_another_user_signed_in(make_env, sbx_runtime) -> None:  # noqa: ANN001
    """If an origin of the host is signed in as someone else (whatever the way), the verifier sees them."""
    from apps_web.identity import browser_cookies

    spec, seen = graded_spec("crm")
    env = make_env(spec=spec)
    obs, info = env.reset(seed=0)
    world = sbx_runtime.store.get(info["world_id"])
    admin = world.one("SELECT username FROM identity_user WHERE role = 'admin' ORDER BY id")[0]
    host = sbx_runtime.host
    cookies = [c for c in browser_cookies(host.secret, admin, world.id, host.port, host.app_names) if "crm." in c["url"]]
    env.run(env.core.episode.context.add_cookies(cookies))
    env.step({"action": "answer", "text": "done"})
    assert seen["ctx"].final_user == admin

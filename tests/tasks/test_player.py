"""The oracle player in real Chromium: targets found on the live page, scrolled into view with the wheel,
turned into canonical coordinate actions; clear errors for missing and ambiguous targets."""

from __future__ import annotations

import sqlite3

import pytest

from sandbox.loop import background_loop
from sandbox.pool import EpisodePool
from sandbox.runtime import default_apps
from sandbox.spec import free_spec
from tasks.model import parse_steps
from tasks.player import TYPE_BURST, OracleError, Player, type_bursts

# Async code runs on the sandbox background loop, not pytest-asyncio's: a sync Playwright session in the
# same worker (tests/conftest.py) leaves its loop marked as running in this thread.
pytestmark = pytest.mark.browser
run = background_loop().run


def _opportunity(store) -> tuple[int, str]:  # noqa: ANN001
    conn = sqlite3.connect(f"file:{store.template(0)}?mode=ro", uri=True)
    try:
        return conn.execute(
            "select o.id, u.username from crm_opportunity o join identity_user u on u.id = o.owner_id "
            "where o.stage = 'Prospecting' order by o.id limit 1").fetchone()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def pool(store):  # noqa: ANN001 - one Chromium and one app host for the module
    p = EpisodePool(max_concurrency=1, keep_worlds=True, runtime_options={"store": store, "apps": default_apps()})
    run(p.__aenter__())
    yield p
    run(p.__aexit__(None, None, None))


async def _play(pool, steps: list[dict], *, start: str, persona: str, timeout_s: float = 5.0):  # noqa: ANN001
    """Play steps on a CRM page; returns (canonical actions sent, OracleError or None, world path)."""
    async with pool.episode(free_spec("crm", start, persona=persona)) as (env, _obs, _info):
        async def step(action):  # noqa: ANN001
            _o, _r, term, trunc, info = await env.step(action)
            assert not info.get("error"), info["error"]
            return term or trunc

        player = Player(lambda: env.page, step, base_url=pool.runtime.host.url("crm", "/"), timeout_s=timeout_s)
        error = None
        try:
            await player.play(parse_steps(steps))
        except OracleError as e:
            error = e
        return player.result.actions, error, env.episode.world.path


def test_steps_become_coordinate_actions_with_wheel_scrolls(pool, store) -> None:  # noqa: ANN001
    opp, owner = _opportunity(store)
    steps = [
        {"click": {"role": "link", "name": "Next page"}},  # below the fold: the wheel brings it up first
        {"wait_for": {"url": "page=2"}},
        {"goto": f"/opportunities/{opp}"},
        {"click": {"role": "button", "name": "Edit Next Step"}},
        {"fill": {"label": "Next Step", "within": {"role": "form", "name": "Edit Next Step"}}, "text": "Budget approved in Q2"},
        {"click": {"role": "button", "name": "Save", "within": {"role": "form", "name": "Edit Next Step"}}},
        {"wait_for": {"role": "button", "name": "Edit Next Step"}},
        {"answer": "done"},
    ]
    actions, error, world = run(_play(pool, steps, start="/cases?view=all", persona=owner))
    assert error is None, error
    kinds = [a["action"] for a in actions]
    assert kinds[0] == "scroll" and kinds[-1] == "answer", kinds
    assert kinds.count("left_click") == 4 and "goto" in kinds
    assert all(isinstance(a["x"], int) and 0 <= a["x"] < 1280 and 0 <= a["y"] < 800 for a in actions if "x" in a)
    assert {"action": "key", "key": "ctrl+a"} in actions and {"action": "type", "text": "Budget approved in Q2"} in actions
    conn = sqlite3.connect(f"file:{world}?mode=ro", uri=True)
    assert conn.execute("select next_step from crm_opportunity where id = ?", (opp,)).fetchone()[0] == "Budget approved in Q2"
    conn.close()


def test_ambiguous_and_missing_targets_are_clear_errors(pool, store) -> None:  # noqa: ANN001
    opp, owner = _opportunity(store)
    _, error, _ = run(_play(pool, [{"click": {"role": "tab"}}], start=f"/opportunities/{opp}", persona=owner))
    assert error is not None and error.index == 0
    assert "3 visible elements match tab; make the target precise (within, nth)" in str(error)
    missing = [{"click": {"role": "button", "name": "Launch rocket"}}]
    _, error, _ = run(_play(pool, missing, start=f"/opportunities/{opp}", persona=owner, timeout_s=0.5))
    assert "no visible element matches button 'Launch rocket' after 0.5s" in str(error)
    assert f"/opportunities/{opp}" in error.url


def test_a_select_checks_its_option(pool, store) -> None:  # noqa: ANN001
    opp, owner = _opportunity(store)
    steps = [
        {"click": {"role": "button", "name": "Edit Stage"}},
        {"select": {"label": "Stage", "within": {"role": "form", "name": "Edit Stage"}}, "option": "Closed Wonn"},
    ]
    _, error, _ = run(_play(pool, steps, start=f"/opportunities/{opp}", persona=owner))
    assert error is not None and error.index == 1
    assert "no option 'Closed Wonn' (options: Prospecting, Qualification" in str(error)


def test_a_step_with_if_shown_plays_only_when_its_element_shows(pool, store) -> None:  # noqa: ANN001
    """The duplicate rule's alert on an inline edit: the second Save is clicked when the alert shows and
    skipped when the edit saved at once; the database has the new email either way."""
    conn = sqlite3.connect(f"file:{store.template(0)}?mode=ro", uri=True)
    (mine, _), (_, taken) = conn.execute("select id, email from crm_contact where email is not null order by id limit 2").fetchall()
    rep = conn.execute("select username from identity_user where role = 'sales_rep' order by id").fetchone()[0]
    conn.close()
    form = {"role": "form", "name": "Edit Email"}
    alert = {"role": "alert", "within": form}

    def steps(email: str) -> list[dict]:
        return [
            {"click": {"role": "button", "name": "Edit Email"}},
            {"fill": {"label": "Email", "within": form}, "text": email},
            {"click": {"role": "button", "name": "Save", "within": form}},
            {"click": {"role": "button", "name": "Save", "within": form}, "if_shown": alert,
             "else_shown": {"role": "button", "name": "Edit Email"}, "note": "past the duplicate alert"},
            {"wait_for": {"role": "button", "name": "Edit Email"}},
        ]

    for email, clicks in ((taken.upper(), 4), ("nobody.else@example.org", 3)):  # the duplicate, then a fresh one
        actions, error, world = run(_play(pool, steps(email), start=f"/contacts/{mine}", persona=rep))
        assert error is None, error
        assert [a["action"] for a in actions].count("left_click") == clicks, (email, actions)
        db = sqlite3.connect(f"file:{world}?mode=ro", uri=True)
        assert db.execute("select email from crm_contact where id = ?", (mine,)).fetchone()[0] == email
        db.close()
    # Neither element shows: a clear error, not a skipped step.
    lost = [{"click": {"role": "button", "name": "Save"}, "if_shown": {"role": "alert", "name": "Nope"},
             "else_shown": {"role": "button", "name": "Launch rocket"}}]
    _, error, _ = run(_play(pool, lost, start=f"/contacts/{mine}", persona=rep, timeout_s=0.5))
    assert error is not None and "neither alert 'Nope' nor button 'Launch rocket' showed after 0.5s" in str(error)
    with pytest.raises(ValueError, match="'else_shown' goes with 'if_shown'"):
        parse_steps([{"click": "Save", "else_shown": "Done"}])


def test_a_lookup_takes_the_suggestion_named_exactly_when_several_contain_the_name(pool, store) -> None:  # noqa: ANN001
    """An account whose name another account's contains (a parent and its regional subsidiaries): every
    suggestion matches the typed name, and the player takes the one whose own line is exactly it."""
    conn = sqlite3.connect(f"file:{store.template(0)}?mode=ro", uri=True)
    acct, name = conn.execute(
        "select a.id, a.name from crm_account a where (select count(*) from crm_account x where x.name = a.name) = 1 "
        "and exists (select 1 from crm_account t where t.id != a.id and instr(t.name, a.name) > 0) order by a.id").fetchone()
    owner = conn.execute("select u.username from crm_account a join identity_user u on u.id = a.owner_id where a.id = ?", (acct,)).fetchone()[0]
    conn.close()
    dialog = {"role": "dialog", "name": "New Opportunity: New Business"}
    steps = [
        {"click": {"role": "button", "name": "New", "within": {"role": "group", "name": "List actions"}}},
        {"click": {"role": "button", "name": "Next", "within": {"role": "dialog", "name": "New Opportunity"}}},
        {"fill": {"label": "Opportunity Name", "within": dialog}, "text": f"{name} - Lookup Check"},
        {"lookup": {"role": "combobox", "name": "Account Name", "exact": False, "within": dialog}, "text": name},
        {"fill": {"label": "Close Date", "within": dialog}, "text": "2027-01-15"},
        {"select": {"label": "Stage", "within": dialog}, "option": "Prospecting"},
        {"click": {"role": "button", "name": "Save", "within": dialog}},
        {"wait_for": {"role": "heading", "name": f"{name} - Lookup Check"}},
    ]
    _, error, world = run(_play(pool, steps, start="/opportunities", persona=owner))
    assert error is None, error
    db = sqlite3.connect(f"file:{world}?mode=ro", uri=True)
    assert db.execute("select account_id from crm_opportunity where name = ?", (f"{name} - Lookup Check",)).fetchone() == (acct,)
    db.close()


def test_a_long_text_is_typed_in_bursts_that_join_to_it() -> None:
    words = " ".join(f"word{i}" for i in range(300))  # about 2,000 characters
    parts = type_bursts(words)
    assert "".join(parts) == words and len(parts) > 1
    assert all(len(p) <= TYPE_BURST for p in parts)
    assert all(p.endswith(" ") for p in parts[:-1])  # cut after a space, not inside a word
    assert type_bursts("x" * (TYPE_BURST + 1)) == ["x" * TYPE_BURST, "x"]  # no space: cut at the size
    assert type_bursts("short") == ["short"] and type_bursts("") == [""]

"""Many episodes at once over one Chromium and one host: isolation, a cap, sync and async faces."""

from __future__ import annotations

import asyncio

import pytest

from sandbox.loop import background_loop
from sandbox.pool import EpisodePool, SyncEpisodePool
from sandbox.spec import free_spec

pytestmark = pytest.mark.browser

WHOAMI = "fetch('/whoami').then(r => r.json())"


def test_concurrent_episodes_are_isolated(sbx_runtime):  # noqa: ANN001
    async def main() -> list:
        async with EpisodePool(runtime=sbx_runtime, max_concurrency=2) as pool:
            specs = [free_spec("playground", role="sales_rep"), free_spec("playground", role="sales_manager")]
            first = await pool.reset(specs)
            a, b = pool.envs
            await a.page.evaluate("document.cookie = 'secret=a; path=/'; localStorage.setItem('secret', 'a')")
            seen = []
            for env, (obs, info) in zip((a, b), first):
                me = await env.page.evaluate(WHOAMI)
                seen.append((info["world_id"], info["persona"], me, await env.page.evaluate("document.cookie"),
                             await env.page.evaluate("localStorage.getItem('secret')")))
            # a write to one world is invisible in the other
            wa = pool.runtime.store.get(first[0][1]["world_id"])
            import sqlite3
            conn = sqlite3.connect(wa.path)
            conn.execute("update identity_user set title='changed'")
            conn.commit()
            conn.close()
            wb = pool.runtime.store.get(first[1][1]["world_id"])
            conn = sqlite3.connect(wb.path)
            untouched = conn.execute("select count(*) from identity_user where title='changed'").fetchone()[0]
            conn.close()
            results = await pool.step([{"action": "screenshot"}, {"action": "screenshot"}])
            return seen, untouched, results

    seen, untouched, results = background_loop().run(main())
    (wa, ua, mea, cookie_a, ls_a), (wb, ub, meb, cookie_b, ls_b) = seen
    assert wa != wb and ua != ub
    assert mea == {"world": wa, "user": ua, "header": wa} and meb == {"world": wb, "user": ub, "header": wb}
    assert "secret=a" in cookie_a and "secret" not in cookie_b
    assert ls_a == "a" and ls_b is None
    assert untouched == 0
    assert not results[0][4]["changes"].is_empty and results[1][4]["changes"].is_empty


def test_run_respects_the_cap(sbx_runtime):  # noqa: ANN001
    seen = []

    async def main() -> list:
        async with EpisodePool(runtime=sbx_runtime, max_concurrency=2) as pool:

            async def policy(obs, info):  # noqa: ANN001
                seen.append(len(pool._envs))  # episodes holding a slot right now
                if info.get("step", 0) >= 2:
                    return {"action": "answer", "text": obs["title"]}
                await asyncio.sleep(0)
                return {"action": "left_click", "x": 520, "y": 30}

            return await pool.run([free_spec("playground", "/counter?n=0")] * 5, policy)

    results = background_loop().run(main())
    assert len(results) == 5 and all(r.error is None for r in results), [r.error for r in results]
    assert all(r.terminated and r.steps == 3 and r.answer == "Counter 0" for r in results)
    assert max(seen) == 2 and len(seen) == 15


def test_sync_pool(sbx_runtime):  # noqa: ANN001
    with SyncEpisodePool(runtime=sbx_runtime, max_concurrency=3) as pool:
        first = pool.reset([free_spec("playground", "/counter?n=1")] * 3)
        assert [obs["title"] for obs, info in first] == ["Counter 1"] * 3
        assert len({info["world_id"] for obs, info in first}) == 3
        out = pool.step([{"action": "left_click", "x": 520, "y": 30}] * 3)
        assert all(o[0]["last_action_error"] == "" for o in out)
        texts = pool.call(lambda p: asyncio.gather(*(e.page.text_content("#block") for e in p.envs)))
        assert texts == ["2", "2", "2"]
        results = pool.run([free_spec("playground")], lambda obs, info: {"action": "answer", "text": "ok"})
        assert results[0].answer == "ok" and results[0].steps == 1
        with pytest.raises(ValueError):
            pool.reset([free_spec("playground")] * 4)

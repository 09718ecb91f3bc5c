"""Models, without the network: the model judge and model-backed co-workers against a real local HTTP
server that speaks the OpenAI chat-completions and Anthropic messages APIs (a stand-in for the
external service, returning canned JSON), the reply cache that makes a second run offline, and the
policy checks that refuse a leaking or over-the-limit reply."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

from sandbox.coworkers import Coworkers
from sandbox.coworkers.model import ModelCoworkers, figures, parse_mode
from sandbox.models import JudgeReplyError, ModelClient, ModelConfig, ModelJudge, ModelUnavailable
from verifiers import Judgement, JudgeRequest, build_verifier, use_judge
from verifiers.verdict import Check

from .conftest import ModelAPIStandIn


class FakeModelAPI:
    """Answers POST /chat/completions (OpenAI-shaped) and /v1/messages (Anthropic-shaped) with the
    texts ``reply(request_body)`` returns, or those of a list one at a time (the last one again once
    it runs out); records every request."""

    def __init__(self, reply: Callable[[dict[str, Any]], str] | list[str], *, fail_first: list[int] | None = None) -> None:
        failures = list(fail_first or [])  # statuses of the first answers (a rate limit, an overload), then the replies
        queue = list(reply) if isinstance(reply, list) else None

        def answer(path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
            if failures:
                return failures.pop(0), {"error": {"type": "rate_limit_error", "message": "Rate limit reached, retry after 0s"}}, {"retry-after": "0"}
            text = (queue.pop(0) if len(queue) > 1 else queue[0]) if queue is not None else reply(body)  # type: ignore[operator]
            if path.endswith("/v1/messages"):
                return 200, {"id": "msg_01", "type": "message", "role": "assistant", "model": body["model"], "stop_reason": "end_turn",
                             "content": [{"type": "text", "text": text}], "usage": {"input_tokens": 310, "output_tokens": 42}}, {}
            return 200, {"id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
                         "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
                         "usage": {"prompt_tokens": 310, "completion_tokens": 42, "total_tokens": 352}}, {}

        self._api = ModelAPIStandIn(answer)
        self.requests, self.url = self._api.requests, self._api.url

    def close(self) -> None:
        self._api.close()


@pytest.fixture(autouse=True)
def _no_ambient_endpoints(monkeypatch):  # noqa: ANN001, ANN202
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "SANDBOX_MODEL_OFFLINE"):
        monkeypatch.delenv(var, raising=False)


def request(**over: Any) -> JudgeRequest:
    data = {"instruction": "Mail Dana a short, polite summary of the Northwind deal.", "rubric": "the summary is polite and names the amount",
            "answer": "Sent.", "screenshot": b"\x89PNG fake", "checks": [Check(name="mail", passed=True, sentence="a mail went to Dana")]}
    return JudgeRequest(**{**data, **over})


# -- the client and the judge ------------------------------------------------------------------------------------
def test_model_specs_parse_and_say_what_is_wrong() -> None:
    c = ModelConfig.parse("openai:qwen2.5-7b@http://localhost:8000/v1/,key=BOX_KEY,images=false,offline")
    assert (c.kind, c.model, c.base_url, c.key_env, c.images, c.offline, c.name) == (
        "openai", "qwen2.5-7b", "http://localhost:8000/v1", "BOX_KEY", False, True, "openai:qwen2.5-7b")
    assert ModelConfig.parse("anthropic:claude-sonnet-4-5").base_url is None
    body = ModelClient("openai:o4-mini,reasoning").body("sys", [{"role": "user", "text": "hi"}])
    assert "temperature" not in body and body["max_completion_tokens"] == 1024 and "max_tokens" not in body
    for bad, why in (("gpt-4o", "KIND:MODEL"), ("mistral:x", "KIND:MODEL"), ("openai:m@localhost", "http"), ("openai:m,colour=red", "unknown model option"),
                     ("openai:m,images=maybe", "true or false")):
        with pytest.raises(ValueError, match=why):
            ModelConfig.parse(bad)
    assert parse_mode("policy") is None and parse_mode(None) is None
    with pytest.raises(ValueError, match="model:KIND:MODEL"):
        parse_mode("openai:gpt-4o")


def test_judge_on_an_openai_compatible_server_parses_the_score_and_sends_the_evidence(tmp_path) -> None:  # noqa: ANN001
    api = FakeModelAPI(['{"score": 0.85, "explanation": "Polite, and it names $84,000."}'])
    try:
        judge = ModelJudge(f"openai:local-judge@{api.url}/v1,cache={tmp_path}")
        got = judge(request())
    finally:
        api.close()
    assert got == Judgement(score=0.85, explanation="Polite, and it names $84,000.", judge="openai:local-judge", cached=False)
    sent = api.requests[0]
    assert sent["path"] == "/v1/chat/completions" and "authorization" not in sent["headers"]  # a local server needs no key
    body = sent["body"]
    assert body["model"] == "local-judge" and body["temperature"] == 0 and body["messages"][0]["role"] == "system"
    parts = body["messages"][1]["content"]
    text = parts[0]["text"]
    assert "names the amount" in text and "Sent." in text and "passed: a mail went to Dana" in text and "Mail Dana" in text
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")  # the final screenshot goes along


def test_judge_on_an_anthropic_server_with_a_key_and_a_fenced_reply(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-test-123")
    api = FakeModelAPI(['```json\n{"score": 1, "explanation": "Meets the rubric."}\n```'])
    try:
        got = ModelJudge(f"anthropic:claude-judge@{api.url},key=MY_JUDGE_KEY,images=false,cache={tmp_path}")(request())
    finally:
        api.close()
    assert (got.score, got.explanation, got.judge) == (1.0, "Meets the rubric.", "anthropic:claude-judge")
    sent = api.requests[0]
    assert sent["path"] == "/v1/messages" and sent["headers"]["x-api-key"] == "sk-test-123" and sent["headers"]["anthropic-version"]
    assert [b["type"] for b in sent["body"]["messages"][0]["content"]] == ["text"]  # images=false: no screenshot


def test_a_malformed_reply_is_retried_once_then_a_clear_error_never_a_silent_zero(tmp_path) -> None:  # noqa: ANN001
    api = FakeModelAPI(["I'd say it is pretty good, 8/10.", '{"score": 0.8, "explanation": "Good."}',
                        "Sure! Score: high", '{"score": 4, "explanation": "out of 5"}'])
    try:
        judge = ModelJudge(f"openai:j@{api.url}/v1,cache={tmp_path}")
        assert judge(request()).score == 0.8  # the second reply is used
        retry = api.requests[1]["body"]["messages"]
        assert retry[-2] == {"role": "assistant", "content": "I'd say it is pretty good, 8/10."}
        assert "not a JSON object" in retry[-1]["content"]
        with pytest.raises(JudgeReplyError, match=r"twice .*'score' must be from 0 to 1, got 4"):
            judge(request(answer="Done."))
        # Through a verifier: the judge check fails with the error (no score pretending to be a grade).
        previous = use_judge(ModelJudge(f"openai:j@{api.url}/v1,cache={tmp_path}"))
        try:
            v = build_verifier([{"kind": "judge", "rubric": "the summary is polite"}]).verify(_ctx(answer="Done."))
        finally:
            use_judge(previous)
    finally:
        api.close()
    assert not v.passed and v.checks[0].error.startswith("the judge failed: JudgeReplyError: openai:j did not reply with the JSON")


def _ctx(**over: Any):  # noqa: ANN202
    from verifiers import VerifyContext

    return VerifyContext(**{"instruction": "Mail Dana a summary.", "end_db": "unused.sqlite", **over})  # a judge check reads no rows


def test_the_cache_replays_a_graded_run_offline_and_a_miss_says_what_to_set(tmp_path) -> None:  # noqa: ANN001
    api = FakeModelAPI(lambda body: '{"score": 0.7, "explanation": "Mostly polite."}')
    verifier = build_verifier([{"kind": "judge", "rubric": "the summary is polite and names the amount", "threshold": 0.6}])
    ctx = _ctx(answer="Sent.", final_screenshot=b"\x89PNG fake")

    def grade(spec: str):  # noqa: ANN202
        judge = ModelJudge(spec)
        previous = use_judge(judge)  # what `sandbox run --judge SPEC` does for the run
        try:
            return verifier.verify(ctx), judge
        finally:
            use_judge(previous)

    first, _ = grade(f"openai:j@{api.url}/v1,cache={tmp_path}")
    api.close()
    # The server is gone and no URL or key is configured: the same request comes from the cache.
    second, again = grade(f"openai:j,cache={tmp_path}")
    assert first.passed and first.checks[0].actual == {"score": 0.7, "explanation": "Mostly polite.", "judge": "openai:j", "cached": False}
    assert second.passed and second.checks[0].actual == {**first.checks[0].actual, "cached": True}
    assert len(api.requests) == 1 and again.client.usage["requests"] == 0 and again.client.usage["cached"] == 1
    files = list(tmp_path.rglob("*.json"))
    stored = json.loads(files[0].read_text())
    assert len(files) == 1 and stored["model"] == "j" and "sha256:" in json.dumps(stored["request"])  # the screenshot by digest
    with pytest.raises(ModelUnavailable, match=r"no endpoint is configured for openai:j: set OPENAI_API_KEY .*openai:j@http://HOST:PORT/v1"):
        again(request(answer="Something else"))
    with pytest.raises(ModelUnavailable, match="offline"):
        ModelJudge(f"openai:j@{api.url}/v1,offline,cache={tmp_path}")(request(answer="Another"))


def test_a_rate_limited_endpoint_is_asked_again_and_a_lasting_error_is_named(tmp_path) -> None:  # noqa: ANN001
    api = FakeModelAPI(['{"score": 0.6, "explanation": "Fine."}'], fail_first=[429, 529])
    try:
        assert ModelJudge(f"anthropic:j@{api.url},cache={tmp_path}")(request()).score == 0.6
        assert len(api.requests) == 3  # two refusals (Retry-After: 0), then the reply
    finally:
        api.close()
    api = FakeModelAPI(["unused"], fail_first=[429] * 4)
    try:
        with pytest.raises(Exception, match="OpenAI API 429: rate_limit_error: Rate limit reached"):
            ModelJudge(f"openai:j@{api.url}/v1,cache={tmp_path}")(request())
        assert len(api.requests) == 4
    finally:
        api.close()


def test_the_client_keys_by_kind_model_request_and_scope(tmp_path) -> None:  # noqa: ANN001
    a = ModelClient(f"openai:m,cache={tmp_path}")
    body = a.body("sys", [{"role": "user", "text": "hi"}])
    assert a.key(body) == ModelClient(f"openai:m@http://elsewhere/v1,cache={tmp_path}").key(body)  # the URL is not the request
    assert a.key(body) != ModelClient("openai:m2").key(body) and a.key(body) != a.key(body, {"seed": 1})
    assert a.key(body, {"seed": 1, "world": "w"}) == a.key(body, {"world": "w", "seed": 1})


# -- model-backed co-workers -----------------------------------------------------------------------------------
MONDAY = datetime(2026, 3, 16, 9, 30)


def _people(conn):  # noqa: ANN001, ANN202
    rep, manager = conn.execute(
        "select u.username, m.username from identity_user u join identity_user m on m.id = u.manager_id "
        "where u.role = 'sales_rep' and u.active order by u.id limit 1").fetchone()
    return rep, manager


def _chat(conn, sender: str, to: str, text: str, at: datetime) -> None:  # noqa: ANN001
    from sqlmodel import select

    from apps_web.chat.service import Draft, existing_oneonone, post, start_chat
    from apps_web.identity.models import User
    from apps_web.messaging import session_on

    with session_on(conn) as s:
        me = s.exec(select(User).where(User.username == sender)).one()
        other = s.exec(select(User).where(User.username == to)).one()
        conv = existing_oneonone(s, me.id, other.id)
        post(s, me, conv, Draft(text=text), at) if conv else start_chat(s, me, [other.id], "", Draft(text=text), at)
        s.commit()


def _boss(manager: str) -> dict[str, Any]:
    return {"user": manager, "delay": "10m", "tone": "friendly", "never_share": "floor prices stay within the deal desk",
            "knows": [{"topic": ["renewal", "renew"], "answer": "Northwind renews on April 30 for $84,000."},
                      {"topic": ["floor", "floor price"], "answer": "The Northwind floor price is $71,500.", "confidential": True,
                       "share_with": ["nobody-here"]}],
            "approves": [{"what": ["discount"], "limit": 15, "unit": "%", "policy": "Pricing Policy PP-7"}]}


def _replies(conn, manager: str) -> list[str]:  # noqa: ANN001
    return [r[0] for r in conn.execute(
        "select body_text from chat_message m join identity_user u on u.id = m.author_id where u.username = ? "
        "and m.created_at >= '2026-03-16 09:30' order by m.id", (manager,))]


def test_model_coworkers_reply_within_the_policy_and_a_leak_falls_back_to_the_policy(store, tmp_path, caplog) -> None:  # noqa: ANN001
    w = store.create(0)
    conn = w.connect(readonly=False)
    canned = {
        "renew": {"decision": "answer", "fact": 1, "delegate_to": None,
                  "text": "Hey! Just checked the account: Northwind renews on April 30 for $84,000. Shout if you need the contract."},
        "floor": {"decision": "answer", "fact": None, "delegate_to": None,
                  "text": "Between us, don't go under 71.5k, that's the floor."},  # a leak, in other words
        "discount": {"decision": "approve", "fact": None, "delegate_to": None, "text": "Sure, 22% is fine, go ahead."},  # over the limit
    }

    def reply(body: dict[str, Any]) -> str:
        asked = body["messages"][-1]["content"].lower()
        return json.dumps(next(v for k, v in canned.items() if k in asked))

    api = FakeModelAPI(reply)
    try:
        rep, manager = _people(conn)
        mates = ModelCoworkers(f"openai:coworker@{api.url}/v1,cache={tmp_path}")
        cw = Coworkers.from_spec([_boss(manager)], [], {"per_step": "1m"}, seed=4, model=mates, world="chat.test-models")
        cw.attach(conn)
        _chat(conn, rep, manager, "When does Northwind renew?", cw.now)
        _chat(conn, rep, manager, "What's the floor price on Northwind?", cw.now)
        _chat(conn, rep, manager, "Can you approve a 22% discount for Northwind?", cw.now)
        with caplog.at_level("WARNING", logger="sandbox.coworkers"):
            cw.after_step(conn, persona=rep, action_name="click")
        out = cw.after_step(conn, persona=rep, action_name="wait")
        texts = _replies(conn, manager)
    finally:
        conn.close()
        store.drop(w)
        api.close()
    assert [d["decision"] for d in out] == ["answer", "refuse", "refuse"]
    accepted, leak, over = (d["model"] for d in out)
    assert accepted == {"model": "openai:coworker", "policy": "answer", "cached": False, "decision": "answer", "accepted": True}
    assert texts[0] == canned["renew"]["text"]  # the model's own wording, with the fact verbatim
    assert leak["accepted"] is False and "confidential fact 2 (the figure 71500)" in leak["refused"]
    assert "71.5" not in texts[1] and "71,500" not in texts[1] and "floor prices stay within the deal desk" in texts[1]  # the policy's refusal
    assert over["accepted"] is False and "it would approve where the policy says refuse (22% is over the 15% limit" in over["refused"]
    assert "over the 15% limit in Pricing Policy PP-7" in texts[2]
    assert sum("was refused" in r.message for r in caplog.records) == 2
    system = api.requests[0]["body"]["messages"][0]["content"]
    assert "CONFIDENTIAL: may only be told to" in system and "up to 15% under Pricing Policy PP-7" in system


def test_model_coworker_replies_replay_from_the_cache_word_for_word(store, tmp_path) -> None:  # noqa: ANN001
    text = {"decision": "clarify", "fact": None, "delegate_to": None, "text": "Which account do you mean, the one in Leeds or in York?"}
    api = FakeModelAPI(lambda body: json.dumps(text))
    runs = []
    for round_ in range(2):
        w = store.create(0)
        conn = w.connect(readonly=False)
        try:
            rep, manager = _people(conn)
            url = f"@{api.url}/v1" if round_ == 0 else ""  # the replay has no endpoint at all
            cw = Coworkers.from_spec([_boss(manager)], [], {}, seed=9, model=ModelCoworkers(f"openai:coworker{url},cache={tmp_path}"), world="t")
            cw.attach(conn)
            _chat(conn, rep, manager, "Quick one about the account?", cw.now)
            cw.after_step(conn, persona=rep, action_name="click")
            out = cw.after_step(conn, persona=rep, action_name="wait")
            runs.append(([d["text"] for d in out], [d["model"]["cached"] for d in out], _replies(conn, manager)))
        finally:
            conn.close()
            store.drop(w)
    api.close()
    assert runs[0][0] == runs[1][0] == [text["text"]] == runs[1][2]
    assert (runs[0][1], runs[1][1], len(api.requests)) == ([False], [True], 1)


def test_figures_read_amounts_written_different_ways() -> None:
    assert figures("$131,000") == figures("131k") == figures("131 thousand") == {131000.0}
    assert figures("a 12% discount, 12 percent") == {12.0}
    assert figures("on April 30, 2 days") == set()  # small plain numbers are not figures


def test_the_cli_options_set_the_models_for_the_run_and_put_them_back() -> None:
    from sandbox.coworkers.model import default_model
    from sandbox.models.setup import models_in_use
    from verifiers import default_judge

    assert default_judge() is None and default_model() is None
    with models_in_use("openai:j@http://127.0.0.1:9/v1", "model:anthropic:c@http://127.0.0.1:9"):
        assert default_judge().name == "openai:j" and default_model().name == "anthropic:c"
    assert default_judge() is None and default_model() is None
    with models_in_use(None, "policy"):
        assert default_judge() is None and default_model() is None
    from sandbox.cluster import RayOptions

    opts = RayOptions(address="local")
    with models_in_use("openai:j@http://127.0.0.1:9/v1", "model:anthropic:c@http://127.0.0.1:9", opts):
        assert default_judge() is None and default_model() is None  # the actors ask the models, not this process
    assert (opts.judge, opts.coworkers) == ("openai:j@http://127.0.0.1:9/v1", "model:anthropic:c@http://127.0.0.1:9")
    with pytest.raises(ValueError, match="KIND:MODEL"):
        with models_in_use(None, "model:gpt-4o", RayOptions(address="local")):
            pass
    with pytest.raises(ValueError, match="KIND:MODEL"):
        with models_in_use("gpt-4o", None):
            pass
    assert default_judge() is None


def _first_one_on_one(store) -> tuple[int, str, str]:  # noqa: ANN001
    """A 1:1 chat of seed 0's world: (conversation id, one member, the other)."""
    w = store.create(0)
    with w.connect() as conn:
        row = conn.execute(
            "select c.id, a.username, b.username from chat_conversation c "
            "join chat_member ma on ma.conversation_id = c.id join identity_user a on a.id = ma.user_id "
            "join chat_member mb on mb.conversation_id = c.id join identity_user b on b.id = mb.user_id "
            "where c.kind = 'oneonone' and a.id < b.id order by c.id limit 1").fetchone()
    store.drop(w)
    return row


def test_in_real_chromium_a_model_colleague_answers_after_a_wait(make_env, store, tmp_path) -> None:  # noqa: ANN001
    """The episode asks the model off its event loop, writes the accepted reply as the colleague, and
    the page the agent sees shows it after a `wait`."""
    from sandbox.coworkers.model import use_model
    from sandbox.spec import free_spec

    conv, persona, colleague = _first_one_on_one(store)
    fact = "The Northwind renewal is due on April 30."
    worded = f"Morning! Just confirmed it with legal: {fact} I'll send the paperwork over this afternoon."
    api = FakeModelAPI([json.dumps({"decision": "answer", "fact": 1, "delegate_to": None, "text": worded})])
    spec = free_spec("chat", f"/chat/{conv}", "Ask about the renewal", persona=persona).replace(
        actors=({"user": colleague, "delay": "15m", "knows": [{"topic": ["renewal"], "about": "Northwind", "answer": fact}]},),
        clock={"per_step": "1m"})
    previous = use_model(ModelCoworkers(f"openai:colleague@{api.url}/v1,cache={tmp_path}"))
    try:
        env = make_env(spec=spec)
        env.reset(seed=0)
    finally:
        use_model(previous)  # the episode keeps the model it was opened with
    try:
        page = env.core.page
        box = env.run(page.get_by_role("textbox", name="Type a message").bounding_box())
        env.step({"action": "left_click", "x": int(box["x"] + 20), "y": int(box["y"] + 10)})
        env.step({"action": "type", "text": "Hi! When is the Northwind renewal due?"})
        env.step({"action": "key", "key": "Return"})
        _, _, _, _, info = env.step({"action": "wait", "duration": 0})
        assert [(d["actor"], d["text"], d["model"]["accepted"]) for d in info["coworkers"]] == [(colleague, worded, True)]
        assert worded in env.run(page.inner_text("main"))
        assert "Northwind renewal due?" in api.requests[0]["body"]["messages"][-1]["content"]
    finally:
        api.close()


def test_a_tool_episode_asks_a_model_colleague_off_its_event_loop(store, tmp_path) -> None:  # noqa: ANN001
    """While the model is asked, the host's event loop keeps serving other sessions: the stand-in
    answers only once a coroutine on that loop has run (asked on the loop, it would wait in vain)."""
    import asyncio
    import threading

    from apps_web.host import create_host
    from sandbox.coworkers.model import use_model
    from sandbox.loop import background_loop
    from sandbox.spec import free_spec
    from sandbox.tool_episode import ToolEpisode

    conv, persona, colleague = _first_one_on_one(store)
    fact = "The Northwind renewal is due on April 30."
    asked, loop_ran = threading.Event(), threading.Event()

    def reply(body: dict[str, Any]) -> str:
        asked.set()
        ran = loop_ran.wait(10)
        return json.dumps({"decision": "answer", "fact": 1, "delegate_to": None,
                           "text": f"Confirmed with legal: {fact}" if ran else f"(the loop was stalled) {fact}"})

    api = FakeModelAPI(reply)
    spec = free_spec("chat", f"/chat/{conv}", "Ask about the renewal", persona=persona).replace(
        actors=({"user": colleague, "delay": "15m", "knows": [{"topic": ["renewal"], "about": "Northwind", "answer": fact}]},),
        clock={"per_step": "1m"})
    host = create_host(store, secret="test-secret")

    async def ask() -> list[dict[str, Any]]:
        ep = await ToolEpisode.open(host, spec)
        try:
            async def tick() -> None:  # another session's work on the same loop, resumed while the model is asked
                await asyncio.to_thread(asked.wait, 10)
                loop_ran.set()

            # the colleague decides (the model is asked) when the message is sent; the reply comes on a wait
            sent, _ = await asyncio.gather(ep.call("chat_create_message", {"conv_id": conv, "text": "Hi! When is the Northwind renewal due?"}), tick())
            assert sent.ok, sent.text()
            return await ep.wait()
        finally:
            await ep.close()

    previous = use_model(ModelCoworkers(f"openai:colleague@{api.url}/v1,cache={tmp_path}"))
    try:
        delivered = background_loop().run(ask())
    finally:
        use_model(previous)
        api.close()
    assert [(d["actor"], d["text"]) for d in delivered] == [(colleague, f"Confirmed with legal: {fact}")]


@pytest.mark.parametrize("text, sender, reply, accepted", [
    # answers: a fact the asker may be told, quoted verbatim
    ("When does Northwind renew?", "rep1", {"decision": "answer", "fact": 1, "text": "Northwind renews on April 30 for $84,000. Cheers"}, "answer"),
    ("When does Northwind renew?", "rep1", {"decision": "answer", "fact": 1, "text": "End of April, about 84k."}, "verbatim"),
    ("What is the floor price?", "rep1", {"decision": "answer", "fact": 2, "text": "The Northwind floor price is $71,500."}, "confidential fact 2"),
    ("What is the floor price?", "dealdesk", {"decision": "answer", "fact": 2, "text": "The Northwind floor price is $71,500."}, "answer"),
    ("What is the floor price?", "rep1", {"decision": "refuse", "text": "Sorry, floor prices stay within the deal desk."}, "refuse"),
    ("What is the floor price?", "rep1", {"decision": "clarify", "text": "Which deal? Seventy-one five is the usual, 71500."}, "the figure 71500"),
    # approvals: the policy's outcome
    ("Can you approve a 12% discount?", "rep1", {"decision": "approve", "text": "Approved, 12% is fine."}, "approve"),
    ("Can you approve a 12% discount?", "rep1", {"decision": "approve", "text": "Approved: 12%, my limit is 15% (PP-7), for 2026."}, "approve"),
    ("Can you approve a 12% discount?", "rep1", {"decision": "approve", "text": "Approved, and take 20% if they push."}, "it states 20, which neither"),
    ("When does Northwind renew?", "rep1", {"decision": "answer", "fact": 1, "text": "Northwind renews on April 30 for $84,000. Up from $80k."},
     "it states 80000"),
    ("Can you approve a 12% discount?", "rep1", {"decision": "refuse", "text": "No."}, "would refuse where the policy says approve"),
    ("Can you approve a 12% discount?", "rep1", {"decision": "clarify", "text": "For which deal?"}, "answers with clarify an approval"),
    ("Can you approve a 22% discount?", "rep1", {"decision": "refuse", "text": "22% is more than I can sign off."}, "refuse"),
    ("Could you approve a discount for Globex?", "rep1", {"decision": "approve", "text": "Sure."}, "approves what the policy does not (clarify)"),
    ("Can I have a new chair?", "rep1", {"decision": "approve", "text": "Yes, get one."}, "approves what the policy does not"),
    # delegation: only to whom the profile names
    ("Who handles the invoice?", "rep1", {"decision": "delegate", "delegate_to": "ap1", "text": "Ask Avery in AP."}, "delegate"),
    ("Who handles the invoice?", "rep1", {"decision": "delegate", "delegate_to": "ceo", "text": "Ask the CEO."}, "who is not among"),
])
def test_a_model_reply_is_accepted_only_within_the_policy(text: str, sender: str, reply: dict, accepted: str) -> None:
    from apps_web.messaging import Request
    from sandbox.coworkers import Actor, decide
    from sandbox.coworkers.model import check, parse_reply

    boss = Actor.model_validate({**_boss("boss"), "delegates": [{"topic": ["invoice"], "to": "ap1"}]})
    boss = boss.model_copy(update={"knows": [boss.knows[0], boss.knows[1].model_copy(update={"share_with": ["dealdesk"]})]})
    request = Request(app="chat", kind="message", sender=sender, to=("boss",), text=text, at=MONDAY)
    decision, why = check(boss, request, decide(boss, request), parse_reply(json.dumps(reply)))
    if accepted in ("answer", "refuse", "approve", "delegate", "clarify"):
        assert decision is not None and decision.kind == accepted and why == "", why
    else:
        assert decision is None and accepted in why, why

"""Model-backed co-workers: a model makes the co-worker's decision and writes the reply, within the
actor's facts and policy.

The model sees the actor's profile (role, tone, facts with their confidentiality, approval rules,
delegations) and the request, and replies with strict JSON: the decision (answer, clarify, approve,
refuse, delegate), the fact it used, whom it delegates to, and the text. The reply is then checked
against the deterministic policy (:func:`check`):

- no confidential fact may reach someone outside its ``share_with`` (its text, or a figure of it
  written another way: ``$131,000`` as ``131k``);
- an answer names a fact the asker may be told and carries its text verbatim (verifiers rely on it);
- an approval's outcome is the policy's: approve only what the policy approves, refuse what it refuses;
- a delegation goes to someone the profile delegates to (or the manager);
- no figure is made up: every amount or percentage in the text is in the request, a fact the asker
  may be told, or a limit of the rules.

A reply that fails is refused: the policy's own decision and wording are used instead, and the refusal
is logged (``sandbox.coworkers`` logger, and in the delivery's ``model`` record). Working hours and
out of office stay the policy's. Replies are cached by the client under (world, conversation, seed),
so a run replays exactly, offline.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from apps_web.messaging import Request

from .policy import Decision
from .profile import Actor, Fact

log = logging.getLogger("sandbox.coworkers")
KINDS = ("answer", "clarify", "approve", "refuse", "delegate")
MAX_TEXT = 2000
_FIGURE = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*(k|m|bn|million|thousand|billion|%|percent|per cent)?(?![\w])", re.I)
_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}


class ModelReplyError(ValueError):
    """The model's reply is not the JSON asked for."""


@dataclass
class Outcome:
    """What the engine uses: the decision and text (the model's, or the policy's after a refusal),
    and the log record kept with the reply."""

    decision: Decision | None  # None: use the policy's decision and wording
    text: str | None
    record: dict[str, Any] = field(default_factory=dict)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip().lower()


def figures(text: str) -> set[float]:
    """The numbers a text states, scaled (``$2.5k`` -> 2500, ``131,000`` -> 131000); one- and
    two-digit plain numbers (days, counts) are left out unless they are percentages."""
    out: set[float] = set()
    for m in _FIGURE.finditer(text or ""):
        try:
            v = float(m.group(1).replace(",", ""))
        except ValueError:
            continue
        unit = (m.group(2) or "").lower()
        if unit in ("%", "percent", "per cent"):
            out.add(v)
            continue
        v *= _SCALE.get(unit, 1)
        if v >= 100 or "." in m.group(1):
            out.add(v)
    return out


def leaks(fact: Fact, reply: str, *, known: str = "") -> str | None:
    """How ``reply`` gives away ``fact`` (None when it does not): its text, or one of its figures not
    already in ``known`` (the request and what the asker may be told)."""
    if _norm(fact.answer) in _norm(reply):
        return "its text"
    shown = figures(reply) & (figures(fact.answer) - figures(known))
    if shown:
        return "the figure " + ", ".join(f"{v:g}" for v in sorted(shown))
    return None


def hidden_facts(actor: Actor, sender: str) -> list[Fact]:
    return [f for f in actor.knows if f.confidential and sender not in f.share_with]


def prompt(actor: Actor, request: Request, *, name: str, requester: str, names: dict[str, str]) -> tuple[str, str]:
    """The system text and the user text for one request."""
    who = name + (f", {actor.role}" if actor.role else "")
    lines = [f"You are {who}, an employee answering a colleague at work. Write like a real person in a {actor.tone} tone, "
             "briefly, in the message's language. Decide what to do with the request, using only the facts and rules below; "
             "never invent facts, figures or dates.",
             "", "Facts you know (number: text):"]
    for i, f in enumerate(actor.knows, 1):
        tags = []
        if f.about:
            tags.append(f"about {f.about}")
        if f.confidential:
            allowed = ", ".join(f"{names.get(u, u)} ({u})" for u in f.share_with) or "nobody"
            tags.append(f"CONFIDENTIAL: may only be told to {allowed}")
        lines.append(f"{i}: {f.answer}" + (f"  [{'; '.join(tags)}]" if tags else ""))
    if not actor.knows:
        lines.append("(none)")
    lines += ["", "What you may approve:"]
    for r in actor.approves:
        lines.append(f"- {', '.join(r.what)}: up to {r.limit_text()} under {r.policy}")
    if not actor.approves:
        lines.append("(nothing)")
    lines += ["", "Topics other people handle:"]
    for d in actor.delegates:
        lines.append(f"- {', '.join(d.topic)}: {names.get(d.to, d.to)} (username {d.to})")
    if actor.manager:
        lines.append(f"Your manager: {names.get(actor.manager, actor.manager)} (username {actor.manager})")
    lines += ["", "Decisions:",
              "- answer: give a fact the asker may be told; include the fact's text exactly as written above.",
              "- clarify: ask which thing they mean, or the amount, when the request is ambiguous or gives none.",
              "- approve: only a request you may approve, with an amount within your limit.",
              "- refuse: a request over your limit or outside what you may approve (say why, citing the policy), or a "
              f"confidential fact the asker may not be told (say: {actor.never_share}).",
              "- delegate: tell them who handles the topic.",
              "",
              'Reply with one JSON object and nothing else: {"decision": "answer|clarify|approve|refuse|delegate", '
              '"fact": <the number of the fact you used, or null>, "delegate_to": <a username, or null>, "text": "<your message>"}']
    system = "\n".join(lines)
    req = [f"From: {requester} (username {request.sender})", f"Via: {request.app}" + (" (an approval request)" if request.kind == "approval" else "")]
    if request.subject:
        req.append(f"Subject: {request.subject}")
    if request.amount is not None:
        req.append(f"Amount of the record: {request.amount:g}{'%' if request.amount_unit == '%' else ''}")
    req += ["", request.text or "(no text)"]
    return system, "\n".join(req)


def parse_reply(text: str) -> dict[str, Any]:
    from sandbox.models.client import parse_json_reply

    try:
        data = parse_json_reply(text)
    except ValueError:
        raise ModelReplyError("the reply is not a JSON object") from None
    if not isinstance(data, dict):
        raise ModelReplyError("the reply is JSON but not an object")
    if data.get("decision") not in KINDS:
        raise ModelReplyError(f"'decision' must be one of {', '.join(KINDS)}, got {data.get('decision')!r}")
    body = data.get("text")
    if not isinstance(body, str) or not body.strip():
        raise ModelReplyError("'text' must be the message, a non-empty string")
    if len(body) > MAX_TEXT:
        raise ModelReplyError(f"'text' is over {MAX_TEXT} characters")
    fact = data.get("fact")
    if fact is not None and (isinstance(fact, bool) or not isinstance(fact, int)):
        raise ModelReplyError(f"'fact' must be a fact's number or null, got {fact!r}")
    to = data.get("delegate_to")
    if to is not None and not isinstance(to, str):
        raise ModelReplyError("'delegate_to' must be a username or null")
    return {"decision": data["decision"], "fact": fact, "delegate_to": to, "text": body.strip()}


def check(actor: Actor, request: Request, policy: Decision, reply: dict[str, Any]) -> tuple[Decision | None, str]:
    """The model's decision as a :class:`Decision` when the policy allows it, else (None, why not)."""
    kind, text = reply["decision"], reply["text"]
    hidden = hidden_facts(actor, request.sender)
    shareable = " ".join(f.answer for f in actor.knows if f not in hidden)
    known = f"{request.subject}\n{request.text}\n{shareable}"
    for i, f in enumerate(actor.knows, 1):
        if f in hidden:
            how = leaks(f, text, known=known)
            if how:
                return None, f"it tells {request.sender} confidential fact {i} ({how})"
    stated = {*figures(known), *(r.limit for r in actor.approves), *(v for v in (request.amount, policy.amount) if v is not None)}
    invented = sorted(v for v in figures(text) if v not in stated and not (v.is_integer() and 1990 <= v <= 2099))
    if invented:
        return None, "it states " + ", ".join(f"{v:g}" for v in invented) + ", which neither the request nor the profile says"
    approval = policy.kind in ("approve", "refuse") and policy.rule is not None
    if approval or request.kind == "approval":
        if kind in ("approve", "refuse") and kind != policy.kind:
            return None, f"it would {kind} where the policy says {policy.kind}" + (f" ({policy.reason})" if policy.reason else "")
        if approval and kind != policy.kind:
            return None, f"it answers with {kind} an approval the policy decides ({policy.kind})"
    elif kind == "approve":
        return None, f"it approves what the policy does not ({policy.kind})"
    if kind in ("approve", "refuse") and kind == policy.kind:
        return Decision(kind, fact=policy.fact, rule=policy.rule, amount=policy.amount, reason=policy.reason), ""
    if kind == "refuse":
        return Decision("refuse", reason="declined"), ""
    if kind == "answer":
        n = reply["fact"]
        if n is None or not 1 <= n <= len(actor.knows):
            return None, f"it answers without naming one of the {len(actor.knows)} facts (fact {n!r})"
        fact = actor.knows[n - 1]
        if fact in hidden:
            return None, f"it answers with confidential fact {n}, which {request.sender} may not be told"
        if _norm(fact.answer) not in _norm(text):
            return None, f"it does not carry fact {n}'s text verbatim"
        return Decision("answer", fact=fact), ""
    if kind == "delegate":
        allowed = {d.to for d in actor.delegates} | ({actor.manager} if actor.manager else set())
        to = reply["delegate_to"]
        if to not in allowed:
            return None, f"it delegates to {to!r}, who is not among {', '.join(sorted(allowed)) or 'anyone'}"
        return Decision("delegate", to=to), ""
    return Decision("clarify", rule=policy.rule if policy.kind == "clarify" else None, notes=dict(policy.notes)), ""


class ModelCoworkers:
    """Asks a model for co-workers' replies (see the module's docstring). ``model``: a
    ``sandbox.models.ModelClient`` or its spec string (``openai:MODEL@URL``...)."""

    def __init__(self, model: Any) -> None:
        from sandbox.models.client import ModelClient

        self.client = model if isinstance(model, ModelClient) else ModelClient(model)
        self.name = self.client.name

    def reply(self, actor: Actor, request: Request, policy: Decision, *, name: str, requester: str, names: dict[str, str],
              scope: dict[str, Any]) -> Outcome:
        """The model's decision and text for ``request``, or the policy's when the model's is refused
        (``policy`` is the content decision, not the out-of-office or working-hours wrapper)."""
        system, user = prompt(actor, request, name=name, requester=requester, names=names)
        messages: list[dict[str, Any]] = [{"role": "user", "text": user}]
        record: dict[str, Any] = {"model": self.name, "policy": policy.kind}
        reply = self.client.complete(system, messages, scope=scope)
        record["cached"] = reply.cached
        try:
            data = parse_reply(reply.text)
        except ModelReplyError as first:
            messages += [{"role": "assistant", "text": reply.text or "(empty)"},
                         {"role": "user", "text": f"That reply cannot be used: {first}. Reply again with the JSON object only."}]
            reply = self.client.complete(system, messages, scope=scope)
            record["cached"] = record["cached"] and reply.cached
            try:
                data = parse_reply(reply.text)
            except ModelReplyError as second:
                return self._refused(record, actor, request, f"the model did not reply with the JSON asked for ({first}; then {second})")
        record["decision"] = data["decision"]
        decision, why = check(actor, request, policy, data)
        if decision is None:
            record["text"] = data["text"]
            return self._refused(record, actor, request, why)
        record["accepted"] = True
        return Outcome(decision, data["text"], record)

    def _refused(self, record: dict[str, Any], actor: Actor, request: Request, why: str) -> Outcome:
        record.update(accepted=False, refused=why)
        log.warning("co-worker %s: the model's reply to %s was refused (%s); the policy's %s is used", actor.user, request.sender,
                    why, record["policy"])
        return Outcome(None, None, record)

    def close(self) -> None:
        self.client.close()


# -- the process's setting (``sandbox run --coworkers model:...``) -------------------------------------------
_default: ModelCoworkers | None = None


def use_model(model: ModelCoworkers | None) -> ModelCoworkers | None:
    """Let a model make the co-workers' decisions in episodes started from now on (None: the policy);
    returns the previous setting."""
    global _default
    previous, _default = _default, model
    return previous


def default_model() -> ModelCoworkers | None:
    return _default


def parse_mode(text: str | None) -> ModelCoworkers | None:
    """``policy`` (or nothing): the deterministic policy; ``model:KIND:MODEL[@URL][,options]``: a model."""
    t = (text or "").strip()
    if not t or t == "policy":
        return None
    head, sep, rest = t.partition(":")
    if head != "model" or not sep or not rest:
        raise ValueError(f"--coworkers is 'policy' or 'model:KIND:MODEL[@URL][,options]', such as model:openai:gpt-4o-mini; got {t!r}")
    return ModelCoworkers(rest)


__all__ = ["ModelCoworkers", "ModelReplyError", "Outcome", "check", "default_model", "figures", "leaks", "parse_mode", "parse_reply",
           "prompt", "use_model"]

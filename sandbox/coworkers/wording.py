"""How a co-worker words a decision: phrase pools by decision and tone. The seed picks the phrase;
the decision fixes the content (a fact's text, a limit and its policy appear verbatim)."""

from __future__ import annotations

import random
from datetime import datetime

from .policy import Decision
from .profile import Actor

# {first}: the requester's first name; the other fields come from the decision.
POOLS: dict[str, dict[str, tuple[str, ...]]] = {
    "answer": {
        "friendly": ("Hi {first}! {answer}", "Hey {first}, sure: {answer}", "Hi {first}, happy to help. {answer}",
                     "Good question, {first}. {answer}"),
        "formal": ("Hello {first}, {answer}", "Dear {first}, to answer your question: {answer}",
                   "Hello {first}. For your reference: {answer}"),
        "terse": ("{answer}", "{answer} -{me}", "FYI: {answer}"),
    },
    "clarify": {
        "friendly": ("Hi {first}, happy to help, but which one do you mean{options}?",
                     "Hey {first}, can you be a bit more specific{options}?"),
        "formal": ("Hello {first}, could you please clarify which one you mean{options}?",
                   "Dear {first}, I need a little more detail before I can answer{options}."),
        "terse": ("Which one{options}?", "Need more detail{options}."),
    },
    "clarify_amount": {
        "friendly": ("Hi {first}, I can look at it, but what {missing} are you asking for?",),
        "formal": ("Hello {first}, please state the exact {missing} you are requesting.",),
        "terse": ("What {missing}?",),
    },
    "approve": {
        "friendly": ("Hi {first}, approved! {amount} is within my {limit} limit under {policy}.",
                     "Looks good, {first}: approved. {amount} is within the {limit} limit in {policy}."),
        "formal": ("Hello {first}, I approve this request: {amount} is within the {limit} limit set by {policy}.",
                   "Dear {first}, approved. The requested {amount} is within the {limit} limit of {policy}."),
        "terse": ("Approved ({amount}, limit {limit}, {policy}).", "OK, approved: {amount} is within {limit} per {policy}."),
    },
    "refuse": {
        "friendly": ("Sorry {first}, I can't do that: {reason}.", "Hi {first}, I'm afraid not: {reason}."),
        "formal": ("Hello {first}, I am unable to agree to this request: {reason}.",
                   "Dear {first}, I must decline: {reason}."),
        "terse": ("No: {reason}.", "Can't: {reason}."),
    },
    "delegate": {
        "friendly": ("Hi {first}, that's not me, {delegate} looks after that. Please ask them.",
                     "Hey {first}, {delegate} is the right person for this one."),
        "formal": ("Hello {first}, this is handled by {delegate}; please contact them directly.",),
        "terse": ("Ask {delegate}.", "{delegate} handles that."),
    },
    "out_of_office": {
        "friendly": ("Automatic reply: Hi! I'm out of the office{back} with limited access to messages.{contact}",),
        "formal": ("Automatic reply: I am out of the office{back}.{contact}",),
        "terse": ("Automatic reply: out of office{back}.{contact}",),
    },
}


def first_name(name: str) -> str:
    return (name or "").split(" ")[0] or "there"


def _when(t: datetime) -> str:
    hour = t.hour % 12 or 12
    return f"{t:%b} {t.day}, {t.year} {hour}:{t:%M} {'AM' if t.hour < 12 else 'PM'}"


def word(decision: Decision, actor: Actor, *, requester: str, rng: random.Random, names: dict[str, str] | None = None) -> str:
    """The reply's text. ``requester`` is the asker's display name; ``names`` maps usernames to
    display names (a delegate, the manager)."""
    names = names or {}
    d = decision.final
    kind = d.kind
    fields = {"first": first_name(requester), "me": first_name(actor.display())}
    if kind == "answer":
        assert d.fact is not None
        fields["answer"] = d.fact.answer
    elif kind == "clarify":
        if d.notes.get("missing"):
            kind = "clarify_amount"
            fields["missing"] = "percentage" if d.notes["missing"] == "%" else "amount"
        else:
            fields["options"] = (": " + " or ".join(d.options)) if d.options else ""
    elif kind in ("approve", "refuse") and d.rule is not None:
        fields.update(limit=d.rule.limit_text(), policy=d.rule.policy, amount=d.rule.amount_text(d.amount) if d.amount is not None else "",
                      reason=d.reason)
    elif kind == "refuse":
        fields["reason"] = d.reason
    elif kind == "delegate":
        fields["delegate"] = names.get(d.to or "", d.to or "someone else")
    elif kind == "out_of_office":
        ooo = actor.out_of_office
        fields["back"] = f" until {_when(ooo)}" if isinstance(ooo, datetime) else ""
        fields["contact"] = f" For anything urgent, please contact {names.get(actor.manager, actor.manager)}." if actor.manager else ""
    pool = POOLS[kind][actor.tone]
    return pool[rng.randrange(len(pool))].format(**fields)


__all__ = ["POOLS", "word"]

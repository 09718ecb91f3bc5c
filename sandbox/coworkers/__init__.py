"""Virtual co-workers: the world's people answer the persona's messages and approval requests by a
deterministic policy, later on the world clock, as real rows in the world (see docs/coworkers.md)."""

from apps_web.messaging import Outbound, Reply, Request

from .engine import Coworkers, CoworkerSpecError, Event, adapters
from .policy import Decision, decide, parse_amount
from .profile import Actor, ApprovalRule, Delegation, Fact
from .wording import word

__all__ = ["Actor", "ApprovalRule", "Coworkers", "CoworkerSpecError", "Decision", "Delegation", "Event", "Fact", "Outbound",
           "Reply", "Request", "adapters", "decide", "parse_amount", "word"]

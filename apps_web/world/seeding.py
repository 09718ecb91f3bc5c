"""What a world generator receives: a session on the new world, the seed, the scale and the clock."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

from faker import Faker
from sqlmodel import Session

from .clock import WorldClock


def derive_seed(seed: int, namespace: str) -> int:
    """A stable sub-seed, so each app's data does not depend on which other apps are installed."""
    digest = hashlib.sha256(f"{seed}:{namespace}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass
class SeedContext:
    session: Session
    seed: int
    scale: int
    clock: WorldClock
    company: str = ""
    domain: str = ""
    _fakers: dict[str, Faker] = field(default_factory=dict)

    def faker(self, namespace: str, locale: str = "en_US") -> Faker:
        key = f"{namespace}/{locale}"
        if key not in self._fakers:
            fake = Faker(locale)
            fake.seed_instance(derive_seed(self.seed, namespace))
            self._fakers[key] = fake
        return self._fakers[key]

    def random(self, namespace: str) -> random.Random:
        return random.Random(derive_seed(self.seed, namespace))

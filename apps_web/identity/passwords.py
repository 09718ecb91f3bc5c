"""Password hashing with the standard library (PBKDF2); sandbox accounts need no slow KDF."""

from __future__ import annotations

import hashlib
import hmac

ITERATIONS = 2_000
DEFAULT_PASSWORD = "sandbox"  # every generated user's password, shown on the sign-in page


def hash_password(password: str, salt: str) -> str:
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), ITERATIONS).hex()
    return f"pbkdf2_sha256${ITERATIONS}${salt}${digest}"


def verify_password(password: str, stored: str) -> bool:
    try:
        _algo, iterations, salt, digest = stored.split("$", 3)
        candidate = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), int(iterations)).hex()
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(candidate, digest)

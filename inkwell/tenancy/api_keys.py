"""API key format, hashing and look-up. A key is ``iwk_<8 chars>.<secret>``; only its SHA-256 is kept."""

import hashlib
import hmac
import secrets
import string

from inkwell.tenancy.models import ApiKey

PREFIX_ALPHABET = string.ascii_lowercase + string.digits


def generate_key() -> tuple[str, str]:
    """A new (prefix, full key) pair."""
    prefix = "iwk_" + "".join(secrets.choice(PREFIX_ALPHABET) for _ in range(8))
    return prefix, f"{prefix}.{secrets.token_urlsafe(32)}"


def hash_key(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode()).hexdigest()


def find_active_key(raw_key: str) -> ApiKey | None:
    prefix, dot, _ = raw_key.partition(".")
    if not dot:
        return None
    key = (
        ApiKey.dangerously_unscoped.select_related("user__account__subscription", "user__role")
        .filter(prefix=prefix, user__is_active=True)
        .first()
    )
    if key is None or not hmac.compare_digest(key.key_hash, hash_key(raw_key)):
        return None
    if key.user.account_id != key.account_id:
        return None
    return key

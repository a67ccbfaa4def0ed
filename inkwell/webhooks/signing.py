"""Standard Webhooks signatures (https://www.standardwebhooks.com/, "Signature scheme").

A secret is ``whsec_`` and the base64 of 32 random bytes; the key is those bytes. A message is
signed as ``v1,`` + base64(HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}.{body}")), and
``webhook-signature`` may carry several signatures separated by spaces (the current secret's and,
during a rotation's overlap, the previous one's): a receiver accepts the message when one matches.
"""

import base64
import hashlib
import hmac
import secrets

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32


def generate_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


def secret_key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))


def sign(*, secret: str, message_id: str, timestamp: int, body: str) -> str:
    digest = hmac.new(secret_key(secret), f"{message_id}.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def signature_header(*, secrets_: list[str], message_id: str, timestamp: int, body: str) -> str:
    """The ``webhook-signature`` value: one signature per secret, space-separated."""
    return " ".join(sign(secret=secret, message_id=message_id, timestamp=timestamp, body=body) for secret in secrets_)


def message_id() -> str:
    """A ``webhook-id``: unique per message, the same on every attempt (receivers deduplicate by it)."""
    return "msg_" + secrets.token_urlsafe(18)

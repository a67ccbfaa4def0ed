"""Encryption at rest for stored secrets (AI provider API keys, CMS application passwords).

Keys come from ``settings.INKWELL_ENCRYPTION_KEYS``, a list of Fernet keys: the first encrypts,
every one decrypts, so a key is rotated by putting a new one first and keeping the old one until
the stored values have been saved again. With no key configured, one is derived from
``SECRET_KEY`` with HKDF-SHA256 (fixed ``info`` label, no salt: the derivation must give the same
key on every start); changing ``SECRET_KEY`` then makes every stored secret unreadable, which is
why production sets its own keys.

``EncryptedTextField`` keeps the Fernet token in the column and plain text in Python. Tokens are
randomised, so the field supports no lookups but ``isnull``.
"""

import base64
import logging
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import models

logger = logging.getLogger(__name__)

HKDF_INFO = b"inkwell.crypto.fernet.v1"
MASK_PREFIX = "…"
MASK_VISIBLE = 4


class DecryptionError(ValueError):
    """A token that none of the configured keys can decrypt (or that is no token at all)."""


def derive_key(secret: str) -> bytes:
    """The Fernet key derived from ``secret`` (``SECRET_KEY``) when no encryption key is configured."""
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=HKDF_INFO).derive(secret.encode())
    return base64.urlsafe_b64encode(derived)


@lru_cache(maxsize=8)
def _fernet(keys: tuple[str, ...], secret: str) -> MultiFernet:
    if not keys:
        return MultiFernet([Fernet(derive_key(secret))])
    try:
        return MultiFernet([Fernet(key) for key in keys])
    except (ValueError, TypeError):
        # The message names the setting, never the key material.
        raise ImproperlyConfigured("INKWELL_ENCRYPTION_KEYS holds a value that is not a Fernet key") from None


def _current() -> MultiFernet:
    # Keyed by the settings' values, so tests that override them (rotation) get their own instance.
    return _fernet(tuple(settings.INKWELL_ENCRYPTION_KEYS), settings.SECRET_KEY)


def encrypt(text: str) -> str:
    return _current().encrypt(text.encode()).decode("ascii")


def decrypt(token: str) -> str:
    try:
        return _current().decrypt(token.encode()).decode()
    except InvalidToken:
        raise DecryptionError("the stored secret cannot be decrypted with the configured keys") from None


def mask(secret: str) -> str:
    """``…abcd``: the last four characters at most, and fewer for short secrets (a quarter of them),
    so a mask never gives away most of what it hides. Empty for an empty secret."""
    if not secret:
        return ""
    visible = min(MASK_VISIBLE, len(secret) // 4)
    return MASK_PREFIX + (secret[-visible:] if visible else "")


class EncryptedTextField(models.TextField):
    """Text encrypted with ``encrypt`` in the database, plain in Python. Empty stays empty, so
    "no secret" needs no key to read.

    A token that the configured keys cannot decrypt (the keys were changed without keeping the old
    one) reads as empty, with a warning in the log: the row stays usable and the owner enters the
    secret again, rather than every page that loads the row failing.
    """

    def from_db_value(self, value, expression, connection):
        if not value:
            return value
        try:
            return decrypt(value)
        except DecryptionError:
            logger.warning("%s.%s holds a secret that the configured keys cannot decrypt; read as empty", self.model.__name__, self.name)
            return ""

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        if not value:
            return value
        return encrypt(value)

    def get_lookup(self, lookup_name):
        return super().get_lookup(lookup_name) if lookup_name == "isnull" else None

    def get_transform(self, name):
        return None

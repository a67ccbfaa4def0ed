"""JWT access and refresh tokens.

Payload: ``user_id``, ``account_id``, ``type`` (access | refresh), ``exp``, ``iat``, ``jti`` and
``ver``, the user's token version: a password change, reset or logout-everywhere bumps it, which
retires every token issued before. Only HS256 is accepted, so ``alg: none`` and algorithm
confusion are refused by PyJWT itself.
"""

import functools
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

import jwt
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from rest_framework.exceptions import AuthenticationFailed

from inkwell.tenancy import principal
from inkwell.tenancy.models import RefreshToken, User

ACCESS = "access"
REFRESH = "refresh"
REQUIRED_CLAIMS = ["user_id", "type", "exp", "iat", "jti", "ver"]


@dataclass(frozen=True)
class IssuedToken:
    token: str
    jti: str
    expires_at: datetime


def _config() -> dict:
    return settings.INKWELL_JWT


def _encode(user: User, token_type: str, ttl_seconds: int) -> IssuedToken:
    now = timezone.now()
    expires_at = now + timedelta(seconds=ttl_seconds)
    jti = uuid.uuid4().hex
    payload = {
        "user_id": user.pk,
        "account_id": user.account_id,
        "type": token_type,
        "iat": int(now.timestamp()),
        "exp": int(expires_at.timestamp()),
        "jti": jti,
        "ver": user.token_version,
    }
    token = jwt.encode(payload, _config()["SIGNING_KEY"], algorithm=_config()["ALGORITHM"])
    return IssuedToken(token=token, jti=jti, expires_at=expires_at)


def issue_access_token(user: User) -> IssuedToken:
    return _encode(user, ACCESS, _config()["ACCESS_TTL_SECONDS"])


def issue_refresh_token(user: User, *, family: uuid.UUID | None = None) -> IssuedToken:
    issued = _encode(user, REFRESH, _config()["REFRESH_TTL_SECONDS"])
    RefreshToken.objects.create(user=user, jti=issued.jti, family=family or uuid.uuid4(), expires_at=issued.expires_at)
    return issued


def token_pair(user: User, *, family: uuid.UUID | None = None) -> dict:
    access = issue_access_token(user)
    refresh = issue_refresh_token(user, family=family)
    return {
        "access": access.token,
        "access_expires_at": access.expires_at,
        "refresh": refresh.token,
        "refresh_expires_at": refresh.expires_at,
    }


VERIFIED_TOKENS_KEPT = 4096


@functools.lru_cache(maxsize=VERIFIED_TOKENS_KEPT)
def _verified(token: str, signing_key: str, algorithm: str) -> dict:
    """The payload of a token whose signature and claims verified, kept per process: a client sends
    the same access token with every request, and checking it again cost more than the rest of
    authentication. Only tokens that verified are kept; expiry is checked again on every use."""
    return jwt.decode(token, signing_key, algorithms=[algorithm], options={"require": REQUIRED_CLAIMS})


def decode(token: str, expected_type: str) -> dict:
    """The verified payload, or AuthenticationFailed with code ``token_expired``/``invalid_token``."""
    try:
        payload = _verified(token, _config()["SIGNING_KEY"], _config()["ALGORITHM"])
    except jwt.ExpiredSignatureError:
        raise AuthenticationFailed("Token has expired", code="token_expired") from None
    except jwt.PyJWTError:
        raise AuthenticationFailed("Invalid token", code="invalid_token") from None
    if payload["exp"] <= time.time():  # verified earlier, expired since
        raise AuthenticationFailed("Token has expired", code="token_expired")
    if payload.get("type") != expected_type:
        raise AuthenticationFailed("Invalid token", code="invalid_token")
    return dict(payload)  # the kept payload stays as verified whatever a caller does with its copy


def user_for_payload(payload: dict) -> User:
    """The active user the token names, if the token is still of the user's current version; with
    account, subscription, plan and role, usually from the principal cache."""
    return user_for_payload_counting_hit(payload, counter_key=None)[0]


def user_for_payload_counting_hit(payload: dict, *, counter_key: str | None) -> tuple[User, int | None]:
    """``user_for_payload``, with the request's rate-limit hit counted in the principal's round trip
    (``principal.user_counting_hit``): (user, count or None)."""
    user, count = principal.user_counting_hit(payload["user_id"], token_version=payload["ver"], counter_key=counter_key)
    if user is None or not user.is_active or user.token_version != payload["ver"] or user.account_id != payload.get("account_id"):
        raise AuthenticationFailed("Invalid token", code="invalid_token")
    return user, count


def rotate_refresh_token(raw_token: str) -> tuple[User, dict]:
    """Exchanges a refresh token for a new pair; the old one is revoked.

    Presenting an already revoked token means it leaked: its whole family is revoked.
    """
    payload = decode(raw_token, REFRESH)
    user = user_for_payload(payload)
    with transaction.atomic():
        record = RefreshToken.objects.select_for_update().filter(jti=payload["jti"], user=user).first()
        if record is None:
            raise AuthenticationFailed("Invalid token", code="invalid_token")
        now = timezone.now()
        if record.revoked_at is None:
            record.revoked_at = now
            record.save(update_fields=["revoked_at"])
            return user, token_pair(user, family=record.family)
        RefreshToken.objects.filter(family=record.family, revoked_at__isnull=True).update(revoked_at=now)
    # Raised after the block commits: raising inside it would roll the family revocation back.
    raise AuthenticationFailed("Invalid token", code="invalid_token")


def revoke_refresh_token(user: User, raw_token: str) -> bool:
    """Revokes one of the user's refresh tokens; False when the token is not a valid one of theirs."""
    try:
        payload = decode(raw_token, REFRESH)
    except AuthenticationFailed:
        return False
    if payload["user_id"] != user.pk:
        return False
    RefreshToken.objects.filter(jti=payload["jti"], revoked_at__isnull=True).update(revoked_at=timezone.now())
    return True


def revoke_all_tokens(user: User) -> None:
    """Retires every access and refresh token the user holds."""
    User.dangerously_unscoped.filter(pk=user.pk).update(token_version=F("token_version") + 1)
    principal.forget([user.pk])  # the UPDATE sends no post_save
    user.refresh_from_db(fields=["token_version"])
    RefreshToken.objects.filter(user=user, revoked_at__isnull=True).update(revoked_at=timezone.now())

"""Failed logins slow down per account, whatever address they come from.

The ``auth`` rate limit counts per client address; credential stuffing spreads its guesses over
many addresses. So the failures for one e-mail address are counted too (in the shared cache, for
``LOGIN_FAILURE_WINDOW_SECONDS`` after the last one): from the ``LOGIN_LOCK_THRESHOLD``-th failure
on, the address is locked for ``LOGIN_LOCK_SECONDS``, doubling with each further failure up to
``LOGIN_LOCK_MAX_SECONDS``. While locked every login for it answers 429 without a password being
checked, right or wrong. A success clears the count.

The count is kept per e-mail address as typed (normalised), whether or not an account has it:
an unknown address fails, locks and answers exactly as a known one, so the answers never tell
whether an account exists. Only a hash of the address is stored.
"""

import hashlib
import math
import time

from django.conf import settings
from django.core.cache import cache
from rest_framework import status

from inkwell.api.exceptions import ApiError
from inkwell.tenancy.models import canonical_email

LOCKED = "Too many failed logins for this email address; try again later"


class LoginLocked(ApiError):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    code = "rate_limited"

    def __init__(self, retry_after: int):
        self.wait = retry_after  # DRF's exception handler turns it into Retry-After
        super().__init__({"email": [LOCKED]})


def now() -> float:
    return time.time()


def _keys(email: str) -> tuple[str, str]:
    digest = hashlib.sha256(canonical_email(email).encode()).hexdigest()
    return f"login-failures:{digest}", f"login-locked:{digest}"


def check_not_locked(email: str) -> None:
    """``LoginLocked`` while the address is locked."""
    _, lock_key = _keys(email)
    locked_until = cache.get(lock_key)
    moment = now()
    if locked_until is not None and locked_until > moment:
        raise LoginLocked(max(1, math.ceil(locked_until - moment)))


def record_failure(email: str) -> None:
    options = settings.INKWELL_LOGIN
    failures_key, lock_key = _keys(email)
    window = options["FAILURE_WINDOW_SECONDS"]
    cache.add(failures_key, 0, timeout=window)
    try:
        failures = cache.incr(failures_key)
    except ValueError:  # expired between add and incr
        cache.set(failures_key, 1, timeout=window)
        failures = 1
    cache.touch(failures_key, window)
    if failures >= options["LOCK_THRESHOLD"]:
        lock_seconds = min(options["LOCK_SECONDS"] * 2 ** (failures - options["LOCK_THRESHOLD"]), options["LOCK_MAX_SECONDS"])
        cache.set(lock_key, now() + lock_seconds, timeout=math.ceil(lock_seconds))


def record_success(email: str) -> None:
    cache.delete_many(list(_keys(email)))

"""Writes of the tenancy domain: accounts, users, sites, sectors, access grants and API keys."""

import logging
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode
from django.utils.text import slugify
from rest_framework.exceptions import PermissionDenied, ValidationError

from inkwell.api.exceptions import Conflict, InvalidCredentials, PlanLimitReached
from inkwell.tenancy import api_keys, logins, tokens
from inkwell.tenancy.models import (
    Account,
    ApiKey,
    IndustrySector,
    Plan,
    Role,
    RoleName,
    Sector,
    Site,
    SiteUserAccess,
    SUBSCRIPTION_PERIOD,
    Subscription,
    SubscriptionStatus,
    User,
    canonical_email,
)
from inkwell.tenancy.signals import account_opened, site_created

logger = logging.getLogger(__name__)

EMAIL_TAKEN = "User with this email already exists"


def user_login_authenticate(*, request, email: str, password: str) -> User:
    """The active user with these credentials, or ``InvalidCredentials`` (401); while the address
    is locked after repeated failures (``inkwell.tenancy.logins``), ``LoginLocked`` (429) with no
    password checked. The answers are the same for an address no account has."""
    logins.check_not_locked(email)
    user = authenticate(request, email=email, password=password)
    if user is None:
        logins.record_failure(email)
        logger.info("login failed")
        raise InvalidCredentials()
    logins.record_success(email)
    return user


def _email_taken(email: str) -> bool:
    return User.dangerously_unscoped.filter(email=canonical_email(email)).exists()


def _plan_limit(account: Account, limit: str, current: int) -> None:
    """Refuses creating past a plan limit; callers hold the account lock (``lock_account``)."""
    plan = account.subscription.plan
    if current >= getattr(plan, limit):
        raise PlanLimitReached({limit: [f"Your plan allows at most {getattr(plan, limit)}"]})


def lock_account(*, account: Account) -> None:
    """Serialises limit-checked creations of one account, so concurrent requests cannot both pass a limit."""
    Account.objects.select_for_update().filter(pk=account.pk).exists()


@transaction.atomic
def account_register(*, email: str, password: str, first_name: str = "", last_name: str = "", account_name: str = "") -> User:
    """A new account on the default plan with the user as its owner, credited with the sign-up credits."""
    email = canonical_email(email)
    if _email_taken(email):
        raise Conflict({"email": [EMAIL_TAKEN]})
    plan = Plan.objects.get(slug=settings.INKWELL_DEFAULT_PLAN)
    signup_credits = settings.INKWELL_SIGNUP_CREDITS
    account = Account.objects.create(name=account_name.strip() or f"{first_name.strip() or email.split('@')[0]}'s account")
    account_opened.send(sender=Account, account=account, signup_credits=plan.signup_credits if signup_credits is None else signup_credits)
    now = timezone.now()
    Subscription.objects.create(
        account=account, plan=plan, status=SubscriptionStatus.ACTIVE, current_period_start=now, current_period_end=now + SUBSCRIPTION_PERIOD
    )
    try:
        with transaction.atomic():
            return User.dangerously_unscoped.create_user(
                email, password, first_name=first_name, last_name=last_name, account=account, role=Role.objects.get(name=RoleName.OWNER)
            )
    except IntegrityError:  # a concurrent registration won the race for this address
        raise Conflict({"email": [EMAIL_TAKEN]}) from None


@transaction.atomic
def account_update(*, account: Account, name: str) -> Account:
    account.name = name
    account.save(update_fields=["name", "updated_at"])
    return account


def _guard_owner_role(*, actor: User, target_role: str | None = None, user: User | None = None) -> None:
    """Only an owner may make an owner or touch one (admins do everything else)."""
    touches_owner = target_role == RoleName.OWNER or (user is not None and user.role_name == RoleName.OWNER)
    if touches_owner and actor.role_name != RoleName.OWNER:
        raise PermissionDenied()


def _last_owner(user: User) -> bool:
    return (
        user.role_name == RoleName.OWNER
        and not User.objects.for_account(user.account).filter(role__name=RoleName.OWNER, is_active=True).exclude(pk=user.pk).exists()
    )


def _set_site_access(*, user: User, sites: list[Site], actor: User) -> None:
    SiteUserAccess.objects.for_account(user.account).filter(user=user).exclude(site__in=sites).delete()
    existing = set(SiteUserAccess.objects.for_account(user.account).filter(user=user).values_list("site_id", flat=True))
    SiteUserAccess.objects.bulk_create(
        [SiteUserAccess(account=user.account, user=user, site=site, granted_by=actor) for site in sites if site.pk not in existing]
    )


@transaction.atomic
def user_create(
    *, account: Account, actor: User, email: str, password: str, role: str, first_name: str = "", last_name: str = "", sites: list[Site] = ()
) -> User:
    _guard_owner_role(actor=actor, target_role=role)
    email = canonical_email(email)
    if _email_taken(email):
        raise Conflict({"email": [EMAIL_TAKEN]})
    lock_account(account=account)
    _plan_limit(account, "max_users", User.objects.for_account(account).filter(is_active=True).count())
    try:
        with transaction.atomic():
            user = User.dangerously_unscoped.create_user(
                email, password, first_name=first_name, last_name=last_name, account=account, role=Role.objects.get(name=role)
            )
    except IntegrityError:
        raise Conflict({"email": [EMAIL_TAKEN]}) from None
    _set_site_access(user=user, sites=list(sites), actor=actor)
    return user


@transaction.atomic
def user_update(
    *,
    user: User,
    actor: User,
    first_name: str | None = None,
    last_name: str | None = None,
    role: str | None = None,
    is_active: bool | None = None,
    sites: list[Site] | None = None,
) -> User:
    # Any change to an owner, even a rename, is the owner's business.
    _guard_owner_role(actor=actor, target_role=role, user=user)
    if role is not None and role != user.role_name:
        if _last_owner(user):
            raise Conflict({"role": ["An account needs at least one owner"]})
        user.role = Role.objects.get(name=role)
    deactivated = False
    if is_active is not None and is_active != user.is_active:
        if not is_active and (user.pk == actor.pk or _last_owner(user)):
            raise Conflict({"is_active": ["This user cannot be deactivated"]})
        if is_active:
            lock_account(account=user.account)
            _plan_limit(user.account, "max_users", User.objects.for_account(user.account).filter(is_active=True).count())
        user.is_active = is_active
        deactivated = not is_active
    if first_name is not None:
        user.first_name = first_name
    if last_name is not None:
        user.last_name = last_name
    user.save()
    if sites is not None:
        _set_site_access(user=user, sites=sites, actor=actor)
    if deactivated:
        tokens.revoke_all_tokens(user)
    return user


@transaction.atomic
def user_delete(*, user: User, actor: User) -> None:
    _guard_owner_role(actor=actor, user=user)
    if user.pk == actor.pk or _last_owner(user):
        raise Conflict({"user": ["This user cannot be deleted"]})
    user.delete()


def password_change(*, user: User, old_password: str, new_password: str) -> dict:
    """Sets the new password, retires every token issued before and returns a fresh pair."""
    if not user.check_password(old_password):
        raise ValidationError({"old_password": ["Invalid credentials"]})
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        tokens.revoke_all_tokens(user)
        return tokens.token_pair(user)


def password_reset_request(*, email: str, reset_link: Callable[[str, str], str] | None = None) -> None:
    """Mails a reset link when the address belongs to an active user; says nothing either way.

    ``reset_link(uid, token)`` is the page where a person sets the new password (the console's);
    without it the mail says how to confirm through the API."""
    user = User.dangerously_unscoped.filter(email=canonical_email(email), is_active=True).first()
    if user is None:
        return
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    try:
        _send_password_reset_mail(user, uid, token, reset_link)
    except Exception:  # the answer must not differ from an unknown address; the operator sees the log
        logger.exception("password reset mail for user %s could not be sent", user.pk)


def _send_password_reset_mail(user: User, uid: str, token: str, reset_link: Callable[[str, str], str] | None) -> None:
    if reset_link is not None:
        how = f"If it was you, choose a new password at\n{reset_link(uid, token)}\n"
    else:
        how = (
            "If it was you, confirm with\n"
            f"POST /api/v1/auth/password/reset/confirm/ and the body\n"
            f'{{"uid": "{uid}", "token": "{token}", "new_password": "<your new password>"}}\n'
        )
    send_mail(
        subject="Reset your Inkwell password",
        message=f"Someone asked to reset the password of your Inkwell account. {how}If it was not you, ignore this message.",
        from_email=None,
        recipient_list=[user.email],
    )


def password_reset_confirm(*, uid: str, token: str, new_password: str) -> None:
    try:
        user = User.dangerously_unscoped.get(pk=int(force_str(urlsafe_base64_decode(uid))), is_active=True)
    except (TypeError, ValueError, OverflowError, User.DoesNotExist):
        user = None
    if user is None or not default_token_generator.check_token(user, token):
        raise ValidationError({"token": ["Invalid or expired token"]})
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        tokens.revoke_all_tokens(user)


def _unique_site_slug(name: str) -> str:
    base = slugify(name)[:60] or "site"
    slug, suffix = base, 2
    while Site.dangerously_unscoped.filter(slug=slug).exists():
        slug, suffix = f"{base}-{suffix}", suffix + 1
    return slug


@transaction.atomic
def site_create(*, account: Account, name: str, domain: str, time_zone: str = "UTC", is_active: bool = True) -> Site:
    lock_account(account=account)
    _plan_limit(account, "max_sites", Site.objects.for_account(account).count())
    if Site.objects.for_account(account).filter(domain__iexact=domain).exists():
        raise Conflict({"domain": ["A site with this domain already exists"]})
    site = Site.objects.create(account=account, name=name, domain=domain, slug=_unique_site_slug(name), time_zone=time_zone, is_active=is_active)
    site_created.send(sender=Site, site=site)
    return site


@transaction.atomic
def site_update(*, site: Site, **fields) -> Site:
    domain = fields.get("domain")
    if domain and Site.objects.for_account(site.account).filter(domain__iexact=domain).exclude(pk=site.pk).exists():
        raise Conflict({"domain": ["A site with this domain already exists"]})
    for name, value in fields.items():
        setattr(site, name, value)
    site.save()
    return site


@transaction.atomic
def sector_create(*, account: Account, site: Site, industry_sector: IndustrySector, name: str = "") -> Sector:
    if Sector.objects.for_account(account).filter(site=site, industry_sector=industry_sector).exists():
        raise Conflict({"industry_sector_id": ["This site already has this sector"]})
    return Sector.objects.create(account=account, site=site, industry_sector=industry_sector, name=name or industry_sector.name)


@transaction.atomic
def sector_update(*, sector: Sector, name: str) -> Sector:
    sector.name = name
    sector.save(update_fields=["name"])
    return sector


@transaction.atomic
def site_access_grant(*, account: Account, actor: User, user: User, site: Site) -> SiteUserAccess:
    access, created = SiteUserAccess.objects.for_account(account).get_or_create(
        user=user, site=site, defaults={"account": account, "granted_by": actor}
    )
    if not created:
        raise Conflict({"site_id": ["This user already has access to this site"]})
    return access


@transaction.atomic
def api_key_create(*, account: Account, user: User, name: str, site: Site | None = None) -> tuple[ApiKey, str]:
    """The new key and its plain text, which is shown once and never stored."""
    prefix, raw_key = api_keys.generate_key()
    key = ApiKey.objects.create(account=account, user=user, name=name, prefix=prefix, key_hash=api_keys.hash_key(raw_key), site=site)
    return key, raw_key


@transaction.atomic
def api_key_revoke(*, key: ApiKey) -> None:
    """The key stops working with the next request: it is deleted (only its hash was kept, so
    there is nothing to keep it for)."""
    key.delete()

import unicodedata
from datetime import timedelta
from typing import ClassVar

from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.models import PermissionsMixin
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from inkwell.tenancy.scoping import AccountScopedManager, UnscopedManager


class RoleName(models.TextChoices):
    OWNER = "owner", "Owner"
    ADMIN = "admin", "Admin"
    EDITOR = "editor", "Editor"
    VIEWER = "viewer", "Viewer"
    # Reads the sites granted to them, comments on and approves (or sends back) content; never
    # edits or publishes (#36).
    REVIEWER = "reviewer", "Reviewer"


MANAGER_ROLES = frozenset({RoleName.OWNER, RoleName.ADMIN})
CONTENT_WRITER_ROLES = frozenset({RoleName.OWNER, RoleName.ADMIN, RoleName.EDITOR})
# Who may comment on content and approve it or request changes.
CONTENT_REVIEWER_ROLES = CONTENT_WRITER_ROLES | {RoleName.REVIEWER}


class Plan(models.Model):
    slug = models.SlugField(max_length=40, unique=True)
    name = models.CharField(max_length=80)
    description = models.CharField(max_length=255, blank=True)
    max_sites = models.PositiveIntegerField()
    max_users = models.PositiveIntegerField()
    max_keywords = models.PositiveIntegerField()
    monthly_credits = models.PositiveIntegerField()
    signup_credits = models.PositiveIntegerField(default=0)
    price_cents_monthly = models.PositiveIntegerField(default=0)
    is_public = models.BooleanField(default=True)
    sort_order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["sort_order", "id"]

    def __str__(self):
        return self.name


class AccountQuerySet(models.QuerySet):
    def for_account(self, account) -> "AccountQuerySet":
        return self.filter(pk=account.pk)


class Account(models.Model):
    name = models.CharField(max_length=150)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = AccountQuerySet.as_manager()

    site_field: ClassVar[str | None] = None

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return self.name


class SubscriptionStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    TRIALING = "trialing", "Trialing"
    PAST_DUE = "past_due", "Past due"
    CANCELLED = "cancelled", "Cancelled"
    EXPIRED = "expired", "Expired"


ACTIVE_SUBSCRIPTION_STATUSES = frozenset({SubscriptionStatus.ACTIVE, SubscriptionStatus.TRIALING})
# One billing period: plan credits renew when it ends (inkwell.billing).
SUBSCRIPTION_PERIOD = timedelta(days=30)


class Subscription(models.Model):
    account = models.OneToOneField(Account, on_delete=models.CASCADE, related_name="subscription")
    plan = models.ForeignKey(Plan, on_delete=models.PROTECT, related_name="subscriptions")
    status = models.CharField(max_length=20, choices=SubscriptionStatus.choices, default=SubscriptionStatus.ACTIVE)
    current_period_start = models.DateTimeField(default=timezone.now)
    current_period_end = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    dangerously_unscoped = UnscopedManager()
    objects = AccountScopedManager()

    site_field: ClassVar[str | None] = None

    class Meta:
        ordering = ["id"]

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_SUBSCRIPTION_STATUSES


class Role(models.Model):
    """The roles (the spec's Group resource, and ``reviewer``); rows are seeded by data migrations."""

    name = models.CharField(max_length=20, choices=RoleName.choices, unique=True)
    description = models.CharField(max_length=255)

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return self.name


def canonical_email(email: str) -> str:
    """The one form of an e-mail address that is stored, looked up, locked out and kept unique,
    on SQLite and PostgreSQL alike: NFKC (fullwidth letters, the Kelvin sign and composed accents
    become the characters they look like), then casefolded. Lookups compare it exactly: a
    case-insensitive lookup would leave the folding to the database, and PostgreSQL's ``UPPER``
    folds some letters Python keeps apart (``UPPER('ı')`` is ``I``), so a lookalike address
    would reach an account under a lockout counter of its own."""
    return unicodedata.normalize("NFKC", email.strip()).casefold()


class UserManager(BaseUserManager):
    use_in_migrations = True

    @classmethod
    def normalize_email(cls, email):
        return canonical_email(email or "")

    def get_by_natural_key(self, email):
        return self.get(email=canonical_email(email))

    def create_user(self, email, password=None, **extra_fields):
        user = self.model(email=self.normalize_email(email), **extra_fields)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, email, password=None, **extra_fields):
        extra_fields.update(is_staff=True, is_superuser=True)
        return self.create_user(email, password, **extra_fields)


class User(AbstractBaseUser, PermissionsMixin):
    """A person who logs in with an e-mail address; belongs to one account (staff may have none)."""

    email = models.EmailField(max_length=254, unique=True)
    first_name = models.CharField(max_length=150, blank=True)
    last_name = models.CharField(max_length=150, blank=True)
    account = models.ForeignKey(Account, null=True, blank=True, on_delete=models.CASCADE, related_name="users")
    role = models.ForeignKey(Role, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    is_active = models.BooleanField(default=True)
    is_staff = models.BooleanField(default=False)
    date_joined = models.DateTimeField(default=timezone.now)
    # Bumped on password change, reset and logout-everywhere: tokens carrying an older value stop working.
    token_version = models.PositiveIntegerField(default=0)

    # Django's auth (login, createsuperuser, admin) needs every user; domain code goes through `objects`.
    dangerously_unscoped = UserManager()
    objects = AccountScopedManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = []

    site_field: ClassVar[str | None] = None

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(Lower("email"), name="user_email_ci_unique")]

    def __str__(self):
        return self.email

    @property
    def role_name(self) -> str | None:
        return self.role.name if self.role_id else None


class AccountOwnedModel(models.Model):
    """Base for every row that belongs to one account.

    ``site_field`` names the path to the owning Site ("pk" for Site itself, None when the row is
    account-wide); editors, viewers and site-bound API keys only see rows of their sites.
    """

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+")

    dangerously_unscoped = UnscopedManager()
    objects = AccountScopedManager()

    site_field: ClassVar[str | None] = "site"

    class Meta:
        abstract = True


class Industry(models.Model):
    name = models.CharField(max_length=120, unique=True)
    slug = models.SlugField(max_length=120, unique=True)
    description = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "industries"

    def __str__(self):
        return self.name


class IndustrySector(models.Model):
    industry = models.ForeignKey(Industry, on_delete=models.CASCADE, related_name="sectors")
    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=120)
    description = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["industry__name", "name"]
        constraints = [models.UniqueConstraint(fields=["industry", "slug"], name="industry_sector_slug_unique")]

    def __str__(self):
        return f"{self.industry.name} / {self.name}"


class Site(AccountOwnedModel):
    name = models.CharField(max_length=150)
    domain = models.CharField(max_length=253)
    slug = models.SlugField(max_length=80, unique=True)
    time_zone = models.CharField(max_length=64, default="UTC")
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    site_field: ClassVar[str | None] = "pk"

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint("account", Lower("domain"), name="site_domain_per_account_unique")]

    def __str__(self):
        return self.name

    @property
    def url(self) -> str:
        return f"https://{self.domain}"


class Sector(AccountOwnedModel):
    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="sectors")
    industry_sector = models.ForeignKey(IndustrySector, on_delete=models.PROTECT, related_name="+")
    name = models.CharField(max_length=120)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["site", "industry_sector"], name="sector_once_per_site")]

    def __str__(self):
        return self.name


class SiteUserAccess(AccountOwnedModel):
    """Grants an editor or viewer access to one site (owners and admins see every site)."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="site_access")
    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="user_access")
    granted_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["user", "site"], name="site_access_once")]


class ApiKey(AccountOwnedModel):
    """A credential for machines; only the SHA-256 of the key is stored."""

    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, unique=True)
    key_hash = models.CharField(max_length=64)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_keys")
    site = models.ForeignKey(Site, null=True, blank=True, on_delete=models.CASCADE, related_name="api_keys")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    site_field: ClassVar[str | None] = None

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return f"{self.name} ({self.prefix})"


class RefreshToken(models.Model):
    """One issued refresh token. Rotation revokes it; reuse of a revoked one revokes its family."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="refresh_tokens")
    jti = models.CharField(max_length=64, unique=True)
    family = models.UUIDField(db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "revoked_at"], name="refresh_user_revoked_idx")]

import re
from zoneinfo import available_timezones

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import PermissionDenied

from inkwell.api.serializers import REQUIRED
from inkwell.tenancy.access import can_access_site
from inkwell.tenancy.models import (
    Account,
    ApiKey,
    Industry,
    IndustrySector,
    Plan,
    Role,
    RoleName,
    Sector,
    Site,
    SiteUserAccess,
    Subscription,
    User,
)

SITE_NOT_YOURS = "Site must belong to your account"
SECTOR_NOT_IN_SITE = "Sector must belong to the selected site"

HOSTNAME = re.compile(r"^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*(:\d{1,5})?$")
TIME_ZONES = frozenset(available_timezones())


def email_field(**kwargs) -> serializers.EmailField:
    return serializers.EmailField(
        max_length=254, error_messages={"invalid": "Invalid email format", "blank": REQUIRED, "required": REQUIRED}, **kwargs
    )


def password_field(**kwargs) -> serializers.CharField:
    return serializers.CharField(
        min_length=8,
        max_length=256,
        trim_whitespace=False,
        write_only=True,
        error_messages={"min_length": "Password must be at least 8 characters", "blank": REQUIRED},
        **kwargs,
    )


@extend_schema_field(OpenApiTypes.INT)
class AccountSiteField(serializers.PrimaryKeyRelatedField):
    """A ``site_id`` in a payload: one of the caller's account's sites, and one the caller may touch."""

    default_error_messages = {"does_not_exist": SITE_NOT_YOURS, "incorrect_type": SITE_NOT_YOURS}

    def get_queryset(self):
        return Site.objects.for_account(self.context["request"].account)

    def to_internal_value(self, data):
        site = super().to_internal_value(data)
        if not can_access_site(self.context["request"], site.pk):
            raise PermissionDenied()
        return site


@extend_schema_field(OpenApiTypes.INT)
class AccountSectorField(serializers.PrimaryKeyRelatedField):
    default_error_messages = {"does_not_exist": SECTOR_NOT_IN_SITE, "incorrect_type": SECTOR_NOT_IN_SITE}

    def get_queryset(self):
        return Sector.objects.for_account(self.context["request"].account)


class SiteSectorPayloadMixin:
    """Validates that ``sector_id`` belongs to ``site_id`` (serializers declaring both fields)."""

    def validate(self, attrs):
        attrs = super().validate(attrs)
        site, sector = attrs.get("site"), attrs.get("sector")
        if site is not None and sector is not None and sector.site_id != site.pk:
            raise serializers.ValidationError({"sector_id": [SECTOR_NOT_IN_SITE]})
        return attrs


# Auth


class RegisterInputSerializer(serializers.Serializer):
    email = email_field()
    password = password_field()
    first_name = serializers.CharField(max_length=150, required=False, allow_blank=True, default="")
    last_name = serializers.CharField(max_length=150, required=False, allow_blank=True, default="")
    account_name = serializers.CharField(max_length=150, required=False, allow_blank=True, default="")


class LoginInputSerializer(serializers.Serializer):
    email = email_field()
    password = serializers.CharField(max_length=256, trim_whitespace=False, write_only=True, error_messages={"blank": REQUIRED})


class RefreshInputSerializer(serializers.Serializer):
    refresh = serializers.CharField(max_length=2048, error_messages={"blank": REQUIRED})


class LogoutInputSerializer(serializers.Serializer):
    refresh = serializers.CharField(max_length=2048, required=False)


class PasswordChangeInputSerializer(serializers.Serializer):
    old_password = serializers.CharField(max_length=256, trim_whitespace=False, write_only=True, error_messages={"blank": REQUIRED})
    new_password = password_field()


class PasswordResetInputSerializer(serializers.Serializer):
    email = email_field()


class PasswordResetConfirmInputSerializer(serializers.Serializer):
    uid = serializers.CharField(max_length=64, error_messages={"blank": REQUIRED})
    token = serializers.CharField(max_length=128, error_messages={"blank": REQUIRED})
    new_password = password_field()


class AccountSummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = Account
        fields = ["id", "name"]


class UserSerializer(serializers.ModelSerializer):
    role = serializers.CharField(source="role_name", read_only=True, allow_null=True)
    account = AccountSummarySerializer(read_only=True, allow_null=True)

    class Meta:
        model = User
        fields = ["id", "email", "first_name", "last_name", "role", "account", "is_active", "is_staff", "date_joined", "last_login"]
        read_only_fields = fields


class TokenPairSerializer(serializers.Serializer):
    access = serializers.CharField()
    access_expires_at = serializers.DateTimeField()
    refresh = serializers.CharField()
    refresh_expires_at = serializers.DateTimeField()


class LoginResultSerializer(TokenPairSerializer):
    user = UserSerializer()


class RegisterResultSerializer(serializers.Serializer):
    user = UserSerializer()


# Plans, accounts, roles


class PlanSerializer(serializers.ModelSerializer):
    class Meta:
        model = Plan
        fields = ["id", "slug", "name", "description", "max_sites", "max_users", "max_keywords", "monthly_credits", "signup_credits", "price_cents_monthly"]
        read_only_fields = fields


class SubscriptionSerializer(serializers.ModelSerializer):
    plan = PlanSerializer(read_only=True)
    is_active = serializers.BooleanField(read_only=True)

    class Meta:
        model = Subscription
        fields = ["id", "plan", "status", "is_active", "current_period_start", "current_period_end", "created_at"]
        read_only_fields = fields


class AccountSerializer(serializers.ModelSerializer):
    subscription = SubscriptionSerializer(read_only=True)
    credits = serializers.IntegerField(source="credit_ledger.balance", read_only=True, help_text="The credit balance (see /billing/balance/)")

    class Meta:
        model = Account
        fields = ["id", "name", "credits", "subscription", "created_at", "updated_at"]
        read_only_fields = fields


class AccountUpdateInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=150, error_messages={"blank": REQUIRED})


class RoleSerializer(serializers.ModelSerializer):
    class Meta:
        model = Role
        fields = ["id", "name", "description"]
        read_only_fields = fields


# Users


class AccountUserSerializer(UserSerializer):
    site_ids = serializers.SerializerMethodField()

    class Meta(UserSerializer.Meta):
        fields = [*UserSerializer.Meta.fields, "site_ids"]
        read_only_fields = fields

    def get_site_ids(self, user) -> list[int]:
        # Served from the prefetched grants; no query per user.
        return sorted(access.site_id for access in user.site_access.all())


class UserCreateInputSerializer(serializers.Serializer):
    email = email_field()
    password = password_field()
    first_name = serializers.CharField(max_length=150, required=False, allow_blank=True, default="")
    last_name = serializers.CharField(max_length=150, required=False, allow_blank=True, default="")
    role = serializers.ChoiceField(choices=RoleName.values, error_messages={"invalid_choice": "Invalid role"})
    site_ids = serializers.ListField(child=AccountSiteField(), required=False, default=list, max_length=1000)


class UserUpdateInputSerializer(serializers.Serializer):
    first_name = serializers.CharField(max_length=150, required=False, allow_blank=True)
    last_name = serializers.CharField(max_length=150, required=False, allow_blank=True)
    role = serializers.ChoiceField(choices=RoleName.values, required=False, error_messages={"invalid_choice": "Invalid role"})
    is_active = serializers.BooleanField(required=False)
    site_ids = serializers.ListField(child=AccountSiteField(), required=False, max_length=1000)


# Sites and sectors


def _clean_domain(value: str) -> str:
    domain = re.sub(r"^[a-z][a-z0-9+.-]*://", "", value.strip().lower()).split("/")[0]
    if not HOSTNAME.match(domain):
        raise serializers.ValidationError("Enter a valid domain name, for example example.com")
    return domain


class SiteSerializer(serializers.ModelSerializer):
    url = serializers.CharField(read_only=True)

    class Meta:
        model = Site
        fields = ["id", "name", "domain", "url", "slug", "time_zone", "is_active", "created_at", "updated_at"]
        read_only_fields = fields


class SiteInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=150, error_messages={"blank": REQUIRED})
    domain = serializers.CharField(max_length=260, error_messages={"blank": REQUIRED})
    time_zone = serializers.CharField(max_length=64, required=False, default="UTC")
    is_active = serializers.BooleanField(required=False, default=True)

    def validate_domain(self, value: str) -> str:
        return _clean_domain(value)

    def validate_time_zone(self, value: str) -> str:
        if value not in TIME_ZONES:
            raise serializers.ValidationError("Unknown time zone; use an IANA name such as Europe/Berlin")
        return value


class SectorSerializer(serializers.ModelSerializer):
    site_id = serializers.IntegerField(read_only=True)
    industry_sector_id = serializers.IntegerField(read_only=True)
    industry_sector_name = serializers.CharField(source="industry_sector.name", read_only=True)
    industry_id = serializers.IntegerField(source="industry_sector.industry_id", read_only=True)

    class Meta:
        model = Sector
        fields = ["id", "site_id", "industry_sector_id", "industry_sector_name", "industry_id", "name", "created_at"]
        read_only_fields = fields


class SectorInputSerializer(serializers.Serializer):
    site_id = AccountSiteField(source="site")
    industry_sector_id = serializers.PrimaryKeyRelatedField(
        source="industry_sector",
        queryset=IndustrySector.objects.all(),
        error_messages={"does_not_exist": "Invalid industry sector", "incorrect_type": "Invalid industry sector"},
    )
    name = serializers.CharField(max_length=120, required=False, allow_blank=True, default="")


class SectorUpdateInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=120, error_messages={"blank": REQUIRED})


class IndustrySectorSerializer(serializers.ModelSerializer):
    class Meta:
        model = IndustrySector
        fields = ["id", "name", "slug", "description"]
        read_only_fields = fields


class IndustrySerializer(serializers.ModelSerializer):
    sectors = IndustrySectorSerializer(many=True, read_only=True)

    class Meta:
        model = Industry
        fields = ["id", "name", "slug", "description", "sectors"]
        read_only_fields = fields


# Site access and API keys


class SiteAccessSerializer(serializers.ModelSerializer):
    user_id = serializers.IntegerField(read_only=True)
    site_id = serializers.IntegerField(read_only=True)
    granted_by_id = serializers.IntegerField(read_only=True, allow_null=True)

    class Meta:
        model = SiteUserAccess
        fields = ["id", "user_id", "site_id", "granted_by_id", "created_at"]
        read_only_fields = fields


@extend_schema_field(OpenApiTypes.INT)
class AccountUserField(serializers.PrimaryKeyRelatedField):
    default_error_messages = {"does_not_exist": "User must belong to your account", "incorrect_type": "User must belong to your account"}

    def get_queryset(self):
        return User.objects.for_account(self.context["request"].account)


class SiteAccessInputSerializer(serializers.Serializer):
    user_id = AccountUserField(source="user")
    site_id = AccountSiteField(source="site")


class ApiKeySerializer(serializers.ModelSerializer):
    site_id = serializers.IntegerField(read_only=True, allow_null=True)
    user_id = serializers.IntegerField(read_only=True)

    class Meta:
        model = ApiKey
        fields = ["id", "name", "prefix", "site_id", "user_id", "created_at", "last_used_at"]
        read_only_fields = fields


class ApiKeyCreatedSerializer(ApiKeySerializer):
    key = serializers.CharField(read_only=True, help_text="Shown only in this response; store it now.")

    class Meta(ApiKeySerializer.Meta):
        fields = ["id", "name", "prefix", "key", "site_id", "created_at"]
        read_only_fields = fields


class ApiKeyCreateInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100, error_messages={"blank": REQUIRED})
    site_id = AccountSiteField(source="site", required=False, allow_null=True, default=None)

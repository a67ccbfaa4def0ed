from django.contrib.auth import login, logout
from django.db.models import Prefetch
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import mixins, serializers
from rest_framework.permissions import AllowAny

from inkwell.api.envelope import created, ok
from inkwell.api.views import ApiReadOnlyModelViewSet, ApiView, validated
from inkwell.tenancy import selectors, services, tokens
from inkwell.tenancy import serializers as s
from inkwell.tenancy.filters import SectorFilter, SiteAccessFilter, SiteFilter, UserFilter
from inkwell.tenancy.models import MANAGER_ROLES, Account, ApiKey, Industry, Plan, Role, Sector, Site, SiteUserAccess, Subscription, User
from inkwell.tenancy.permissions import ALL_ROLES
from inkwell.tenancy.viewsets import AccountScopedViewSet

MESSAGE_RESULT = inline_serializer("MessageResult", fields={"detail": serializers.CharField()})


class PublicAuthView(ApiView):
    """Endpoints open to anonymous callers (register, login, refresh, password reset)."""

    permission_classes = [AllowAny]
    authentication_classes: list = []
    throttle_scope = "auth"
    tenant_scope = "public"

    def get_authenticate_header(self, request):
        # Bad credentials or tokens here are 401s, as everywhere, though no authenticator runs.
        return 'Bearer realm="api"'


class RegisterView(PublicAuthView):
    @extend_schema(tags=["auth"], request=s.RegisterInputSerializer, responses={201: s.RegisterResultSerializer})
    def post(self, request):
        user = services.account_register(**validated(s.RegisterInputSerializer, request))
        return created({"user": s.UserSerializer(user).data})


class LoginView(PublicAuthView):
    @extend_schema(tags=["auth"], request=s.LoginInputSerializer, responses={200: s.LoginResultSerializer})
    def post(self, request):
        data = validated(s.LoginInputSerializer, request)
        user = services.user_login_authenticate(request=request._request, email=data["email"], password=data["password"])
        login(request._request, user)
        user = selectors.user_with_account(user.pk)
        return ok({"user": s.UserSerializer(user).data, **tokens.token_pair(user)}, secret=True)


class RefreshView(PublicAuthView):
    @extend_schema(tags=["auth"], request=s.RefreshInputSerializer, responses={200: s.TokenPairSerializer})
    def post(self, request):
        _, pair = tokens.rotate_refresh_token(validated(s.RefreshInputSerializer, request)["refresh"])
        return ok(pair, secret=True)


class PasswordResetView(PublicAuthView):
    @extend_schema(tags=["auth"], request=s.PasswordResetInputSerializer, responses={200: MESSAGE_RESULT})
    def post(self, request):
        services.password_reset_request(**validated(s.PasswordResetInputSerializer, request))
        return ok({"detail": "If the address belongs to an account, a reset e-mail is on its way."})


class PasswordResetConfirmView(PublicAuthView):
    @extend_schema(tags=["auth"], request=s.PasswordResetConfirmInputSerializer, responses={200: MESSAGE_RESULT})
    def post(self, request):
        services.password_reset_confirm(**validated(s.PasswordResetConfirmInputSerializer, request))
        return ok({"detail": "Password has been reset."})


class OwnUserView(ApiView):
    """Endpoints acting on the caller's own user; there is no id to cross accounts with."""

    tenant_scope = "own_account"
    allow_inactive_plan = True
    write_roles = ALL_ROLES
    human_only = True


class LogoutView(OwnUserView):
    @extend_schema(tags=["auth"], request=s.LogoutInputSerializer, responses={200: MESSAGE_RESULT})
    def post(self, request):
        refresh = validated(s.LogoutInputSerializer, request).get("refresh")
        if refresh:
            if not tokens.revoke_refresh_token(request.user, refresh):
                raise serializers.ValidationError({"refresh": ["Invalid refresh token"]})
        else:
            tokens.revoke_all_tokens(request.user)
        logout(request._request)
        return ok({"detail": "Logged out."})


class PasswordChangeView(OwnUserView):
    @extend_schema(tags=["auth"], request=s.PasswordChangeInputSerializer, responses={200: s.TokenPairSerializer})
    def post(self, request):
        pair = services.password_change(user=request.user, **validated(s.PasswordChangeInputSerializer, request))
        return ok(pair, message="Password changed; every earlier token was revoked.", secret=True)


class MeView(OwnUserView):
    @extend_schema(tags=["auth"], responses={200: s.UserSerializer})
    def get(self, request):
        return ok(selectors.own_user(request.user))


class AccountView(ApiView):
    """``/auth/account/``: the caller's own account."""

    tenant_scope = "own_account"
    allow_inactive_plan = True
    write_roles = MANAGER_ROLES

    @extend_schema(tags=["accounts"], responses={200: s.AccountSerializer})
    def get(self, request):
        return ok(s.AccountSerializer(request.account).data)

    @extend_schema(tags=["accounts"], request=s.AccountUpdateInputSerializer, responses={200: s.AccountSerializer})
    def put(self, request):
        account = services.account_update(account=request.account, **validated(s.AccountUpdateInputSerializer, request))
        return ok(s.AccountSerializer(account).data)

    @extend_schema(tags=["accounts"], request=s.AccountUpdateInputSerializer, responses={200: s.AccountSerializer})
    def patch(self, request):
        return self.put(request)


# Global catalogues: the same for every account, read-only.


class GlobalReadOnlyViewSet(ApiReadOnlyModelViewSet):
    tenant_scope = "global"


@extend_schema(tags=["catalog"])
class PlanViewSet(GlobalReadOnlyViewSet):
    queryset = Plan.objects.filter(is_public=True)
    serializer_class = s.PlanSerializer
    allow_inactive_plan = True


@extend_schema(tags=["catalog"])
class RoleViewSet(GlobalReadOnlyViewSet):
    queryset = Role.objects.all()
    serializer_class = s.RoleSerializer


@extend_schema(tags=["catalog"])
class IndustryViewSet(GlobalReadOnlyViewSet):
    queryset = Industry.objects.prefetch_related("sectors")
    serializer_class = s.IndustrySerializer


# Account-owned resources.


@extend_schema(tags=["accounts"])
class AccountViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, AccountScopedViewSet):
    """``/auth/accounts/``: the router form; a user sees exactly one account, their own."""

    queryset = Account.objects.select_related("subscription__plan", "credit_ledger")
    serializer_class = s.AccountSerializer
    allow_inactive_plan = True


@extend_schema(tags=["accounts"])
class SubscriptionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, AccountScopedViewSet):
    queryset = Subscription.objects.select_related("plan")
    serializer_class = s.SubscriptionSerializer
    allow_inactive_plan = True




@extend_schema(tags=["users"])
class UserViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, AccountScopedViewSet):
    queryset = User.objects.select_related("role", "account").prefetch_related(
        Prefetch("site_access", queryset=SiteUserAccess.dangerously_unscoped.only("id", "user_id", "site_id"))
    )
    serializer_class = s.AccountUserSerializer
    filterset_class = UserFilter
    write_roles = MANAGER_ROLES

    @extend_schema(request=s.UserCreateInputSerializer, responses={201: s.AccountUserSerializer})
    def create(self, request):
        data = validated(s.UserCreateInputSerializer, request)
        user = services.user_create(account=request.account, actor=request.user, sites=data.pop("site_ids"), **data)
        return created(self.get_serializer(selectors.account_user(request.account, user.pk)).data)

    @extend_schema(request=s.UserUpdateInputSerializer, responses={200: s.AccountUserSerializer})
    def update(self, request, pk=None, partial=False):
        user = self.get_object()
        data = validated(s.UserUpdateInputSerializer, request, partial=partial)
        sites = data.pop("site_ids", None)
        user = services.user_update(user=user, actor=request.user, sites=sites, **data)
        return ok(self.get_serializer(selectors.account_user(request.account, user.pk)).data)

    @extend_schema(request=s.UserUpdateInputSerializer, responses={200: s.AccountUserSerializer})
    def partial_update(self, request, pk=None):
        return self.update(request, pk, partial=True)

    def perform_destroy(self, instance):
        services.user_delete(user=instance, actor=self.request.user)




@extend_schema(tags=["sites"])
class SiteViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, AccountScopedViewSet):
    queryset = Site.objects.all()
    serializer_class = s.SiteSerializer
    filterset_class = SiteFilter
    write_roles = MANAGER_ROLES

    @extend_schema(request=s.SiteInputSerializer, responses={201: s.SiteSerializer})
    def create(self, request):
        site = services.site_create(account=request.account, **validated(s.SiteInputSerializer, request))
        return created(self.get_serializer(site).data)

    @extend_schema(request=s.SiteInputSerializer, responses={200: s.SiteSerializer})
    def update(self, request, pk=None, partial=False):
        site = self.get_object()
        site = services.site_update(site=site, **validated(s.SiteInputSerializer, request, partial=partial))
        return ok(self.get_serializer(site).data)

    @extend_schema(request=s.SiteInputSerializer, responses={200: s.SiteSerializer})
    def partial_update(self, request, pk=None):
        return self.update(request, pk, partial=True)





@extend_schema(tags=["sites"])
class SectorViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, AccountScopedViewSet):
    queryset = Sector.objects.select_related("industry_sector")
    serializer_class = s.SectorSerializer
    filterset_class = SectorFilter
    write_roles = MANAGER_ROLES

    @extend_schema(request=s.SectorInputSerializer, responses={201: s.SectorSerializer})
    def create(self, request):
        sector = services.sector_create(account=request.account, **validated(s.SectorInputSerializer, request))
        return created(self.get_serializer(sector).data)

    @extend_schema(request=s.SectorUpdateInputSerializer, responses={200: s.SectorSerializer})
    def update(self, request, pk=None):
        sector = self.get_object()
        sector = services.sector_update(sector=sector, **validated(s.SectorUpdateInputSerializer, request))
        return ok(self.get_serializer(sector).data)

    @extend_schema(request=s.SectorUpdateInputSerializer, responses={200: s.SectorSerializer})
    def partial_update(self, request, pk=None):
        return self.update(request, pk)





@extend_schema(tags=["users"])
class SiteAccessViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, AccountScopedViewSet):
    queryset = SiteUserAccess.objects.all()
    serializer_class = s.SiteAccessSerializer
    filterset_class = SiteAccessFilter
    read_roles = MANAGER_ROLES
    write_roles = MANAGER_ROLES

    @extend_schema(request=s.SiteAccessInputSerializer, responses={201: s.SiteAccessSerializer})
    def create(self, request):
        data = validated(s.SiteAccessInputSerializer, request)
        access = services.site_access_grant(account=request.account, actor=request.user, **data)
        return created(self.get_serializer(access).data)



@extend_schema(tags=["api keys"])
class ApiKeyViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, AccountScopedViewSet):
    queryset = ApiKey.objects.all()
    serializer_class = s.ApiKeySerializer
    read_roles = MANAGER_ROLES
    write_roles = MANAGER_ROLES

    @extend_schema(request=s.ApiKeyCreateInputSerializer, responses={201: s.ApiKeyCreatedSerializer})
    def create(self, request):
        key, raw_key = services.api_key_create(account=request.account, user=request.user, **validated(s.ApiKeyCreateInputSerializer, request))
        key.key = raw_key
        return created(s.ApiKeyCreatedSerializer(key).data, secret=True)

    def perform_destroy(self, instance):
        services.api_key_revoke(key=instance)


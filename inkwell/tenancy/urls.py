from django.urls import path
from rest_framework.routers import SimpleRouter

from inkwell.tenancy import views

router = SimpleRouter()
router.register("groups", views.RoleViewSet, basename="group")
router.register("users", views.UserViewSet, basename="user")
router.register("accounts", views.AccountViewSet, basename="account")
router.register("subscriptions", views.SubscriptionViewSet, basename="subscription")
router.register("site-access", views.SiteAccessViewSet, basename="site-access")
router.register("plans", views.PlanViewSet, basename="plan")
router.register("sites", views.SiteViewSet, basename="site")
router.register("sectors", views.SectorViewSet, basename="sector")
router.register("industries", views.IndustryViewSet, basename="industry")
router.register("api-keys", views.ApiKeyViewSet, basename="api-key")

urlpatterns = [
    path("register/", views.RegisterView.as_view(), name="auth-register"),
    path("login/", views.LoginView.as_view(), name="auth-login"),
    path("logout/", views.LogoutView.as_view(), name="auth-logout"),
    # Both path forms of the spec are served.
    path("token/refresh/", views.RefreshView.as_view(), name="auth-token-refresh"),
    path("refresh/", views.RefreshView.as_view(), name="auth-refresh"),
    path("password/change/", views.PasswordChangeView.as_view(), name="auth-password-change"),
    path("change-password/", views.PasswordChangeView.as_view(), name="auth-change-password"),
    path("password/reset/", views.PasswordResetView.as_view(), name="auth-password-reset"),
    path("password/reset/confirm/", views.PasswordResetConfirmView.as_view(), name="auth-password-reset-confirm"),
    path("me/", views.MeView.as_view(), name="auth-me"),
    path("account/", views.AccountView.as_view(), name="auth-account"),
    *router.urls,
]

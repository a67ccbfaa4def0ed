"""Sign up, sign in, sign out and password reset: the API's services behind session pages."""

from django.contrib.auth import login, logout
from django.shortcuts import redirect
from django.urls import reverse
from django.views import View
from rest_framework import exceptions

from inkwell.console.base import console_path, refusal_messages, rate_limited, render_page, validated
from inkwell.tenancy import services
from inkwell.tenancy import serializers as s


class PublicPage(View):
    """A page for people who are not signed in (tenant_scope: public); its form errors are the API's."""

    tenant_scope = "public"
    throttle_scope = "auth"
    template_name = ""
    fields: tuple[str, ...] = ()

    def get(self, request, **kwargs):
        if request.user.is_authenticated and self.redirect_signed_in:
            return redirect("console:home")
        return self.form(request, {}, {})

    redirect_signed_in = True

    def form(self, request, values: dict, errors: dict, *, status: int = 200, **extra):
        return render_page(request, self.template_name, {"values": values, "errors": errors, **extra}, status=status)

    def post(self, request, **kwargs):
        values = {name: request.POST.get(name, "") for name in self.fields}
        if rate_limited(request, self):
            return self.form(request, {}, {"non_field_errors": ["Too many attempts; wait a minute and try again."]}, status=429)
        try:
            return self.submit(request, values, **kwargs)
        except exceptions.APIException as exc:
            error, errors = refusal_messages(exc)
            shown = {name: value for name, value in values.items() if "password" not in name}
            return self.form(request, shown, errors or {"non_field_errors": [error]}, status=exc.status_code)


def _next_url(request) -> str:
    return console_path(request.POST.get("next") or request.GET.get("next") or "", default=reverse("console:home"))


class SignInView(PublicPage):
    template_name = "console/pages/signin.html"
    fields = ("email", "password")

    def form(self, request, values, errors, *, status=200, **extra):
        return super().form(request, values, errors, status=status, next=request.POST.get("next") or request.GET.get("next", ""), **extra)

    def submit(self, request, values):
        data = validated(s.LoginInputSerializer, request, values)
        # The API's sign-in: the same credentials check, and the same lock after repeated failures.
        user = services.user_login_authenticate(request=request, email=data["email"], password=data["password"])
        login(request, user)
        return redirect(_next_url(request))


class SignUpView(PublicPage):
    template_name = "console/pages/signup.html"
    fields = ("email", "password", "first_name", "last_name", "account_name")

    def submit(self, request, values):
        user = services.account_register(**validated(s.RegisterInputSerializer, request, values))
        login(request, user)
        return redirect("console:site-new")


class SignOutView(View):
    tenant_scope = "public"

    def post(self, request):
        logout(request)
        return redirect("console:signin")


class PasswordResetView(PublicPage):
    template_name = "console/pages/password_reset.html"
    fields = ("email",)
    redirect_signed_in = False

    def submit(self, request, values):
        data = validated(s.PasswordResetInputSerializer, request, values)

        def reset_link(uid: str, token: str) -> str:
            return request.build_absolute_uri(reverse("console:password-reset-confirm", kwargs={"uid": uid, "token": token}))

        services.password_reset_request(email=data["email"], reset_link=reset_link)
        return self.form(request, {}, {}, sent=True)


class PasswordResetConfirmView(PublicPage):
    template_name = "console/pages/password_reset_confirm.html"
    fields = ("new_password",)
    redirect_signed_in = False

    def submit(self, request, values, uid: str, token: str):
        data = validated(s.PasswordResetConfirmInputSerializer, request, {**values, "uid": uid, "token": token})
        services.password_reset_confirm(**data)
        return render_page(request, "console/pages/signin.html", {"values": {}, "errors": {}, "reset_done": True})

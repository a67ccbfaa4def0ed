"""services.account_register: a new account, its owner, subscription and sign-up credits."""

from datetime import timedelta

import pytest

from inkwell.api.exceptions import Conflict
from inkwell.tenancy import services
from inkwell.tenancy.models import Account, Plan, RoleName, Subscription, SubscriptionStatus, User

pytestmark = pytest.mark.django_db


def test_registering_creates_an_owner_on_the_default_plan_with_signup_credits(settings):
    settings.INKWELL_SIGNUP_CREDITS = None

    user = services.account_register(email="  New.Person@Example.COM ", password="long-enough-1", first_name="Ada", last_name="L")

    user = User.objects.for_account(user.account).get(pk=user.pk)
    assert user.email == "new.person@example.com"
    assert user.check_password("long-enough-1")
    assert (user.first_name, user.last_name, user.is_active, user.is_staff) == ("Ada", "L", True, False)
    assert user.role_name == RoleName.OWNER
    subscription = Subscription.objects.for_account(user.account).get()
    plan = Plan.objects.get(slug=settings.INKWELL_DEFAULT_PLAN)
    assert subscription.plan == plan
    assert subscription.status == SubscriptionStatus.ACTIVE
    assert subscription.is_active
    assert subscription.current_period_end - subscription.current_period_start == timedelta(days=30)
    account = Account.objects.get(pk=user.account_id)
    assert account.credit_ledger.balance == plan.signup_credits > 0
    assert list(User.objects.for_account(account)) == [user]


@pytest.mark.parametrize("credits", [0, 7, 5000])
def test_signup_credits_setting_overrides_the_plan(settings, credits):
    settings.INKWELL_SIGNUP_CREDITS = credits

    user = services.account_register(email="credits@example.com", password="long-enough-1")

    assert Account.objects.get(pk=user.account_id).credit_ledger.balance == credits


def test_the_default_plan_setting_picks_the_plan(settings):
    settings.INKWELL_DEFAULT_PLAN = "starter"
    settings.INKWELL_SIGNUP_CREDITS = None

    user = services.account_register(email="starter@example.com", password="long-enough-1")

    assert Subscription.objects.for_account(user.account).get().plan.slug == "starter"
    assert Account.objects.get(pk=user.account_id).credit_ledger.balance == Plan.objects.get(slug="starter").signup_credits


@pytest.mark.parametrize(
    ("first_name", "account_name", "expected"),
    [
        ("", "", "ada's account"),
        ("Grace", "", "Grace's account"),
        ("Grace", "  Analytical Engines  ", "Analytical Engines"),
    ],
)
def test_the_account_name_defaults_to_the_first_name_or_the_email(first_name, account_name, expected):
    user = services.account_register(email="ada@example.com", password="long-enough-1", first_name=first_name, account_name=account_name)

    assert Account.objects.get(pk=user.account_id).name == expected


def test_duplicate_email_is_a_conflict_case_insensitively():
    services.account_register(email="dup@example.com", password="long-enough-1")
    accounts_before = Account.objects.count()

    with pytest.raises(Conflict) as raised:
        services.account_register(email="DUP@Example.com", password="long-enough-1")

    assert raised.value.errors == {"email": ["User with this email already exists"]}
    assert raised.value.status_code == 409
    assert Account.objects.count() == accounts_before
    assert User.dangerously_unscoped.filter(email__iexact="dup@example.com").count() == 1


def test_an_email_taken_by_another_accounts_member_is_a_conflict(tenant):
    with pytest.raises(Conflict):
        services.account_register(email=tenant.viewer.email.upper(), password="long-enough-1")


def test_losing_the_registration_race_leaves_no_orphan_account(monkeypatch):
    services.account_register(email="race@example.com", password="long-enough-1")
    accounts_before = Account.objects.count()
    subscriptions_before = Subscription.dangerously_unscoped.count()
    # The concurrent request passed the look-up first; the database constraint catches it.
    monkeypatch.setattr(services, "_email_taken", lambda email: False)

    with pytest.raises(Conflict) as raised:
        services.account_register(email="Race@example.com", password="long-enough-1")

    assert raised.value.errors == {"email": ["User with this email already exists"]}
    assert Account.objects.count() == accounts_before
    assert Subscription.dangerously_unscoped.count() == subscriptions_before

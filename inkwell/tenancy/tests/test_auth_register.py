"""POST /auth/register/ (the field messages of the Auth rows)."""

import pytest
from django.conf import settings

from inkwell.api.tests import assert_error
from inkwell.tenancy.models import Account, Plan, User

REGISTER = "/api/v1/auth/register/"
VALID = {"email": "new.owner@example.com", "password": "long-enough"}


def register(client, **fields):
    return client.post(REGISTER, {**VALID, **fields}, format="json")


def without(field: str) -> dict:
    return {key: value for key, value in VALID.items() if key != field}


@pytest.mark.django_db
def test_register_creates_account_owner_active_subscription_and_signup_credits(api_client):
    response = register(api_client, first_name="Ada", account_name="Ada's Studio")

    assert response.status_code == 201
    user_data = response.json()["data"]["user"]
    assert user_data["email"] == "new.owner@example.com"
    assert user_data["role"] == "owner"
    user = User.dangerously_unscoped.select_related("account__subscription__plan").get(email="new.owner@example.com")
    assert user_data["id"] == user.pk
    assert user.check_password("long-enough")
    assert user.first_name == "Ada"
    assert user.role_name == "owner"
    assert user.account.name == "Ada's Studio"
    subscription = user.account.subscription
    assert subscription.status == "active"
    assert subscription.plan.slug == settings.INKWELL_DEFAULT_PLAN
    assert user.account.credit_ledger.balance == Plan.objects.get(slug=settings.INKWELL_DEFAULT_PLAN).signup_credits


@pytest.mark.django_db
def test_register_grants_the_configured_signup_credits(api_client, settings):
    settings.INKWELL_SIGNUP_CREDITS = 42

    register(api_client)

    assert User.dangerously_unscoped.get(email=VALID["email"]).account.credit_ledger.balance == 42


@pytest.mark.django_db
def test_register_stores_the_email_in_lower_case(api_client):
    register(api_client, email="Mixed.Case@Example.COM")

    assert User.dangerously_unscoped.filter(email="mixed.case@example.com").exists()


@pytest.mark.django_db
def test_register_response_never_contains_the_password(api_client):
    response = register(api_client)

    assert "password" not in response.json()["data"]["user"]
    assert VALID["password"] not in response.content.decode()


@pytest.mark.django_db
def test_registered_user_can_log_in(api_client):
    register(api_client)

    response = api_client.post("/api/v1/auth/login/", VALID, format="json")

    assert response.status_code == 200


# Field messages, word for word


@pytest.mark.django_db
@pytest.mark.parametrize("body", [without("email"), {**VALID, "email": ""}], ids=["missing", "blank"])
def test_email_is_required(api_client, body):
    response = api_client.post(REGISTER, body, format="json")

    assert_error(response, 400, "validation_error", errors={"email": ["This field is required"]})
    assert not User.dangerously_unscoped.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("email", ["not-an-email", "a@", "@example.com", "two words@example.com"])
def test_email_must_have_a_valid_format(api_client, email):
    response = register(api_client, email=email)

    assert_error(response, 400, "validation_error", errors={"email": ["Invalid email format"]})


@pytest.mark.parametrize(
    "email",
    [
        pytest.param("owner-a@example.com", id="same"),
        pytest.param("OWNER-A@Example.com", id="upper-case"),
        pytest.param("owner-a@\uff45xample.com", id="fullwidth-letter"),
    ],
)
def test_an_existing_email_answers_409_conflict(tenant, api_client, email):
    accounts_before = Account.objects.count()

    response = register(api_client, email=email)

    assert_error(response, 409, "conflict", errors={"email": ["User with this email already exists"]})
    assert Account.objects.count() == accounts_before
    assert User.dangerously_unscoped.filter(email__iexact="owner-a@example.com").count() == 1
    assert User.dangerously_unscoped.filter(email__startswith="owner-a@").count() == 1


def test_an_address_with_a_kelvin_sign_is_the_address_with_its_letter(make_tenant, api_client):
    make_tenant("k")
    User.dangerously_unscoped.filter(email="owner-k@example.com").update(email="kate@example.com")

    response = register(api_client, email="\u212aate@example.com")

    assert_error(response, 409, "conflict", errors={"email": ["User with this email already exists"]})


@pytest.mark.django_db
@pytest.mark.parametrize("body", [without("password"), {**VALID, "password": ""}], ids=["missing", "blank"])
def test_password_is_required(api_client, body):
    response = api_client.post(REGISTER, body, format="json")

    assert_error(response, 400, "validation_error", errors={"password": ["This field is required"]})


@pytest.mark.django_db
def test_password_must_have_at_least_8_characters(api_client):
    response = register(api_client, password="seven77")

    assert_error(response, 400, "validation_error", errors={"password": ["Password must be at least 8 characters"]})
    assert not User.dangerously_unscoped.exists()


@pytest.mark.django_db
def test_password_of_exactly_8_characters_is_accepted(api_client):
    assert register(api_client, password="eight888").status_code == 201


@pytest.mark.django_db
def test_register_is_public_and_ignores_credentials(api_client):
    api_client.credentials(HTTP_AUTHORIZATION="Bearer garbage")

    assert register(api_client).status_code == 201

import pytest
from django.test import override_settings

from inkwell import settings as inkwell_settings
from inkwell.tenancy import services


def test_the_configured_password_hasher_is_argon2():
    assert inkwell_settings.PASSWORD_HASHERS[0] == "django.contrib.auth.hashers.Argon2PasswordHasher"


@pytest.mark.django_db
def test_passwords_are_hashed_with_argon2():
    with override_settings(PASSWORD_HASHERS=inkwell_settings.PASSWORD_HASHERS):
        user = services.account_register(email="argon@example.com", password="long-enough-pw")
        assert user.password.startswith("argon2$")
        assert user.check_password("long-enough-pw")

"""inkwell.crypto: secrets at rest are Fernet tokens, keys rotate, masks reveal at most four characters."""

import logging
import secrets
import string

import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import FieldError, ImproperlyConfigured
from django.db import connection

from inkwell import crypto
from inkwell.system.models import IntegrationSettings

SECRET = "sk-live-0123456789abcdefWXYZ"


def test_a_secret_survives_a_round_trip(settings):
    settings.INKWELL_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    token = crypto.encrypt(SECRET)
    assert SECRET not in token
    assert crypto.decrypt(token) == SECRET


def test_the_same_secret_encrypts_differently_each_time():
    assert crypto.encrypt(SECRET) != crypto.encrypt(SECRET)


def test_without_configured_keys_the_key_is_derived_from_the_secret_key(settings):
    settings.INKWELL_ENCRYPTION_KEYS = []
    token = crypto.encrypt(SECRET)
    assert Fernet(crypto.derive_key(settings.SECRET_KEY)).decrypt(token.encode()).decode() == SECRET
    settings.SECRET_KEY = "another secret key, as after a careless change"
    with pytest.raises(crypto.DecryptionError):
        crypto.decrypt(token)


def test_rotation_the_first_key_encrypts_and_every_key_decrypts(settings):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.INKWELL_ENCRYPTION_KEYS = [old]
    old_token = crypto.encrypt(SECRET)

    settings.INKWELL_ENCRYPTION_KEYS = [new, old]
    assert crypto.decrypt(old_token) == SECRET
    new_token = crypto.encrypt(SECRET)

    settings.INKWELL_ENCRYPTION_KEYS = [new]
    assert crypto.decrypt(new_token) == SECRET
    with pytest.raises(crypto.DecryptionError):
        crypto.decrypt(old_token)


def test_a_malformed_key_setting_is_a_configuration_error_that_does_not_echo_the_key(settings):
    settings.INKWELL_ENCRYPTION_KEYS = ["not-a-fernet-key-but-a-secret"]
    with pytest.raises(ImproperlyConfigured) as raised:
        crypto.encrypt(SECRET)
    assert "not-a-fernet-key-but-a-secret" not in str(raised.value)


def test_something_that_is_not_a_token_does_not_decrypt():
    with pytest.raises(crypto.DecryptionError):
        crypto.decrypt("plain text")


def test_a_mask_shows_the_last_four_characters_of_a_key():
    assert crypto.mask(SECRET) == "…WXYZ"
    assert crypto.mask("") == ""


@pytest.mark.parametrize("length", range(0, 70))
def test_a_mask_never_reveals_more_than_four_characters_nor_most_of_a_short_secret(length):
    secret = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(length))
    masked = crypto.mask(secret)
    revealed = masked.removeprefix(crypto.MASK_PREFIX)
    assert secret.endswith(revealed)
    assert len(revealed) <= 4
    assert len(revealed) <= length // 4
    assert (masked == "") == (length == 0)


@pytest.mark.django_db
def test_the_database_column_holds_a_token_never_the_plain_text(tenant):
    row = IntegrationSettings.objects.create(account=tenant.account, integration_type="ai_provider", api_key=SECRET)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT api_key FROM {IntegrationSettings._meta.db_table} WHERE id = %s", [row.pk])
        (stored,) = cursor.fetchone()
    assert SECRET not in stored
    assert crypto.decrypt(stored) == SECRET
    assert IntegrationSettings.objects.for_account(tenant.account).get().api_key == SECRET


@pytest.mark.django_db
def test_an_empty_secret_is_stored_empty(tenant):
    row = IntegrationSettings.objects.create(account=tenant.account, integration_type="ai_provider", api_key="")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT api_key FROM {IntegrationSettings._meta.db_table} WHERE id = %s", [row.pk])
        assert cursor.fetchone() == ("",)


@pytest.mark.django_db
def test_a_token_the_keys_cannot_read_loads_as_empty_with_a_warning(tenant, settings, caplog):
    settings.INKWELL_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    IntegrationSettings.objects.create(account=tenant.account, integration_type="ai_provider", api_key=SECRET)
    settings.INKWELL_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    with caplog.at_level(logging.WARNING, logger="inkwell.crypto"):
        assert IntegrationSettings.objects.for_account(tenant.account).get().api_key == ""
    assert "IntegrationSettings.api_key" in caplog.text
    assert SECRET not in caplog.text


@pytest.mark.django_db
def test_encrypted_fields_refuse_lookups_that_could_never_match(tenant):
    with pytest.raises(FieldError):
        list(IntegrationSettings.objects.for_account(tenant.account).filter(api_key=SECRET))
    assert not IntegrationSettings.objects.for_account(tenant.account).filter(api_key__isnull=True).exists()

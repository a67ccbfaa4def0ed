"""Stored addresses take the canonical form that lookups compare exactly (migration 0005)."""

import importlib

import pytest
from django.apps import apps

from inkwell.tenancy.models import User, canonical_email

migration = importlib.import_module("inkwell.tenancy.migrations.0005_canonical_emails")

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("given", "canonical"),
    [("  Ada@Example.COM ", "ada@example.com"), ("\u212aate@example.com", "kate@example.com"), ("\uff41da@example.com", "ada@example.com"), ("e\u0301@x.org", "\u00e9@x.org")],
)
def test_the_canonical_form_folds_case_width_and_composition(given, canonical):
    assert canonical_email(given) == canonical


def test_the_migration_stores_each_address_in_its_canonical_form_unless_another_user_has_it(tenant):
    User.dangerously_unscoped.filter(pk=tenant.owner.pk).update(email="Owner.A\uff20Example.com")
    User.dangerously_unscoped.filter(pk=tenant.editor.pk).update(email="\uff25ditor@example.com")
    User.dangerously_unscoped.filter(pk=tenant.viewer.pk).update(email="EDITOR@example.com")

    migration.canonicalise(apps, None)

    emails = dict(User.dangerously_unscoped.filter(pk__in=[tenant.owner.pk, tenant.editor.pk, tenant.viewer.pk]).values_list("pk", "email"))
    assert emails == {tenant.owner.pk: "owner.a@example.com", tenant.editor.pk: "\uff25ditor@example.com", tenant.viewer.pk: "editor@example.com"}

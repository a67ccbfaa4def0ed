"""Stored e-mail addresses take their canonical form (``tenancy.models.canonical_email``), which
lookups now compare exactly. An address whose canonical form another user already has is left as
it is: that user keeps signing in, and the operator decides which of the two stays."""

import unicodedata

from django.db import migrations


def canonical(email: str) -> str:
    return unicodedata.normalize("NFKC", email.strip()).casefold()


def canonicalise(apps, schema_editor):
    User = apps.get_model("tenancy", "User")
    # What the unique constraint compares: ``Lower(email)``.
    taken = {email.lower() for email in User.dangerously_unscoped.values_list("email", flat=True)}
    for user in User.dangerously_unscoped.order_by("id").only("id", "email"):
        email = canonical(user.email)
        if email == user.email or (email != user.email.lower() and email in taken):
            continue
        User.dangerously_unscoped.filter(pk=user.pk).update(email=email)
        taken.discard(user.email.lower())
        taken.add(email)


class Migration(migrations.Migration):
    dependencies = [("tenancy", "0004_remove_account_credits")]

    operations = [migrations.RunPython(canonicalise, migrations.RunPython.noop)]

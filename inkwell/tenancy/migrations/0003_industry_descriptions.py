"""Writes the one-sentence descriptions of the default industries and industry sectors."""

from django.db import migrations

from inkwell.tenancy.defaults import load_defaults


def forwards(apps, schema_editor):
    load_defaults(
        apps.get_model("tenancy", "Plan"),
        apps.get_model("tenancy", "Role"),
        apps.get_model("tenancy", "Industry"),
        apps.get_model("tenancy", "IndustrySector"),
    )


class Migration(migrations.Migration):
    dependencies = [("tenancy", "0002_load_defaults")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]

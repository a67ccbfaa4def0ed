from django.conf import settings
from django.db import migrations

from inkwell.system.defaults import load_ai_models


def forwards(apps, schema_editor):
    load_ai_models(apps.get_model("system", "AIModel"), settings.INKWELL_AI)


class Migration(migrations.Migration):
    dependencies = [("system", "0002_ai_models")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]

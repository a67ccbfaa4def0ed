"""Publishing records keep a post's address only when it is an http(s) URL, as content does
(``writer`` migration 0005)."""

from django.db import migrations
from django.db.models import Q


def clear_other_addresses(apps, schema_editor):
    record = apps.get_model("publishing", "PublishingRecord")
    web_url = Q(external_url__istartswith="http://") | Q(external_url__istartswith="https://") | Q(external_url="")
    record._base_manager.exclude(web_url).update(external_url="")


class Migration(migrations.Migration):
    dependencies = [("publishing", "0004_delete_sitesettings")]

    operations = [migrations.RunPython(clear_other_addresses, migrations.RunPython.noop)]

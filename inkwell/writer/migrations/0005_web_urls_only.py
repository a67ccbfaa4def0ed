"""Post and media addresses a CMS answered before they were checked (``cms.base.url_on_site``)
are kept only when they are http(s) URLs: a ``javascript:`` link stored from a hostile CMS ran on
Inkwell's origin when a member clicked it. What is cleared comes back with the next sync."""

from django.db import migrations
from django.db.models import Q


def web_url(field: str) -> Q:
    return Q(**{f"{field}__istartswith": "http://"}) | Q(**{f"{field}__istartswith": "https://"}) | Q(**{field: ""})


def clear_other_addresses(apps, schema_editor):
    for name in ("Content", "Image"):
        model = apps.get_model("writer", name)
        model._base_manager.exclude(web_url("external_url")).update(external_url="")


class Migration(migrations.Migration):
    dependencies = [("writer", "0004_overlaps")]

    operations = [migrations.RunPython(clear_other_addresses, migrations.RunPython.noop)]

"""Substring search (``search=``) on PostgreSQL uses a trigram GIN index; SQLite scans instead."""

from django.db import migrations

CREATE = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE INDEX IF NOT EXISTS seed_kw_keyword_trgm_idx ON keywords_seedkeyword USING gin (keyword gin_trgm_ops)",
]
DROP = ["DROP INDEX IF EXISTS seed_kw_keyword_trgm_idx"]


def _on_postgresql(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("keywords", "0001_initial")]

    operations = [migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP))]

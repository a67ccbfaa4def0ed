"""Substring search (``search=``) on PostgreSQL uses a trigram GIN index; SQLite scans instead.

Django writes ``keyword__icontains`` as ``UPPER("keyword"::text) LIKE UPPER(%s)``, and PostgreSQL
uses an expression index only for that very expression, so the index is on ``UPPER(keyword::text)``
(an index on ``keyword`` itself would never serve a search). pg_trgm folds case when it extracts
trigrams, so this index answers case-insensitive searches.
"""

from django.db import migrations

CREATE = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE INDEX IF NOT EXISTS seed_kw_keyword_upper_trgm_idx ON keywords_seedkeyword USING gin ((UPPER(keyword::text)) gin_trgm_ops)",
]
DROP = ["DROP INDEX IF EXISTS seed_kw_keyword_upper_trgm_idx"]


def _on_postgresql(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("keywords", "0001_initial")]

    operations = [migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP))]

"""The trigram index ``search=`` can really use, on PostgreSQL; SQLite scans instead.

Django writes ``keyword__icontains`` as ``UPPER("keyword"::text) LIKE UPPER(%s)``, and PostgreSQL
uses an expression index only for the very same expression: the index on ``keyword`` itself
(0002) never served a search, which ran as a sequential scan of the whole table (about 200 ms at
a million keywords; bench/keywords_library.py). pg_trgm folds case when it extracts trigrams, so
the index on ``UPPER(keyword::text)`` holds the same trigrams and answers the same searches. The
unused index is dropped: it only slowed every write down.
"""

from django.db import migrations

CREATE = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE INDEX IF NOT EXISTS seed_kw_keyword_upper_trgm_idx ON keywords_seedkeyword USING gin ((UPPER(keyword::text)) gin_trgm_ops)",
    "DROP INDEX IF EXISTS seed_kw_keyword_trgm_idx",
]
DROP = [
    "CREATE INDEX IF NOT EXISTS seed_kw_keyword_trgm_idx ON keywords_seedkeyword USING gin (keyword gin_trgm_ops)",
    "DROP INDEX IF EXISTS seed_kw_keyword_upper_trgm_idx",
]


def _on_postgresql(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("keywords", "0002_keyword_trigram_index")]

    operations = [migrations.RunPython(_on_postgresql(CREATE), _on_postgresql(DROP))]

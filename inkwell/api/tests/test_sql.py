"""``inkwell.api.sql``: the tenancy scope as SQL, and PostgreSQL's timestamps read in C."""

import datetime

import pytest
from django.db import connection

from inkwell.api.sql import account_conditions

TIMESTAMPS = (
    "SELECT '2026-03-29 01:30:00+02'::timestamptz, '2026-11-25 11:50:51.412788+00'::timestamptz, "
    "NULL::timestamptz, '0001-01-01 00:00:00+00'::timestamptz, '9999-12-31 18:59:59.999999-05'::timestamptz"
)


def test_account_conditions_narrow_to_the_sites_given_and_to_none_for_no_site():
    assert account_conditions("k", account_id=7, site_ids=None) == (["k.account_id = %s"], [7])
    assert account_conditions("k", account_id=7, site_ids=frozenset({5, 3})) == (["k.account_id = %s", "k.site_id IN (%s, %s)"], [7, 3, 5])
    assert account_conditions("k", account_id=7, site_ids=frozenset()) == (["k.account_id = %s", "1 = 0"], [7])


@pytest.mark.django_db
def test_postgresql_timestamps_read_in_c_are_the_values_djangos_loader_gives():
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's loaders (DATABASE_URL)")
    from django.db.backends.postgresql.psycopg_any import register_tzloader

    with connection.cursor() as cursor:
        cursor.execute(TIMESTAMPS)
        in_c = cursor.fetchone()
        assert cursor.adapters.get_loader(1184, 0).__name__ == "UtcTimestamptzLoader"
    with connection.cursor() as cursor:
        register_tzloader(datetime.UTC, cursor)  # Django's own loader, on this cursor only
        cursor.execute(TIMESTAMPS)
        by_django = cursor.fetchone()
    assert in_c == by_django
    assert all(value.tzinfo is datetime.UTC for value in in_c if value is not None)

"""Plain SQL for the hot reads, where building and compiling a queryset costs more Python time per
request than the database spends on the statement (docs/architecture.md, "Plain SQL").

The pieces here know no model of their own: the keywords library, the planner's keyword list and
the console's polled fragments build their statements from them, and ``fetched_rows`` gives the
values the ORM would give (SQLite's booleans and datetimes converted as the compiler converts them).
"""

import datetime
import functools
from abc import ABC, abstractmethod
from collections.abc import Collection

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Model

# SQL's 64-bit integers: the database refuses a parameter past them.
LARGEST_SQL_INTEGER = 2**63 - 1


def icontains_condition(column: str, text: str) -> tuple[str, str]:
    """Django's own ``icontains`` of ``text`` on a text ``column``, as SQL and its parameter: on
    PostgreSQL ``UPPER(column::text) LIKE UPPER(%s)``, which a trigram index on that expression serves."""
    cast = connection.ops.lookup_cast("icontains", "CharField") % column
    return f"{cast} {connection.operators['icontains'] % '%s'}", f"%{connection.ops.prep_for_like_query(text)}%"


def quoted_table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def in_condition(column: str, count: int) -> str:
    """``column IN (%s, ...)`` with ``count`` placeholders; with none, a condition no row meets (SQL
    has no empty ``IN``)."""
    return f"{column} IN ({', '.join(['%s'] * count)})" if count else "1 = 0"


def sql_where(conditions: list[str]) -> str:
    return f"WHERE {' AND '.join(conditions)}" if conditions else ""


def sql_order_by(ordering: str, table: str) -> str:
    """``ORDER BY``'s terms for ``ordering`` (a column, a leading ``-`` for descending) on ``table``,
    with id in the same direction as the tie-breaker (stable pages)."""
    direction = "DESC" if ordering.startswith("-") else "ASC"
    return f"{table}.{ordering.lstrip('-')} {direction}, {table}.id {direction}"


# A column of a plain SQL statement: (table alias, model, field name or attname).
Column = tuple[str, type[Model], str]


@functools.lru_cache(maxsize=64)
def column_converters(columns: tuple[Column, ...], database: BaseDatabaseWrapper) -> list[tuple[int, list]]:
    """The converters the ORM would apply to each of ``columns`` on this database (SQLite's
    booleans and datetimes; none on PostgreSQL), as the compiler's ``apply_converters`` runs them.
    Found once per statement's columns and connection object (one per thread): looking them up
    cost more than a page's rows."""
    converters = []
    for index, (alias, model, name) in enumerate(columns):
        column = model._meta.get_field(name).get_col(alias)
        found = database.ops.get_db_converters(column) + column.get_db_converters(database)
        if found:
            converters.append((index, [(converter, column) for converter in found]))
    return converters


def model_columns(alias: str, model: type[Model], names: Collection[str]) -> tuple[Column, ...]:
    """The columns of ``model`` named in ``names`` (attnames), in the model's order of fields: the
    order ``loaded`` reads them in."""
    return tuple((alias, model, field.attname) for field in model._meta.concrete_fields if field.attname in names)


def loaded(columns: tuple[Column, ...], values) -> Model:
    """The model instance of ``columns`` (of ``model_columns``) with ``values``, as the ORM loads
    one: the fields not among them are deferred."""
    return columns[0][1].from_db(DEFAULT_DB_ALIAS, [name for _, _, name in columns], values)


def sql_columns(columns: tuple[Column, ...]) -> str:
    return ", ".join(f"{alias}.{model._meta.get_field(name).column}" for alias, model, name in columns)


def fetched_rows(statement: str, params: list, columns: tuple[Column, ...]) -> list[tuple | list]:
    """The rows of ``statement``, whose columns are ``columns``, with the values the ORM would give."""
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        rows = cursor.fetchall()
    database = connections[DEFAULT_DB_ALIAS]
    converters = column_converters(columns, database)
    if not converters:
        return rows
    converted = []
    for row in rows:
        row = list(row)
        for index, found in converters:
            for converter, column in found:
                row[index] = converter(row[index], column, database)
        converted.append(row)
    return converted


class PagedRows(ABC):
    """What the paginator pages through when a list is plain SQL: ``count()`` and slices of the
    list that ``filters`` describe, each one statement of the subclass (``rows``)."""

    def __init__(self, filters):
        self.filters = filters

    @abstractmethod
    def count(self) -> int: ...

    @abstractmethod
    def rows(self, offset: int, limit: int) -> list[dict]: ...

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, window: slice) -> list[dict]:
        start = window.start or 0
        return self.rows(start, window.stop - start)


def account_conditions(alias: str, *, account_id: int, site_ids: Collection[int] | None) -> tuple[list[str], list]:
    """The tenancy scope of an account's table (alias ``alias``) as SQL conditions and their
    parameters: the account's rows, narrowed to the rows of ``site_ids`` unless None (every site),
    as ``tenancy.access.restrict_to_accessible_sites`` narrows a queryset. No site is no row."""
    conditions, params = [f"{alias}.account_id = %s"], [account_id]
    if site_ids is not None:
        conditions.append(in_condition(f"{alias}.site_id", len(site_ids)))
        params += sorted(site_ids)
    return conditions, params


def account_row_conditions(alias: str, *, account_id: int, site_ids: Collection[int] | None, row_id: int) -> tuple[list[str], list] | None:
    """``account_conditions`` narrowed to the row ``row_id``; None when no row can have that id
    (past SQL's integers, which the database would refuse as a parameter)."""
    if row_id > LARGEST_SQL_INTEGER:
        return None
    conditions, params = account_conditions(alias, account_id=account_id, site_ids=site_ids)
    return [*conditions, f"{alias}.id = %s"], [*params, row_id]


def load_timestamps_in_c(sender, connection, **kwargs) -> None:
    """``connection_created``: a PostgreSQL connection in UTC reads its ``timestamptz`` values with
    psycopg's C loader. Django registers a Python subclass of psycopg's Python loader, to give the
    values the connection's time zone; in UTC the C loader gives the very same values (aware, in
    ``datetime.timezone.utc``) for about a seventh of the Python time: 0.6 against 4.2 µs a value,
    a tenth of a millisecond on a page of 20 keywords with two timestamps each."""
    if connection.vendor != "postgresql" or connection.timezone_name != "UTC":
        return
    from psycopg import adapters
    from psycopg.pq import Format

    connection.connection.adapters.register_loader("timestamptz", _utc_loader(adapters.get_loader(adapters.types["timestamptz"].oid, Format.TEXT)))


@functools.cache
def _utc_loader(c_loader: type) -> type:
    """A loader Django's ``create_cursor`` accepts as one of UTC (it reads ``timezone``), whose
    ``load`` is the C loader's: psycopg's C loaders cannot be subclassed."""
    from psycopg.types.datetime import TimestamptzLoader

    class UtcTimestamptzLoader(TimestamptzLoader):
        timezone = datetime.UTC

        def __init__(self, oid, context=None):
            super().__init__(oid, context)
            self.load = c_loader(oid, context).load

    return UtcTimestamptzLoader

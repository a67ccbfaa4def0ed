"""The library's query is validated by its FilterSets (``keywords.filters``): every message the
list and sector_stats answer, word for word as the query serializers they replaced answered them,
and what each valid spelling filters by."""

import pytest

from inkwell.api.filters import validated_filter_query
from inkwell.keywords.filters import LibraryFilter, SectorStatsFilter, library_filters
from inkwell.keywords.models import DifficultyBand
from inkwell.keywords.selectors import LibraryFilters
from inkwell.keywords.tests.conftest import LIBRARY_PATHS, STATS_PATHS, assert_error

IDS_MESSAGE = "Enter sector ids as comma-separated whole numbers, for example 3,7,12"
INTEGER_MESSAGE = "A valid integer is required."
BOOLEAN_MESSAGE = "Must be a valid boolean."
DIFFICULTY_MESSAGE = "Invalid difficulty: use easy, medium, hard or very_hard"
ORDERING_MESSAGE = "Invalid ordering: use keyword, volume, difficulty or country, with a leading - for descending"

LIBRARY_MESSAGES = [
    ({"sector_ids": "1,x"}, {"sector_ids": [IDS_MESSAGE]}),
    ({"sector_ids": "0"}, {"sector_ids": [IDS_MESSAGE]}),
    ({"sector_ids": ",".join(map(str, range(1, 502)))}, {"sector_ids": ["At most 500 sector ids"]}),
    ({"site_sector_id": "abc"}, {"site_sector_id": [INTEGER_MESSAGE]}),
    ({"site_sector_id": ""}, {"site_sector_id": [INTEGER_MESSAGE]}),
    ({"site_sector_id": "0"}, {"site_sector_id": ["Ensure this value is greater than or equal to 1."]}),
    ({"site_sector_id": str(2**63)}, {"site_sector_id": ["Ensure this value is less than or equal to 9223372036854775807."]}),
    ({"site_sector_id": "1" * 1001}, {"site_sector_id": ["String value too large."]}),
    ({"search": "x" * 101}, {"search": ["Ensure this field has no more than 100 characters."]}),
    ({"country": "USA"}, {"country": ["Ensure this field has no more than 2 characters."]}),
    ({"country": "U1"}, {"country": ["Enter a two-letter country code such as US"]}),
    ({"volume_min": "abc"}, {"volume_min": [INTEGER_MESSAGE]}),
    ({"volume_min": "1.5"}, {"volume_min": [INTEGER_MESSAGE]}),
    ({"volume_min": ""}, {"volume_min": [INTEGER_MESSAGE]}),
    ({"volume_min": "-1"}, {"volume_min": ["Ensure this value is greater than or equal to 0."]}),
    ({"volume_max": str(2**31)}, {"volume_max": ["Ensure this value is less than or equal to 2147483647."]}),
    ({"volume_min": "500", "volume_max": "100"}, {"volume_max": ["volume_max must be greater than or equal to volume_min"]}),
    ({"difficulty": "impossible"}, {"difficulty": [DIFFICULTY_MESSAGE]}),
    ({"difficulty": ""}, {"difficulty": [DIFFICULTY_MESSAGE]}),
    ({"is_paid": "maybe"}, {"is_paid": [BOOLEAN_MESSAGE]}),
    ({"is_high_opportunity": "2"}, {"is_high_opportunity": [BOOLEAN_MESSAGE]}),
    ({"ordering": "bogus"}, {"ordering": [ORDERING_MESSAGE]}),
    ({"ordering": ""}, {"ordering": [ORDERING_MESSAGE]}),
    # The volume range is compared only when every field is valid, so an invalid field is the only error.
    ({"volume_min": "500", "volume_max": "100", "difficulty": "x"}, {"difficulty": [DIFFICULTY_MESSAGE]}),
    ({"volume_min": "abc", "difficulty": "impossible", "country": "USA"}, {
        "country": ["Ensure this field has no more than 2 characters."],
        "volume_min": [INTEGER_MESSAGE],
        "difficulty": [DIFFICULTY_MESSAGE],
    }),
]


@pytest.mark.parametrize("path", LIBRARY_PATHS)
@pytest.mark.parametrize(("params", "errors"), LIBRARY_MESSAGES, ids=[",".join(params)[:40] for params, _ in LIBRARY_MESSAGES])
def test_each_invalid_library_query_answers_the_same_words_as_before(db, http, path, params, errors):
    assert assert_error(http.get(path, params), 400, "validation_error")["errors"] == errors


STATS_MESSAGES = [
    ({"sector_ids": "1,x"}, {"sector_ids": [IDS_MESSAGE]}),
    ({"site_id": "abc"}, {"site_id": [INTEGER_MESSAGE]}),
    ({"site_id": "-4"}, {"site_id": ["Ensure this value is greater than or equal to 1."]}),
    ({"site_sector_id": ""}, {"site_sector_id": [INTEGER_MESSAGE]}),
]


@pytest.mark.parametrize("path", STATS_PATHS)
@pytest.mark.parametrize(("params", "errors"), STATS_MESSAGES, ids=[",".join(params) for params, _ in STATS_MESSAGES])
def test_each_invalid_sector_stats_query_answers_the_same_words_as_before(db, http, path, params, errors):
    assert assert_error(http.get(path, params), 400, "validation_error")["errors"] == errors


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({}, LibraryFilters()),
        ({"sector_ids": "", "search": "", "country": "", "is_paid": "", "is_high_opportunity": "null"}, LibraryFilters()),
        ({"sector_ids": " , "}, LibraryFilters()),
        ({"sector_ids": "3, 1,3"}, LibraryFilters(sector_ids=(1, 3))),
        ({"search": "  garden "}, LibraryFilters(search="garden")),
        ({"country": " us "}, LibraryFilters(country="US")),
        ({"volume_min": "2.0", "volume_max": " 7 "}, LibraryFilters(volume_min=2, volume_max=7)),
        ({"difficulty": "very_hard"}, LibraryFilters(difficulty=DifficultyBand.VERY_HARD)),
        ({"is_paid": "TRUE", "is_high_opportunity": "Off"}, LibraryFilters(is_paid=True, is_high_opportunity=False)),
        ({"is_paid": "NULL", "is_high_opportunity": "yes"}, LibraryFilters(is_high_opportunity=True)),
        ({"ordering": "-country"}, LibraryFilters(ordering="-country")),
    ],
)
def test_a_valid_library_query_becomes_the_selectors_filters(params, expected):
    assert library_filters(validated_filter_query(LibraryFilter, params)) == expected


def test_sector_stats_query_leaves_absent_parameters_none():
    assert validated_filter_query(SectorStatsFilter, {"sector_ids": "2,1"}) == {"sector_ids": (1, 2), "site_id": None, "site_sector_id": None}

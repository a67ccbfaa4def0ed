"""The planner lists' FilterSets (``inkwell.planner.filters``): their rules on their own, and the
words the lists answer a bad parameter with, which are those of the query serializers they replaced."""

import pytest
from django.http import QueryDict

from inkwell.api.tests import assert_error
from inkwell.planner.filters import ClusterFilter, IdeaFilter, KeywordFilter
from inkwell.planner.models import Cluster, ContentIdea, Keyword
from inkwell.planner.tests.conftest import PLANNER
from inkwell.planner.tests.factories import make_keyword

KEYWORDS = f"{PLANNER}/keywords/"
KEYWORD_ORDERING = "Invalid ordering: use keyword, volume, difficulty or created_at, with a leading - for descending"


def keyword_filter(query: str) -> KeywordFilter:
    return KeywordFilter(QueryDict(query), queryset=Keyword.objects.all())


def errors_of(filterset) -> dict:
    assert not filterset.is_valid()
    return {name: list(messages) for name, messages in filterset.errors.items()}


# The range rule


@pytest.mark.parametrize(
    ("query", "errors"),
    [
        ("volume_min=10&volume_max=5", {"volume_max": ["volume_max must be greater than or equal to volume_min"]}),
        ("difficulty_min=60&difficulty_max=50", {"difficulty_max": ["difficulty_max must be greater than or equal to difficulty_min"]}),
        # Both ranges broken: the first is the one reported.
        ("difficulty_min=60&difficulty_max=50&volume_min=10&volume_max=5", {"difficulty_max": ["difficulty_max must be greater than or equal to difficulty_min"]}),
    ],
)
def test_a_range_whose_lower_bound_passes_the_upper_is_refused_on_the_upper(query, errors):
    assert errors_of(keyword_filter(query)) == errors


def test_a_range_is_checked_only_once_every_value_is_valid():
    assert errors_of(keyword_filter("difficulty_min=easy&volume_min=10&volume_max=5")) == {"difficulty_min": ["A valid integer is required."]}


@pytest.mark.parametrize("query", ["volume_min=5&volume_max=5", "difficulty_min=0&difficulty_max=100", "volume_max=5", "difficulty_min=30"])
def test_an_equal_or_half_open_range_is_valid(query):
    assert keyword_filter(query).is_valid()


# The ordering's tie-breaker


@pytest.mark.parametrize(
    ("filterset_class", "model", "ordering", "order_by"),
    [
        (KeywordFilter, Keyword, "volume", ("volume", "id")),
        (KeywordFilter, Keyword, "-volume", ("-volume", "-id")),
        (ClusterFilter, Cluster, "-name", ("-name", "-id")),
        (IdeaFilter, ContentIdea, "title", ("title", "id")),
    ],
)
def test_an_ordering_breaks_ties_by_id_in_its_own_direction(filterset_class, model, ordering, order_by):
    filterset = filterset_class(QueryDict(f"ordering={ordering}"), queryset=model.objects.all())
    assert filterset.is_valid()
    assert filterset.qs.query.order_by == order_by


def test_without_an_ordering_a_list_keeps_the_models_order_newest_first():
    filterset = keyword_filter("site_id=1")
    assert filterset.is_valid()
    assert filterset.qs.query.order_by == ()
    assert Keyword._meta.ordering[0] == "-created_at"


# One FilterSet serves many requests: nothing of one reaches the next.


def test_filtersets_of_one_class_share_their_form_class_but_not_their_filters():
    first, second = keyword_filter("status=paused"), keyword_filter("ordering=bogus")

    assert type(first.form) is type(second.form)
    assert first.filters["ordering"] is not second.filters["ordering"]
    assert first.filters["ordering"].parent is first and second.filters["ordering"].parent is second
    assert first.is_valid() and not second.is_valid()
    assert errors_of(second) == {"ordering": [KEYWORD_ORDERING]}


# The words of the API's lists, as the query serializers answered them


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("params", "errors"),
    [
        ({"site_id": "abc"}, {"site_id": ["A valid integer is required."]}),
        ({"site_id": ""}, {"site_id": ["A valid integer is required."]}),
        ({"site_id": "0"}, {"site_id": ["Ensure this value is greater than or equal to 1."]}),
        ({"cluster_id": "9223372036854775808"}, {"cluster_id": ["Ensure this value is less than or equal to 9223372036854775807."]}),
        ({"sector_id": "1" * 1001}, {"sector_id": ["String value too large."]}),
        ({"status": "deleted"}, {"status": ["Invalid status value"]}),
        ({"status": ""}, {"status": ["Invalid status value"]}),
        ({"difficulty_min": "101"}, {"difficulty_min": ["Ensure this value is less than or equal to 100."]}),
        ({"volume_max": "-1"}, {"volume_max": ["Ensure this value is greater than or equal to 0."]}),
        ({"volume_min": "10", "volume_max": "5"}, {"volume_max": ["volume_max must be greater than or equal to volume_min"]}),
        ({"search": "x" * 101}, {"search": ["Ensure this field has no more than 100 characters."]}),
        ({"ordering": "site"}, {"ordering": [KEYWORD_ORDERING]}),
        ({"ordering": ""}, {"ordering": [KEYWORD_ORDERING]}),
        ({"status": "gone", "ordering": "site"}, {"status": ["Invalid status value"], "ordering": [KEYWORD_ORDERING]}),
    ],
)
def test_the_keyword_list_answers_bad_parameters_in_the_query_serializers_words(planner, owner, params, errors):
    assert_error(owner.get(KEYWORDS, params), 400, "validation_error", errors=errors)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("clusters/", "Invalid ordering: use name, keyword_count, total_volume or created_at, with a leading - for descending"),
        ("ideas/", "Invalid ordering: use title or created_at, with a leading - for descending"),
    ],
)
def test_the_cluster_and_idea_lists_name_their_own_orderings(planner, owner, path, message):
    assert_error(owner.get(f"{PLANNER}/{path}", {"ordering": "volume"}), 400, "validation_error", errors={"ordering": [message]})


@pytest.mark.django_db
def test_an_empty_search_is_no_filter(planner, owner):
    keyword = make_keyword(planner.tenant)
    response = owner.get(KEYWORDS, {"search": "  "})
    assert response.status_code == 200, response.content
    assert [row["id"] for row in response.json()["results"]] == [keyword.pk]


@pytest.mark.django_db
def test_a_keyword_is_addressed_by_its_id_whatever_the_list_filters_say(planner, owner):
    keyword = make_keyword(planner.tenant, status="active")
    response = owner.get(f"{KEYWORDS}{keyword.pk}/", {"status": "paused", "ordering": "bogus"})
    assert response.status_code == 200, response.content
    assert response.json()["data"]["id"] == keyword.pk

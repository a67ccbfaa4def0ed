"""Concurrent saves on PostgreSQL: the content's row lock serialises updates, so of many saves made
from the same version exactly one applies and every other is a 409 concurrent_modification."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from inkwell.api.exceptions import Conflict
from inkwell.writer import services
from inkwell.writer.models import Content, ContentRevision
from inkwell.writer.tests.factories import make_content

pytestmark = [pytest.mark.postgres_only, pytest.mark.django_db(transaction=True)]

RACERS = 8


def test_of_eight_concurrent_saves_from_one_version_exactly_one_applies_and_none_is_lost_silently(tenant):
    content = make_content(tenant, title="Original")
    start = threading.Barrier(RACERS)

    def save(number):
        start.wait()
        try:
            return services.content_update(account=tenant.account, content=content, user=tenant.owner, title=f"Title {number}", version=1)
        except Conflict as refusal:
            return refusal
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=RACERS) as pool:
        outcomes = list(pool.map(save, range(RACERS)))

    applied = [outcome for outcome in outcomes if isinstance(outcome, Content)]
    refused = [outcome for outcome in outcomes if isinstance(outcome, Conflict)]
    assert len(applied) == 1 and len(refused) == RACERS - 1
    assert all(refusal.code == services.CONCURRENT_MODIFICATION_CODE for refusal in refused)
    current = Content.objects.for_account(tenant.account).get(pk=content.pk)
    assert (current.title, current.version) == (applied[0].title, 2)
    assert list(ContentRevision.objects.for_account(tenant.account).filter(content=content).values_list("title", flat=True)) == ["Original"]

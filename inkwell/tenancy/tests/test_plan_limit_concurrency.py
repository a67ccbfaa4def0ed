"""Plan limits hold under concurrent requests (PostgreSQL: real row locks, real parallel transactions)."""

import threading

import pytest
from django.db import connection

from inkwell.api.exceptions import PlanLimitReached
from inkwell.tenancy import services
from inkwell.tenancy.models import Plan, Site


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_site_creations_never_pass_the_plan_limit(make_tenant):
    tenant = make_tenant("race")
    starter = Plan.objects.get(slug="starter")  # max_sites 3; the tenant already has one site
    tenant.account.subscription.plan = starter
    tenant.account.subscription.save()
    barrier = threading.Barrier(8)
    outcomes: list[str] = []

    def create(index: int) -> None:
        try:
            barrier.wait()
            services.site_create(account=tenant.account, name=f"Race {index}", domain=f"race{index}.example.com")
            outcomes.append("created")
        except PlanLimitReached:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=create, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["created"] * 2 + ["refused"] * 6
    assert Site.objects.for_account(tenant.account).count() == starter.max_sites

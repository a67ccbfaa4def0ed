"""POST /optimizer/analyze/: the report of a stored article, what it reads from the site, roles and tenancy."""

import pytest

from inkwell.api.tests import assert_error
from inkwell.billing.tests.ledger import balance_of
from inkwell.integration.models import SiteIntegration
from inkwell.optimizer.tests.articles import INTERNAL, body, fields
from inkwell.system.services import modules_save
from inkwell.writer.models import Content, ContentRevision, ImageStatus
from inkwell.writer.tests.factories import make_task
from inkwell.writer.tests.image_factories import make_image

pytestmark = pytest.mark.django_db

ANALYZE = "/api/v1/optimizer/analyze/"


def article(tenant, *, site=None, **overrides) -> Content:
    """The known article of ``articles``, its second internal link on the tenant's own domain."""
    site = site or tenant.site
    html = body(internal=f'{INTERNAL} and <a href="https://www.{site.domain}/care/">shoe care</a>')
    return Content.objects.create(account=tenant.account, site=site, **{**fields(html=html), **overrides})


def analyze(client, content):
    return client.post(ANALYZE, {"content_id": content.pk}, format="json")


def test_analyze_answers_the_score_metrics_and_suggestions(tenant, as_user):
    content = article(tenant, task=make_task(tenant, word_count=300))

    response = analyze(as_user(tenant.owner), content)

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert (data["content_id"], data["score"], data["suggestions"]) == (content.pk, 100, [])
    assert data["metrics"]["word_count"] == 308
    assert (data["metrics"]["internal_links"], data["metrics"]["external_links"]) == (2, 1)
    assert response["X-RateLimit-Limit"] == "100"


def test_the_answer_has_one_score_and_its_text_part_is_named_apart(tenant, as_user):
    content = article(tenant, task=make_task(tenant, word_count=616))

    data = analyze(as_user(tenant.owner), content).json()["data"]

    scores = [name for name in (*data, *data["metrics"]) if "score" in name]
    assert scores == ["score", "text_analysis_score"]
    assert data["score"] == 96 and data["metrics"]["text_analysis_score"] == 100


def test_the_target_is_the_tasks_word_count_else_the_accounts_default_length(tenant, as_user):
    client = as_user(tenant.owner)
    with_task = article(tenant, task=make_task(tenant, word_count=616))
    without_task = article(tenant)

    assert analyze(client, with_task).json()["data"]["score"] == 96
    data = analyze(client, without_task).json()["data"]
    # The default article length is 1500: 308 / 1500 of 8 points / 0.9 = 1.83.
    assert (data["metrics"]["target_word_count"], data["score"]) == (1500, 93)


def test_links_to_the_sites_cms_host_are_internal(tenant, as_user):
    SiteIntegration.objects.create(account=tenant.account, site=tenant.site, base_url="https://www.cms.example.net/wp", username="editor", app_password="x", webhook_secret="y")
    content = article(tenant, html=body(internal=f'{INTERNAL} and <a href="https://cms.example.net/care/">shoe care</a>'))

    metrics = analyze(as_user(tenant.owner), content).json()["data"]["metrics"]

    assert (metrics["internal_links"], metrics["external_links"]) == (2, 1)


def test_generated_images_of_the_content_count_with_their_alt_text(tenant, as_user):
    content = article(tenant, html=body(images=""))
    make_image(tenant, content=content, status=ImageStatus.GENERATED, alt_text="A runner on a ridge")
    make_image(tenant, content=content, status=ImageStatus.GENERATED, alt_text="")
    make_image(tenant, content=content, status=ImageStatus.FAILED, alt_text="")

    metrics = analyze(as_user(tenant.owner), content).json()["data"]["metrics"]

    assert (metrics["images"], metrics["images_without_alt"]) == (2, 1)


def test_analysis_changes_nothing_and_costs_nothing(tenant, as_user):
    content = article(tenant)
    balance = balance_of(tenant.account)

    analyze(as_user(tenant.owner), content)

    assert balance_of(tenant.account) == balance
    assert not ContentRevision.objects.for_account(tenant.account).exists()


def test_every_role_may_analyze_content_of_its_sites(granted, second_site, as_user):
    own, elsewhere = article(granted), article(granted, site=second_site)

    for role in ("owner", "admin", "editor", "viewer"):
        assert analyze(as_user(granted.user(role)), own).status_code == 200, role
    for role in ("editor", "viewer"):
        assert_error(analyze(as_user(granted.user(role)), elsewhere), 403, "permission_denied")


def test_another_accounts_content_is_refused(tenant, other_tenant, as_user):
    theirs = article(other_tenant)

    assert_error(analyze(as_user(tenant.owner), theirs), 400, "validation_error", errors={"content_id": ["Content must belong to your account"]})
    assert_error(as_user(tenant.owner).post(ANALYZE, {}, format="json"), 400, "validation_error", errors={"content_id": ["This field is required"]})


def test_a_switched_off_optimizer_module_refuses(tenant, as_user):
    modules_save(account=tenant.account, modules={"optimizer": False})

    assert_error(analyze(as_user(tenant.owner), article(tenant)), 403, "module_disabled")

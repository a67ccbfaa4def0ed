"""A site's AI model choice (its unified settings' ``ai_settings``) overrides the account's for every
job that calls a provider (issue 30, case 9: the choice was saved but no job passed the site, so it
was never used). Each job kind runs for real through its endpoint against the OpenAI-compatible
test server, which records the model every request named."""

import pytest

from inkwell.ai.tests.openai_server import TEST_API_KEY
from inkwell.billing.services import grant
from inkwell.jobs.models import Job
from inkwell.planner.tests.factories import make_cluster, make_keyword
from inkwell.sitesettings.services import unified_settings_update
from inkwell.system.models import AIModel
from inkwell.writer.tests.factories import make_content, make_live_content, make_refresh, make_task

pytestmark = pytest.mark.django_db

SITE_TEXT_MODEL = "site-chosen-text-model"
SITE_IMAGE_MODEL = "site-chosen-image-model"
ACCOUNT_TEXT_MODELS = {"gpt-4o", "gpt-4o-mini"}


@pytest.fixture
def site_models(tenant, openai_server, settings, media_root):
    """The account on the test server for text and images, with the deployment's models; the site
    chooses models of its own for live, testing and images."""
    settings.INKWELL_AI = {
        **settings.INKWELL_AI,
        "PROVIDER": "openai", "BASE_URL": openai_server.base_url, "API_KEY": TEST_API_KEY,
        "IMAGE_PROVIDER": "openai", "IMAGE_BASE_URL": openai_server.base_url, "IMAGE_API_KEY": TEST_API_KEY,
    }
    openai_server.models.extend([SITE_TEXT_MODEL, SITE_IMAGE_MODEL])  # the endpoint serves them (else 404)
    text = AIModel.objects.create(kind="text", provider="openai", name=SITE_TEXT_MODEL)
    image = AIModel.objects.create(kind="image", provider="openai", name=SITE_IMAGE_MODEL)
    unified_settings_update(site=tenant.site, changes={"ai_settings": {"live_model_id": text, "testing_model_id": text, "image_model_id": image}})
    grant(account=tenant.account, amount=1000, description="test funds")
    return openai_server


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def models_asked(server, endpoint: str) -> set[str]:
    return {request.body["model"] for request in server.requests_to(endpoint)}


def post(tenant, client, eager_jobs, path: str, body: dict, *, must_succeed: bool = True) -> Job:
    """Starts the job through its endpoint and runs it to its end; it must succeed unless told."""
    with eager_jobs():
        response = client.post(path, body, format="json")
    assert response.status_code == 202, response.content
    job = Job.objects.for_account(tenant.account).get(pk=response.json()["data"]["job_id"])
    if must_succeed:
        assert job.status == "succeeded", job.error
    return job


def test_clustering_uses_the_sites_model(tenant, as_user, eager_jobs, site_models):
    ids = [make_keyword(tenant, keyword=text).pk for text in ("tomato seeds", "rose pruning")]

    post(tenant, as_user(tenant.owner), eager_jobs, "/api/v1/planner/clusters/auto_cluster/", {"site_id": tenant.site.pk, "keyword_ids": ids})

    assert models_asked(site_models, "chat") == {SITE_TEXT_MODEL}


def test_ideas_use_the_sites_model(tenant, as_user, eager_jobs, site_models):
    cluster = make_cluster(tenant, name="Tomatoes")
    make_keyword(tenant, keyword="tomato seeds", cluster=cluster)

    post(tenant, as_user(tenant.owner), eager_jobs, "/api/v1/planner/clusters/generate_ideas/", {"cluster_ids": [cluster.pk]})

    assert models_asked(site_models, "chat") == {SITE_TEXT_MODEL}


def test_content_uses_the_sites_model(tenant, as_user, eager_jobs, site_models):
    task = make_task(tenant, title="Growing tomatoes", word_count=300)

    post(tenant, as_user(tenant.owner), eager_jobs, f"/api/v1/writer/tasks/{task.pk}/generate_content/", {})

    assert models_asked(site_models, "chat") == {SITE_TEXT_MODEL}


def test_image_prompts_and_images_use_the_sites_models(tenant, as_user, eager_jobs, site_models):
    content = make_content(tenant, title="Growing tomatoes", html="<h2>Seeds</h2><p>Pick a variety that suits your climate.</p>")

    post(tenant, as_user(tenant.owner), eager_jobs, "/api/v1/writer/images/generate_for_content/", {"content_id": content.pk, "count": 1})

    assert models_asked(site_models, "chat") == {SITE_TEXT_MODEL}
    assert models_asked(site_models, "images") == {SITE_IMAGE_MODEL}


def test_optimize_uses_the_sites_model(tenant, as_user, eager_jobs, site_models):
    content = make_content(tenant, title="Growing tomatoes", html="<h2>Seeds</h2><p>Pick a variety that suits your climate.</p>")

    # The test server's stock answer is no optimization of this article (the job then fails on its
    # format, costing nothing); what is checked here is the model the request named. The optimizer's
    # own tests script real answers.
    job = post(tenant, as_user(tenant.owner), eager_jobs, "/api/v1/optimizer/optimize/", {"content_id": content.pk}, must_succeed=False)

    assert job.status in ("succeeded", "failed")

    assert models_asked(site_models, "chat") == {SITE_TEXT_MODEL}


def test_a_refresh_written_with_ai_uses_the_sites_model(tenant, as_user, eager_jobs, site_models):
    article = make_live_content(tenant, title="Growing tomatoes", html="<h2>Seeds</h2><p>Pick a variety that suits your climate.</p>")
    refresh = make_refresh(tenant, content=article, reason="Decaying: clicks fell by half")

    # As for optimize, the stock answer may not be a usable article; the model asked is the subject.
    job = post(tenant, as_user(tenant.owner), eager_jobs, "/api/v1/optimizer/refresh_with_ai/", {"refresh_id": refresh.pk}, must_succeed=False)

    assert job.status in ("succeeded", "failed")
    assert models_asked(site_models, "chat") == {SITE_TEXT_MODEL}

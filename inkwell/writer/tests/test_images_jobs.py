"""The image jobs run through the real runner (``eager_jobs``): prompts, images, files in the
storage, credits and notifications, and what a failure leaves behind (nothing half-made)."""

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from PIL import Image as PILImage

from inkwell.ai.tests.openai_server import TEST_API_KEY, Behaviour
from inkwell.billing.models import CreditReservation, CreditUsage, ReservationStatus
from inkwell.billing.tests.ledger import assert_ledger_consistent, balance_of
from inkwell.jobs.models import Job
from inkwell.notifications.models import Notification
from inkwell.system import services as system
from inkwell.writer.image_views import media_urlpatterns
from inkwell.writer.models import Image, ImageType
from inkwell.writer.tests.image_factories import make_content

pytestmark = pytest.mark.django_db

IMAGES = "/api/v1/writer/images/"
GENERATE = f"{IMAGES}generate_for_content/"
REGENERATE = f"{IMAGES}regenerate/"


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path) -> Path:
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def content(tenant):
    return make_content(tenant)


def image_settings(tenant, **values) -> None:
    system.integration_settings_save(account=tenant.account, integration_type="image_generation", user=tenant.owner, values=values)


def files_under(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*") if path.is_file()) if root.exists() else []


def notifications(tenant) -> list[tuple[str, dict]]:
    return list(Notification.objects.for_account(tenant.account).order_by("id").values_list("notification_type", "metadata"))


def run(eager_jobs, tenant, client, url: str, body: dict) -> Job:
    """Starts a job through the API; it has run when this returns."""
    with eager_jobs():
        response = client.post(url, body, format="json")
    assert response.status_code == 202, response.content
    return Job.objects.for_account(tenant.account).get(pk=response.json()["data"]["job_id"])


def test_generated_images_are_pngs_of_the_requested_size_stored_under_media_root(tenant, as_user, eager_jobs, content, media_root):
    image_settings(tenant, size="512x512")
    start = balance_of(tenant.account)

    job = run(eager_jobs, tenant, as_user(tenant.owner), GENERATE, {"content_id": content.pk, "count": 3})

    assert job.status == "succeeded", job.error
    images = list(Image.objects.for_account(tenant.account).filter(content=content))
    assert [(image.image_type, image.status) for image in images] == [
        ("featured", "generated"),
        ("in_article", "generated"),
        ("in_article", "generated"),
    ]
    # The credits reported are the credits charged: the prompt step's 1 and the images' 6.
    assert job.result == {"content_id": content.pk, "image_ids": [image.pk for image in images], "count": 3, "credits_used": 7}
    for image in images:
        assert image.prompt and image.alt_text
        path = media_root / image.file.name
        assert path.parent == media_root / "images" / str(tenant.account.pk) / str(tenant.site.pk)
        with PILImage.open(path) as picture:
            assert (picture.format, picture.size) == ("PNG", (512, 512))
        assert (image.width, image.height, image.mime_type) == (512, 512, "image/png")
    assert files_under(media_root) == sorted(media_root / image.file.name for image in images)
    # Prompts (1) are charged when written, the images (2 each) when saved.
    assert balance_of(tenant.account) == start - 1 - 3 * 2
    assert dict(CreditUsage.objects.for_account(tenant.account).filter(job_id=job.pk).values_list("operation_type", "credits_used")) == {
        "image_prompt_extraction": 1,
        "image_generation": 6,
    }
    assert notifications(tenant) == [
        ("ai_prompts_complete", {"count": 3, "credits": 1, "content_id": content.pk}),
        ("ai_images_complete", {"count": 3, "credits": 6, "content_id": content.pk}),
    ]
    assert_ledger_consistent(tenant.account)


def test_the_list_gives_absolute_urls_that_serve_the_png_bytes(tenant, as_user, eager_jobs, content, media_root):
    client = as_user(tenant.owner)
    run(eager_jobs, tenant, client, GENERATE, {"content_id": content.pk, "count": 1})

    row = client.get(IMAGES, {"content_id": content.pk}).json()["results"][0]
    image = Image.objects.for_account(tenant.account).get(pk=row["id"])
    assert row["url"] == f"http://testserver/media/{image.file.name}"
    assert (row["width"], row["height"], row["mime_type"], row["status"]) == (1024, 1024, "image/png", "generated")

    response = client.get(urlsplit(row["url"]).path)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert b"".join(response.streaming_content) == (media_root / image.file.name).read_bytes()


def test_media_outside_the_storage_is_not_served(api_client, media_root):
    (media_root.parent / "secret.txt").write_text("not media")
    media_root.mkdir(parents=True, exist_ok=True)
    (media_root / "inside.txt").write_text("media")

    assert api_client.get("/media/inside.txt").status_code == 200
    assert api_client.get("/media/../secret.txt").status_code == 404
    assert api_client.get("/media/images/").status_code == 404


def test_media_are_served_by_the_app_at_the_path_of_media_url_unless_serve_media_is_off(settings):
    assert [(pattern.name, pattern.pattern.regex.pattern) for pattern in media_urlpatterns()] == [("media", r"^media/(?P<path>.+)$")]
    settings.MEDIA_URL = "https://api.example.com/files/"
    assert [pattern.pattern.regex.pattern for pattern in media_urlpatterns()] == [r"^files/(?P<path>.+)$"]
    settings.SERVE_MEDIA = False
    assert media_urlpatterns() == []


def test_an_absolute_media_url_gives_the_api_that_url(tenant, as_user, eager_jobs, content, settings):
    settings.MEDIA_URL = "https://cdn.example.com/media/"
    client = as_user(tenant.owner)
    run(eager_jobs, tenant, client, GENERATE, {"content_id": content.pk, "count": 1})

    image = Image.objects.for_account(tenant.account).get()
    assert client.get(f"{IMAGES}{image.pk}/").json()["data"]["url"] == f"https://cdn.example.com/media/{image.file.name}"


def test_a_new_featured_image_demotes_the_earlier_one(tenant, as_user, eager_jobs, content):
    client = as_user(tenant.owner)
    run(eager_jobs, tenant, client, GENERATE, {"content_id": content.pk, "count": 2})
    first_featured = Image.objects.for_account(tenant.account).get(image_type=ImageType.FEATURED)

    job = run(eager_jobs, tenant, client, GENERATE, {"content_id": content.pk, "image_type": "featured"})

    featured = Image.objects.for_account(tenant.account).get(image_type=ImageType.FEATURED)
    assert featured.pk == job.result["image_ids"][0] != first_featured.pk
    assert Image.objects.for_account(tenant.account).get(pk=first_featured.pk).image_type == ImageType.IN_ARTICLE
    assert Image.objects.for_account(tenant.account).count() == 3


def test_a_failure_midway_deletes_the_files_written_fails_the_images_and_charges_only_the_prompts(
    tenant, as_user, eager_jobs, content, media_root, openai_server, settings
):
    image_settings(tenant, provider="openai", base_url=openai_server.base_url, api_key=TEST_API_KEY, size="256x256")
    # The first attempt gets its first image, then every attempt a 500 for the second (a transient
    # error, retried while attempts remain): the first image is kept as it arrives, never charged.
    openai_server.script("images", [Behaviour.ok()] + [Behaviour.status(500)] * settings.INKWELL_JOBS["MAX_ATTEMPTS"])
    start = balance_of(tenant.account)

    job = run(eager_jobs, tenant, as_user(tenant.owner), GENERATE, {"content_id": content.pk, "count": 2})

    assert job.status == "failed"
    assert job.error == {"code": "provider_error", "message": "The AI provider returned an error (HTTP 500)"}
    assert job.attempts == settings.INKWELL_JOBS["MAX_ATTEMPTS"]
    images = list(Image.objects.for_account(tenant.account))
    # The prompts were written once and kept, so regenerate can retry each image.
    assert [(image.status, bool(image.prompt), image.file.name) for image in images] == [("failed", True, ""), ("failed", True, "")]
    assert files_under(media_root) == []
    assert balance_of(tenant.account) == start - 1
    assert not CreditReservation.objects.for_account(tenant.account).filter(status=ReservationStatus.HELD).exists()
    assert [kind for kind, _ in notifications(tenant)] == ["ai_prompts_complete", "ai_images_failed"]
    assert_ledger_consistent(tenant.account)


def test_a_retried_attempt_reuses_the_prompts_and_the_images_the_first_attempt_kept_and_makes_only_the_missing_one(
    tenant, as_user, eager_jobs, content, media_root, openai_server
):
    image_settings(tenant, provider="openai", base_url=openai_server.base_url, api_key=TEST_API_KEY, size="256x256")
    openai_server.script("images", [Behaviour.ok(), Behaviour.status(503)])
    start = balance_of(tenant.account)

    job = run(eager_jobs, tenant, as_user(tenant.owner), GENERATE, {"content_id": content.pk, "count": 2})

    assert (job.status, job.attempts) == ("succeeded", 2)
    images = list(Image.objects.for_account(tenant.account))
    assert [image.status for image in images] == ["generated", "generated"]
    assert files_under(media_root) == sorted(media_root / image.file.name for image in images)
    for image in images:
        with PILImage.open(media_root / image.file.name) as picture:
            assert picture.size == (256, 256)
    # The first image once, the second twice (its 503 and its retry): the provider is paid once for each.
    assert len(openai_server.requests_to("images")) == 3
    assert balance_of(tenant.account) == start - 1 - 2 * 2
    assert [kind for kind, _ in notifications(tenant)] == ["ai_prompts_complete", "ai_images_complete"]
    assert_ledger_consistent(tenant.account)


def test_a_failed_prompt_extraction_leaves_no_images_and_costs_nothing(tenant, as_user, eager_jobs, content, media_root, openai_server):
    system.integration_settings_save(
        account=tenant.account,
        integration_type="ai_provider",
        user=tenant.owner,
        values={"provider": "openai", "base_url": openai_server.base_url, "api_key": TEST_API_KEY},
    )
    openai_server.script("chat", [Behaviour.status(401)])
    start = balance_of(tenant.account)

    job = run(eager_jobs, tenant, as_user(tenant.owner), GENERATE, {"content_id": content.pk, "count": 2})

    assert (job.status, job.error["code"]) == ("failed", "provider_auth_failed")
    assert not Image.objects.for_account(tenant.account).exists()
    assert files_under(media_root) == []
    assert balance_of(tenant.account) == start
    assert notifications(tenant) == [
        ("ai_prompts_failed", {"count": 2, "credits": 0, "content_id": content.pk}),
        ("ai_images_failed", {"count": 2, "credits": 0, "content_id": content.pk}),
    ]
    assert_ledger_consistent(tenant.account)


def test_regenerate_replaces_the_file_and_prompt_and_deletes_the_old_file(tenant, as_user, eager_jobs, content, media_root):
    client = as_user(tenant.owner)
    run(eager_jobs, tenant, client, GENERATE, {"content_id": content.pk, "count": 1})
    image = Image.objects.for_account(tenant.account).get()
    old_file = media_root / image.file.name
    start = balance_of(tenant.account)

    job = run(eager_jobs, tenant, client, REGENERATE, {"image_id": image.pk, "prompt": "Ripe tomatoes at dusk"})

    assert job.status == "succeeded", job.error
    image.refresh_from_db()
    assert (image.prompt, image.status) == ("Ripe tomatoes at dusk", "generated")
    assert not old_file.exists()
    assert files_under(media_root) == [media_root / image.file.name]
    assert balance_of(tenant.account) == start - 2
    assert notifications(tenant)[-1] == ("ai_images_complete", {"count": 1, "credits": 2, "content_id": content.pk})


def test_a_failed_regeneration_keeps_the_image_and_its_file(tenant, as_user, eager_jobs, content, media_root, openai_server):
    client = as_user(tenant.owner)
    run(eager_jobs, tenant, client, GENERATE, {"content_id": content.pk, "count": 1})
    image = Image.objects.for_account(tenant.account).get()
    before = (image.file.name, image.prompt, image.status, (media_root / image.file.name).read_bytes())
    image_settings(tenant, provider="openai", base_url=openai_server.base_url, api_key=TEST_API_KEY)
    openai_server.script("images", [Behaviour.status(401)])
    start = balance_of(tenant.account)

    job = run(eager_jobs, tenant, client, REGENERATE, {"image_id": image.pk, "prompt": "Something else"})

    assert job.status == "failed"
    image.refresh_from_db()
    assert (image.file.name, image.prompt, image.status, (media_root / image.file.name).read_bytes()) == before
    assert files_under(media_root) == [media_root / image.file.name]
    assert balance_of(tenant.account) == start
    assert notifications(tenant)[-1][0] == "ai_images_failed"


def test_deleting_content_deletes_its_image_files(tenant, as_user, eager_jobs, content, media_root, django_capture_on_commit_callbacks):
    run(eager_jobs, tenant, as_user(tenant.owner), GENERATE, {"content_id": content.pk, "count": 2})
    assert len(files_under(media_root)) == 2

    with django_capture_on_commit_callbacks(execute=True):
        content.delete()

    assert files_under(media_root) == []

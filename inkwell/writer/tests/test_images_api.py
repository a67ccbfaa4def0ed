"""/writer/images/ and the image generation endpoints through the real URLs: validation, credits,
tenancy and roles. The jobs themselves: test_images_jobs.py."""

import pytest

from inkwell.api.tests import assert_error
from inkwell.billing import services as billing
from inkwell.billing.models import CreditReservation, ReservationStatus
from inkwell.billing.tests.ledger import balance_of
from inkwell.jobs.models import Job
from inkwell.notifications.models import Notification
from inkwell.system import services as system
from inkwell.tenancy import services as tenancy
from inkwell.tenancy.models import Site
from inkwell.writer.models import Image, ImageStatus, ImageType
from inkwell.writer.tests.image_factories import make_content, make_image

pytestmark = pytest.mark.django_db

IMAGES = "/api/v1/writer/images/"
GENERATE = f"{IMAGES}generate_for_content/"
REGENERATE = f"{IMAGES}regenerate/"


def generate_images_url(content) -> str:
    return f"/api/v1/writer/content/{content.pk}/generate_images/"


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def content(tenant):
    return make_content(tenant)


def grant(tenant, user, site):
    tenancy.site_access_grant(account=tenant.account, actor=tenant.owner, user=user, site=site)


@pytest.fixture
def other_site(tenant):
    return Site.objects.create(account=tenant.account, name="Second", domain="second.example.com", slug=f"second-{tenant.site.slug}")


def held_credits(account) -> int:
    return sum(CreditReservation.objects.for_account(account).filter(status=ReservationStatus.HELD).values_list("amount", flat=True))


# Starting the work ------------------------------------------------------------------------------


def test_generate_for_content_answers_202_with_a_queued_job_pending_images_and_credits_held(tenant, as_user, content):
    response = as_user(tenant.owner).post(GENERATE, {"content_id": content.pk}, format="json")

    assert response.status_code == 202, response.content
    data = response.json()["data"]
    job = Job.objects.for_account(tenant.account).get(pk=data["job_id"])
    assert (data["status"], job.kind, job.site_id) == ("queued", "writer.generate_images", tenant.site.pk)
    # images_per_article (4) within max_images (4); the content had no featured image.
    images = list(Image.objects.for_account(tenant.account).filter(content=content))
    assert [(image.image_type, image.position, image.status) for image in images] == [
        ("featured", 0, "pending"),
        ("in_article", 1, "pending"),
        ("in_article", 2, "pending"),
        ("in_article", 3, "pending"),
    ]
    assert job.params["image_ids"] == [image.pk for image in images]
    assert held_credits(tenant.account) == 1 + 4 * 2  # prompt extraction, then 2 per image


def test_the_content_endpoint_starts_the_same_job_from_its_body(tenant, as_user, content):
    response = as_user(tenant.owner).post(generate_images_url(content), {"image_type": "in_article", "count": 2}, format="json")

    assert response.status_code == 202, response.content
    job = Job.objects.for_account(tenant.account).get(pk=response.json()["data"]["job_id"])
    assert job.params["content_id"] == content.pk
    assert list(Image.objects.for_account(tenant.account).values_list("image_type", flat=True)) == ["in_article", "in_article"]


def test_a_featured_request_makes_one_image_after_the_existing_ones_by_default(tenant, as_user, content):
    make_image(tenant, content=content, position=4, image_type=ImageType.IN_ARTICLE, status=ImageStatus.GENERATED)

    response = as_user(tenant.owner).post(GENERATE, {"content_id": content.pk, "image_type": "featured"}, format="json")

    assert response.status_code == 202, response.content
    new = Image.objects.for_account(tenant.account).filter(status=ImageStatus.PENDING).get()
    assert (new.image_type, new.position) == ("featured", 5)


def test_without_a_type_no_image_is_featured_when_the_content_has_one_already(tenant, as_user, content):
    make_image(tenant, content=content, image_type=ImageType.FEATURED, status=ImageStatus.GENERATED)

    as_user(tenant.owner).post(GENERATE, {"content_id": content.pk, "count": 2}, format="json")

    pending = Image.objects.for_account(tenant.account).filter(status=ImageStatus.PENDING)
    assert list(pending.values_list("image_type", flat=True)) == ["in_article", "in_article"]


def test_the_default_count_follows_the_content_and_image_settings(tenant, as_user, content):
    system.content_settings_save(account=tenant.account, key="content_generation", user=tenant.owner, values={"images_per_article": 6})
    system.integration_settings_save(account=tenant.account, integration_type="image_generation", user=tenant.owner, values={"max_images": 5})

    as_user(tenant.owner).post(GENERATE, {"content_id": content.pk}, format="json")

    assert Image.objects.for_account(tenant.account).count() == 5


# Validation -------------------------------------------------------------------------------------


@pytest.mark.parametrize("image_type", ["hero", "", "FEATURED", 3, ["featured"]])
def test_an_image_type_outside_featured_and_in_article_is_rejected_with_the_spec_message(tenant, as_user, content, image_type):
    client = as_user(tenant.owner)
    for url, body in ((GENERATE, {"content_id": content.pk}), (generate_images_url(content), {})):
        response = client.post(url, {**body, "image_type": image_type}, format="json")
        assert_error(response, 400, "validation_error", errors={"image_type": ["Invalid image type"]})
    assert not Job.objects.for_account(tenant.account).exists()
    assert not Image.objects.for_account(tenant.account).exists()


def test_the_image_list_rejects_an_unknown_type_or_status_with_the_spec_messages(tenant, as_user):
    client = as_user(tenant.owner)
    assert_error(client.get(IMAGES, {"image_type": "hero"}), 400, "validation_error", errors={"image_type": ["Invalid image type"]})
    assert_error(client.get(IMAGES, {"status": "done"}), 400, "validation_error", errors={"status": ["Invalid status value"]})


@pytest.mark.parametrize(
    ("count", "message"),
    [
        (0, "Ensure this value is greater than or equal to 1."),
        (-1, "Ensure this value is greater than or equal to 1."),
        (9, "Ensure this value is less than or equal to 8."),
        ("many", "A valid integer is required."),
    ],
)
def test_count_is_a_whole_number_from_1_to_8(tenant, as_user, content, count, message):
    response = as_user(tenant.owner).post(GENERATE, {"content_id": content.pk, "count": count}, format="json")
    assert_error(response, 400, "validation_error", errors={"count": [message]})


def test_count_may_not_exceed_the_accounts_max_images(tenant, as_user, content):
    system.integration_settings_save(account=tenant.account, integration_type="image_generation", user=tenant.owner, values={"max_images": 2})

    response = as_user(tenant.owner).post(GENERATE, {"content_id": content.pk, "count": 3}, format="json")

    assert_error(
        response, 400, "validation_error", errors={"count": ["Ensure this value is less than or equal to 2 (image settings max_images)."]}
    )
    assert not Image.objects.for_account(tenant.account).exists()


def test_content_id_is_required(tenant, as_user):
    response = as_user(tenant.owner).post(GENERATE, {}, format="json")
    assert_error(response, 400, "validation_error", errors={"content_id": ["This field is required"]})


def test_regenerating_an_image_without_any_prompt_needs_one(tenant, as_user):
    image = make_image(tenant, prompt="")

    response = as_user(tenant.owner).post(REGENERATE, {"image_id": image.pk}, format="json")

    assert_error(response, 400, "validation_error", errors={"prompt": ["This field is required"]})
    assert not Job.objects.for_account(tenant.account).exists()


def test_an_image_still_being_generated_cannot_be_regenerated(tenant, as_user):
    image = make_image(tenant, status=ImageStatus.PENDING)

    response = as_user(tenant.owner).post(REGENERATE, {"image_id": image.pk, "prompt": "Another view"}, format="json")

    assert_error(response, 409, "state_conflict", errors={"image_id": ["This image is still being generated"]})


def test_regenerate_answers_202_and_holds_the_cost_of_one_image(tenant, as_user):
    image = make_image(tenant, status=ImageStatus.FAILED)

    response = as_user(tenant.owner).post(REGENERATE, {"image_id": image.pk, "prompt": "Tomatoes at dusk"}, format="json")

    assert response.status_code == 202, response.content
    job = Job.objects.for_account(tenant.account).get(pk=response.json()["data"]["job_id"])
    assert (job.kind, job.params["prompt"]) == ("writer.regenerate_image", "Tomatoes at dusk")
    assert held_credits(tenant.account) == 2


def test_cancelling_a_queued_generation_removes_its_images_and_frees_its_credits(tenant, as_user, content):
    client = as_user(tenant.owner)
    start = balance_of(tenant.account)
    job_id = client.post(GENERATE, {"content_id": content.pk}, format="json").json()["data"]["job_id"]

    response = client.post(f"/api/v1/jobs/{job_id}/cancel/")

    assert response.json()["data"]["status"] == "cancelled"
    assert not Image.objects.for_account(tenant.account).exists()
    assert (balance_of(tenant.account), held_credits(tenant.account)) == (start, 0)
    # The caller cancelled it: no failure is reported to the account.
    assert not Notification.objects.for_account(tenant.account).filter(notification_type__startswith="ai_").exists()


# Credits ----------------------------------------------------------------------------------------


def test_short_credits_answer_402_and_create_nothing(tenant, as_user, content):
    image = make_image(tenant, content=content, status=ImageStatus.GENERATED, prompt="kept")
    # 1 (prompts) + 2 × 4 (images) are needed; leave one credit too few.
    billing.spend(account=tenant.account, operation_type="keyword_purchase", amount=balance_of(tenant.account) - 8)
    before = list(Image.objects.for_account(tenant.account).values())
    client = as_user(tenant.owner)

    for url, body in ((GENERATE, {"content_id": content.pk}), (generate_images_url(content), {})):
        response = client.post(url, body, format="json")
        assert_error(response, 402, "insufficient_credits", error="Insufficient credits", errors={"credits": ["Insufficient credits"]})
    billing.spend(account=tenant.account, operation_type="keyword_purchase", amount=balance_of(tenant.account) - 1)
    response = client.post(REGENERATE, {"image_id": image.pk}, format="json")
    assert_error(response, 402, "insufficient_credits", error="Insufficient credits", errors={"credits": ["Insufficient credits"]})

    assert list(Image.objects.for_account(tenant.account).values()) == before
    assert not Job.objects.for_account(tenant.account).exists()
    assert held_credits(tenant.account) == 0


def test_a_retried_request_with_the_same_idempotency_key_starts_one_job(tenant, as_user, content):
    client = as_user(tenant.owner)
    first = client.post(GENERATE, {"content_id": content.pk, "count": 1}, format="json", HTTP_IDEMPOTENCY_KEY="images-1")
    again = client.post(GENERATE, {"content_id": content.pk, "count": 1}, format="json", HTTP_IDEMPOTENCY_KEY="images-1")

    assert first.status_code == again.status_code == 202
    assert again.json() == first.json()
    assert Job.objects.for_account(tenant.account).count() == 1
    assert Image.objects.for_account(tenant.account).count() == 1


# Tenancy and roles ------------------------------------------------------------------------------


def test_another_accounts_content_or_image_is_a_field_error_and_changes_nothing(tenant, other_tenant, as_user):
    theirs = make_image(other_tenant, status=ImageStatus.GENERATED)
    client = as_user(tenant.owner)

    assert_error(
        client.post(GENERATE, {"content_id": theirs.content_id}, format="json"),
        400,
        "validation_error",
        errors={"content_id": ["Content must belong to your account"]},
    )
    assert_error(
        client.post(REGENERATE, {"image_id": theirs.pk, "prompt": "Mine now"}, format="json"),
        400,
        "validation_error",
        errors={"image_id": ["Image must belong to your account"]},
    )
    assert_error(
        client.post(GENERATE, {"content_id": 10**12}, format="json"),
        400,
        "validation_error",
        errors={"content_id": ["Content must belong to your account"]},
    )
    assert_error(client.post(generate_images_url(theirs.content), {}, format="json"), 404, "not_found")
    assert Image.objects.for_account(other_tenant.account).get().prompt == theirs.prompt
    assert not Job.objects.for_account(tenant.account).exists() and not Job.objects.for_account(other_tenant.account).exists()


def test_another_accounts_images_are_neither_listed_nor_found(tenant, other_tenant, as_user):
    mine, theirs = make_image(tenant), make_image(other_tenant)
    client = as_user(tenant.owner)

    assert [row["id"] for row in client.get(IMAGES).json()["results"]] == [mine.pk]
    assert client.get(IMAGES, {"content_id": theirs.content_id}).json()["results"] == []
    assert_error(client.get(f"{IMAGES}{theirs.pk}/"), 404, "not_found")


def test_viewers_read_images_but_may_not_start_image_work(tenant, as_user, content):
    image = make_image(tenant, content=content)
    grant(tenant, tenant.viewer, tenant.site)
    client = as_user(tenant.viewer)

    assert client.get(IMAGES).json()["count"] == 1
    assert client.get(f"{IMAGES}{image.pk}/").status_code == 200
    assert_error(client.post(GENERATE, {"content_id": content.pk}, format="json"), 403, "permission_denied")
    assert_error(client.post(generate_images_url(content), {}, format="json"), 403, "permission_denied")
    assert_error(client.post(REGENERATE, {"image_id": image.pk, "prompt": "x"}, format="json"), 403, "permission_denied")
    assert not Job.objects.for_account(tenant.account).exists()


def test_editors_see_and_work_on_the_images_of_their_sites_only(tenant, as_user, other_site):
    grant(tenant, tenant.editor, tenant.site)
    granted = make_content(tenant)
    other = make_content(tenant, site=other_site, title="Elsewhere")
    visible, hidden = make_image(tenant, content=granted), make_image(tenant, content=other)
    client = as_user(tenant.editor)

    assert [row["id"] for row in client.get(IMAGES).json()["results"]] == [visible.pk]
    assert_error(client.get(f"{IMAGES}{hidden.pk}/"), 404, "not_found")
    assert_error(client.post(GENERATE, {"content_id": other.pk}, format="json"), 403, "permission_denied")
    assert_error(client.post(REGENERATE, {"image_id": hidden.pk, "prompt": "x"}, format="json"), 403, "permission_denied")
    assert not Job.objects.for_account(tenant.account).exists()

    assert client.post(GENERATE, {"content_id": granted.pk, "count": 1}, format="json").status_code == 202
    assert client.post(REGENERATE, {"image_id": visible.pk, "prompt": "x"}, format="json").status_code == 202


def test_the_image_endpoints_answer_module_disabled_when_the_writer_is_off(tenant, as_user, content):
    system.modules_save(account=tenant.account, modules={"writer": False})
    client = as_user(tenant.owner)

    assert_error(client.get(IMAGES), 403, "module_disabled")
    assert_error(client.post(GENERATE, {"content_id": content.pk}, format="json"), 403, "module_disabled")


# The list ---------------------------------------------------------------------------------------


def test_the_list_shows_each_images_fields_and_filters_by_content_site_type_and_status(tenant, as_user, other_site):
    first, second = make_content(tenant), make_content(tenant, site=other_site, title="Elsewhere")
    featured = make_image(tenant, content=first, image_type=ImageType.FEATURED, status=ImageStatus.PENDING, alt_text="Tomatoes")
    failed = make_image(tenant, content=first, position=1)
    elsewhere = make_image(tenant, content=second)
    client = as_user(tenant.owner)

    def ids(**query):
        response = client.get(IMAGES, query)
        assert response.status_code == 200, response.content
        return [row["id"] for row in response.json()["results"]]

    assert ids(content_id=first.pk) == [featured.pk, failed.pk]
    assert ids(site_id=other_site.pk) == [elsewhere.pk]
    assert ids(image_type="featured") == [featured.pk]
    assert ids(status="failed") == [failed.pk, elsewhere.pk]
    row = client.get(f"{IMAGES}{featured.pk}/").json()["data"]
    assert set(row) == {
        "id", "content", "site", "image_type", "position", "prompt", "alt_text", "url", "width", "height", "mime_type", "status", "created_at"
    }
    assert (row["content"], row["site"], row["image_type"], row["alt_text"], row["url"], row["status"]) == (
        first.pk,
        tenant.site.pk,
        "featured",
        "Tomatoes",
        None,
        "pending",
    )
    assert row["created_at"].endswith("Z")

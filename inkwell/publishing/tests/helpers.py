"""Rows the publishing tests share: a site's integration pointing at a test CMS, and content
ready to publish with its categories, tags and images."""

import io
from datetime import timedelta

from django.core.files.base import ContentFile
from django.utils import timezone
from PIL import Image as PILImage

from inkwell.integration.models import SiteIntegration
from inkwell.writer.models import ContentStatus, Image, ImageStatus, ImageType, SiteStatus, Taxonomy, TaxonomyType
from inkwell.writer.tests.factories import make_content


def png_bytes(colour=(200, 80, 40)) -> bytes:
    buffer = io.BytesIO()
    PILImage.new("RGB", (32, 24), colour).save(buffer, format="PNG")
    return buffer.getvalue()


def connect(tenant, server, *, site=None, **fields) -> SiteIntegration:
    """The site's WordPress integration, pointing at ``server`` (a test CMS or the real WordPress)."""
    fields.setdefault("base_url", server.url)
    fields.setdefault("username", server.user)
    fields.setdefault("app_password", server.app_password)
    return SiteIntegration.objects.create(account=tenant.account, site=site or tenant.site, webhook_secret="s" * 32, **fields)


def add_image(content, *, image_type=ImageType.IN_ARTICLE, position=0, alt_text="A tomato plant") -> Image:
    image = Image(
        account_id=content.account_id,
        site_id=content.site_id,
        content=content,
        image_type=image_type,
        position=position,
        prompt="A tomato plant on a balcony",
        alt_text=alt_text,
        mime_type="image/png",
        width=32,
        height=24,
        status=ImageStatus.GENERATED,
    )
    image.file.save(f"image-{content.pk}-{position}.png", ContentFile(png_bytes()), save=False)
    image.save()
    return image


def ready_content(tenant, *, title="Growing tomatoes on a balcony", images=True, site=None, **fields):
    """Approved content with a category, a tag and (unless ``images`` is false) a featured and an in-article image."""
    fields.setdefault("html", "<p>Sun, a deep pot and water.</p><h2>Variety</h2><p>Cherry tomatoes.</p><h2>Soil</h2><p>Loose soil.</p>")
    fields.setdefault("status", ContentStatus.APPROVED)
    content = make_content(tenant, title=title, site=site, **fields)
    site = site or tenant.site
    category, _ = Taxonomy.objects.for_account(tenant.account).get_or_create(account=tenant.account, site=site, taxonomy_type=TaxonomyType.CATEGORY, slug="vegetables", defaults={"name": "Vegetables"})
    tag, _ = Taxonomy.objects.for_account(tenant.account).get_or_create(account=tenant.account, site=site, taxonomy_type=TaxonomyType.TAG, slug="balcony", defaults={"name": "Balcony"})
    content.taxonomies.set([category, tag])
    if images:
        add_image(content, image_type=ImageType.FEATURED, position=0, alt_text="Featured tomatoes")
        add_image(content, image_type=ImageType.IN_ARTICLE, position=1, alt_text="Tomatoes in a pot")
    return content


def schedule(content, *, seconds_ago: int = 5):
    content.site_status, content.scheduled_publish_at = SiteStatus.SCHEDULED, timezone.now() - timedelta(seconds=seconds_ago)
    content.save(update_fields=["site_status", "scheduled_publish_at"])
    return content

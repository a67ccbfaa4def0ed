"""The article as readers will see it (#36): its page as publishing lays it out (title, featured
image, body with its in-article images, author line), its search result and its social card.

Search engines cut a title and a description that do not fit: about 600 pixels of title (some 60
characters) and about 160 characters of description on a desktop, 120 on a phone, at a word's
end, with an ellipsis. The snippet here cuts the same way, so the preview warns of a cut before
the search engine makes it.
"""

from dataclasses import dataclass

from django.utils import timezone
from django.utils.html import format_html

from inkwell.publishing.services import body_with_images
from inkwell.writer.models import Content, Image, ImageStatus, ImageType, cms_slug
from inkwell.writer.sanitize import article_text

def _figure(image: Image) -> str:
    """An in-article image as the page shows it, from its own file (it has no CMS address yet)."""
    return format_html('<figure><img src="{}" alt="{}"></figure>', _file_url(image), image.alt_text)


TITLE_LIMIT = 60
DESCRIPTION_LIMITS = {"desktop": 160, "phone": 120}
CARD_TITLE_LIMIT = 70
CARD_DESCRIPTION_LIMIT = 110
ELLIPSIS = "…"


def truncated(text: str, limit: int) -> str:
    """``text`` cut as a search engine cuts it: whole when it fits, else at the last word's end
    before ``limit`` characters (the ellipsis included), followed by an ellipsis."""
    text = " ".join((text or "").split())
    if len(text) <= limit:
        return text
    cut = text[: limit - len(ELLIPSIS)]
    if " " in cut:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:.-–—") + ELLIPSIS


@dataclass(frozen=True)
class Snippet:
    title: str
    title_cut: bool
    url: str
    breadcrumb: str
    description: dict  # {"desktop": ..., "phone": ...}
    description_cut: dict


@dataclass(frozen=True)
class Card:
    title: str
    description: str
    domain: str
    image_url: str
    image_alt: str


@dataclass(frozen=True)
class Preview:
    title: str
    featured_url: str
    featured_alt: str
    body_html: str
    author_line: str
    snippet: Snippet
    card: Card


def _file_url(image: Image) -> str:
    return image.file.url if image.file else ""


def content_preview(*, content: Content) -> Preview:
    """The preview of ``content`` (its site loaded): what publishing would send, drawn here."""
    images = list(
        Image.objects.for_account(content.account_id).filter(content=content, status=ImageStatus.GENERATED).exclude(file="").order_by("position", "id")
    )
    featured = next((image for image in images if image.image_type == ImageType.FEATURED), None)
    in_article = [image for image in images if image.image_type == ImageType.IN_ARTICLE]
    site = content.site
    path = cms_slug(slug=content.slug, title=content.title, content_id=content.pk)
    url = content.external_url or f"{site.url}/{path}/"
    meta_title = content.meta_title or content.title
    description = content.meta_description or content.excerpt or article_text(content.html).replace("\n", " ")
    when = content.published_at or content.scheduled_publish_at or timezone.now()
    snippet = Snippet(
        title=truncated(meta_title, TITLE_LIMIT),
        title_cut=len(" ".join(meta_title.split())) > TITLE_LIMIT,
        url=url,
        breadcrumb=" › ".join([site.domain, *[part for part in url.split("://", 1)[-1].split("/")[1:] if part]]),
        description={width: truncated(description, limit) for width, limit in DESCRIPTION_LIMITS.items()},
        description_cut={width: len(" ".join(description.split())) > limit for width, limit in DESCRIPTION_LIMITS.items()},
    )
    card = Card(
        title=truncated(meta_title, CARD_TITLE_LIMIT),
        description=truncated(description, CARD_DESCRIPTION_LIMIT),
        domain=site.domain.upper(),
        image_url=_file_url(featured) if featured else "",
        image_alt=featured.alt_text if featured else "",
    )
    return Preview(
        title=content.title,
        featured_url=_file_url(featured) if featured else "",
        featured_alt=featured.alt_text if featured else "",
        body_html=body_with_images(html=content.html, figures=[_figure(image) for image in in_article]),
        author_line=f"By {site.name} · {timezone.localtime(when).strftime('%B %-d, %Y')}",
        snippet=snippet,
        card=card,
    )

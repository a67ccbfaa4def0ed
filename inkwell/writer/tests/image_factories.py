"""Content and images for the image tests, and the Image factory of the cross-account matrix
(merged into ``factories.CROSS_ACCOUNT_FACTORIES``)."""

from inkwell.writer.models import Content, Image, ImageStatus, ImageType

ARTICLE_HTML = (
    "<h1>Growing tomatoes on a balcony</h1>"
    "<p>Balcony tomatoes need sun, a deep pot and steady watering.</p>"
    "<h2>Choosing a variety</h2><p>Cherry and bush varieties stay compact.</p>"
    "<h2>Pots and soil</h2><p>A 20 litre pot with loose, rich soil is enough for one plant.</p>"
    "<h2>Watering and feeding</h2><p>Water deeply in the morning and feed every two weeks.</p>"
)


def make_content(tenant, *, site=None, title: str = "Growing tomatoes on a balcony", **fields) -> Content:
    fields.setdefault("html", ARTICLE_HTML)
    fields.setdefault("focus_keyword", "balcony tomatoes")
    fields.setdefault("word_count", 60)
    return Content.objects.create(account=tenant.account, site=site or tenant.site, title=title, **fields)


def make_image(tenant, *, content: Content | None = None, prompt: str = "A tomato plant on a sunny balcony", **fields) -> Image:
    content = content or make_content(tenant)
    fields.setdefault("image_type", ImageType.IN_ARTICLE)
    fields.setdefault("status", ImageStatus.FAILED)
    return Image.objects.create(account=tenant.account, site_id=content.site_id, content=content, prompt=prompt, **fields)


def _image(tenant, marker: str) -> Image:
    return make_image(tenant, content=make_content(tenant, title=marker), prompt=marker, alt_text=marker)


CROSS_ACCOUNT_FACTORIES = {Image: _image}

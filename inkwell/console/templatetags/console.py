"""Small helpers of the console's templates: icons from the sprite, job names, where a job's work is."""

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from django import template
from django.conf import settings
from django.templatetags.static import static
from django.urls import reverse
from django.utils.dateformat import format as date_format
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from inkwell import netguard

register = template.Library()

JOB_LABELS = {
    "planner.auto_cluster": "Clustering keywords",
    "planner.generate_ideas": "Writing ideas",
    "writer.generate_content": "Drafting the article",
    "writer.generate_images": "Making images",
    "writer.regenerate_image": "Making the image again",
    "optimizer.optimize": "Optimizing the article",
    "optimizer.batch_optimize": "Optimizing articles",
    "linker.batch_process": "Linking articles",
}


@register.simple_tag
def icon(name: str, label: str = "") -> str:
    """An icon of static/console/icons.svg; decorative unless it has a label."""
    aria = format_html('role="img" aria-label="{}"', label) if label else mark_safe('aria-hidden="true"')
    return format_html('<svg class="icon" {} focusable="false"><use href="{}#{}"></use></svg>', aria, static("console/icons.svg"), name)


@register.filter
def outside_link(url) -> str:
    """``url`` when it is an absolute http(s) URL, else "": every address that came from outside
    (a CMS, a provider, a person, a header) reaches an ``href`` through here, so no
    ``javascript:`` or ``data:`` URL stored by an older version or a hostile peer can run."""
    try:
        netguard.check_url_shape(url if isinstance(url, str) else "")
    except netguard.InvalidURL:
        return ""
    return url


@register.simple_tag(takes_context=True)
def when(context, moment: datetime | None, style: str = "j M Y, H:i", empty: str = "", text: bool = False) -> str:
    """A moment as the console shows every time: in the zone of the site in view, with that zone
    named ("27 Nov 2026, 20:26 CET"), and the UTC time on hover. ``empty`` when there is none;
    ``text``: the words alone, where no markup may stand (an ``<option>``).

    The zone comes from the page's ``display_zone`` (``ConsoleView.page``), read only when a
    template shows a time."""
    if moment is None:
        return empty
    zone = context.get("display_zone")
    zone = ZoneInfo((zone() if callable(zone) else zone) or "UTC")
    local, utc = moment.astimezone(zone), moment.astimezone(UTC)
    if text:
        return f"{date_format(local, style)} {local.tzname()}"
    return format_html(
        '<time datetime="{}" title="{} UTC">{} {}</time>',
        utc.isoformat().replace("+00:00", "Z"),
        date_format(utc, "j M Y, H:i:s"),
        date_format(local, style),
        local.tzname(),
    )


@register.filter
def job_label(kind: str) -> str:
    return JOB_LABELS.get(kind, kind.replace("_", " ").replace(".", ": "))


@register.filter
def job_outcome_url(job) -> str:
    """Where the finished job's work is: the article it wrote or changed, or the planner list it filled."""
    result = job.result or {}
    content_id = result.get("content_id") or job.params.get("content_id")
    if content_id:
        return reverse("console:content", kwargs={"pk": content_id})
    if job.site_id and job.kind == "planner.auto_cluster":
        return reverse("console:clusters", kwargs={"site_id": job.site_id})
    if job.site_id and job.kind == "planner.generate_ideas":
        return reverse("console:ideas", kwargs={"site_id": job.site_id})
    return ""


@register.filter
def field_error(errors: dict, name: str) -> list:
    return errors.get(name, []) if errors else []


@register.inclusion_tag("console/components/credit_cost.html")
def credit_rate(operation: str):
    """The cost table's rate of an operation, as a credit cost ("1 credit per 20 keywords")."""
    entry = settings.INKWELL_CREDIT_COSTS[operation]
    per = entry["per"]
    unit = entry["unit"] if per == 1 else f"{per} {entry['unit']}s"
    return {"cost": entry["credits"], "per": f"per {unit}"}


@register.filter
def thousands(value) -> str:
    """12345 as 12,345."""
    try:
        return f"{int(value):,}"
    except (TypeError, ValueError):
        return value


@register.filter
def words(value: str) -> str:
    """An enum value as words: very_hard as very hard."""
    return str(value).replace("_", " ")

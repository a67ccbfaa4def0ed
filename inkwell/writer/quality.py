"""The writer's quality gate (issue 35): a content's quality report against its site's thresholds,
the originality index it reads, and the gate that auto-approval goes through.

The report is ``inkwell.ai.quality.report`` given:

- the site's thresholds (``SiteEditorial.thresholds`` over ``Thresholds``' defaults); when the
  site has a voice profile and the thresholds name no ``max_grade``, the voice's reading grade
  plus two is the ceiling (a draft may be a little harder than the voice's target, not more);
- the content's keywords, primary first (its focus keyword, then its keywords);
- the sources of the task's brief (URLs and notes): a claim a note contains is backed;
- the fingerprints of the site's other contents (``ContentFingerprint``), the posts the CMS sync
  knows included (the sync records our own contents' posts; it imports no post it did not
  publish, so there is no other text to compare with).

The originality index is kept lazily: before a report reads it, the fingerprints of the site's
contents changed since they were taken are taken again, in one pass (``site_fingerprints``).
"""

from django.db.models import F
from django.utils import timezone

from inkwell.ai import quality
from inkwell.ai.types import Voice
from inkwell.tenancy.models import Site, User
from inkwell.writer.models import Brief, Content, ContentFingerprint, SiteEditorial, VoiceProfile

MAX_FINDINGS_KEPT = 20  # findings kept on the content with a gate's outcome (the report itself has all)


def site_editorial(*, site: Site) -> SiteEditorial:
    """The site's editorial rules; a site without a row (made before issue 35) asks for no brief."""
    row = SiteEditorial.objects.for_account(site.account_id).filter(site=site).first()
    return row or SiteEditorial(account_id=site.account_id, site=site, brief_required=False, thresholds={})


def site_thresholds(*, site: Site) -> quality.Thresholds:
    values = dict(site_editorial(site=site).thresholds or {})
    if "max_grade" not in values:
        voice = VoiceProfile.objects.for_account(site.account_id).filter(site=site).only("reading_grade").first()
        if voice is not None:
            values["max_grade"] = voice.reading_grade + 2
    return quality.Thresholds.from_dict(values)


def site_fingerprints(*, site: Site, exclude_id: int | None = None) -> list[quality.Reference]:
    """The site's contents as originality references, their stale fingerprints taken again first."""
    stale = (
        Content.objects.for_account(site.account_id).filter(site=site)
        .exclude(fingerprint__source_updated_at=F("updated_at"))
        .only("id", "account_id", "site_id", "html", "updated_at")
    )
    fresh = []
    for content in stale.iterator(chunk_size=200):
        signature, sample = quality.fingerprint(content.html)
        fresh.append(ContentFingerprint(account_id=content.account_id, content_id=content.pk, site_id=content.site_id, signature=signature, sample=sample, source_updated_at=content.updated_at))
    if fresh:
        ContentFingerprint.objects.bulk_create(
            fresh, batch_size=500, update_conflicts=True, unique_fields=["content"], update_fields=["signature", "sample", "source_updated_at"]
        )
    rows = ContentFingerprint.objects.for_account(site.account_id).filter(site=site).exclude(content_id=exclude_id).values_list(
        "content_id", "content__title", "content__external_url", "content__slug", "signature", "sample"
    )
    return [
        quality.Reference(id=content_id, title=title, url=url or (f"/{slug}/" if slug else ""), signature=bytes(signature), sample=bytes(sample or b""))
        for content_id, title, url, slug, signature, sample in rows
    ]


def brief_sources(*, content: Content) -> list[str]:
    """The sources of the content's brief as text: each URL and each note."""
    if content.task_id is None:
        return []
    brief = Brief.objects.for_account(content.account_id).filter(task_id=content.task_id).only("sources").first()
    if brief is None:
        return []
    return [str(part) for source in brief.sources for part in (source.get("url", ""), source.get("note", "")) if part]


def content_keywords(content: Content) -> list[str]:
    keywords = [content.focus_keyword] if content.focus_keyword else []
    keywords += [keyword for keyword in content.keywords or [] if isinstance(keyword, str) and keyword.lower() != content.focus_keyword.lower()]
    return keywords


def content_quality(*, content: Content) -> quality.Report:
    """The quality report of one content against its site's thresholds and articles."""
    return quality.report(
        html=content.html,
        title=content.title,
        meta_title=content.meta_title,
        meta_description=content.meta_description,
        keywords=content_keywords(content),
        sources=brief_sources(content=content),
        references=site_fingerprints(site=content.site, exclude_id=content.pk),
        thresholds=site_thresholds(site=content.site),
    )


def summary_of(report: quality.Report) -> dict:
    """What the content keeps of a gate's report: the failing kinds and the first findings."""
    return {
        "passed": report.passed,
        "failing": report.scores.get("failing", []),
        "counts": report.scores.get("findings", {}),
        "findings": [{"kind": finding.kind, "message": finding.message, "excerpt": finding.excerpt} for finding in report.findings[:MAX_FINDINGS_KEPT]],
        "checked_at": timezone.now().isoformat(),
    }


def record_gate(*, content: Content, report: quality.Report, override_by: User | None = None, override: bool = False) -> None:
    """Keeps the report's outcome on the content; with ``override``, that ``override_by`` (a person,
    or None for an API key without one) approved it although it does not pass."""
    content.quality_passed = report.passed
    content.quality_summary = summary_of(report)
    fields = ["quality_passed", "quality_summary"]
    if override:
        content.quality_override_by = override_by
        content.quality_override_at = timezone.now()
        fields += ["quality_override_by", "quality_override_at"]
    Content.objects.for_account(content.account_id).filter(pk=content.pk).update(**{name: getattr(content, name) for name in fields})


def editorial_answer(*, site: Site) -> dict:
    row = site_editorial(site=site)
    from dataclasses import asdict

    return {
        "site_id": site.pk,
        "brief_required": row.brief_required,
        "stop_at_brief": row.stop_at_brief,
        "thresholds": row.thresholds or {},
        "effective_thresholds": asdict(site_thresholds(site=site)),
    }


def site_voice(*, site: Site) -> Voice | None:
    """The site's voice profile as the AI engine reads it; None when the site has none."""
    row = VoiceProfile.objects.for_account(site.account_id).filter(site=site).first()
    if row is None:
        return None
    return Voice(
        tone=row.tone,
        person=row.person,
        reading_grade=row.reading_grade,
        sentence_words=row.sentence_words,
        words_to_use=tuple(row.words_to_use),
        words_to_avoid=tuple(row.words_to_avoid),
        examples=tuple(row.examples),
    )


QUESTION_WORDS = frozenset("how what why when where which who can do does is are should will".split())
_STOP = frozenset("a an and or the of for to in on with at by from is are be your you how what why best".split())


def _stem(word: str) -> str:
    """A plural's singular, roughly ("tomatoes" -> "tomato", "mixes" -> "mix", "beds" -> "bed")."""
    if word.endswith(("oes", "xes", "ches", "shes", "sses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def content_words(text: str) -> list[str]:
    return [_stem(word) for word in quality.words_of(text or "") if word not in _STOP and len(word) > 2]


def link_of(content: Content) -> dict:
    """An internal link target as the brief keeps it."""
    return {"content_id": content.pk, "title": content.title, "url": content.external_url or f"/{content.slug or content.pk}/"}


def article_brief_parts(*, task_id: int, account_id: int) -> dict:
    """The approved brief of a task as ``ArticleBrief`` fields ({} when it has none)."""
    from inkwell.ai.types import InternalLink

    brief = Brief.objects.for_account(account_id).filter(task_id=task_id, status="approved").first()
    if brief is None:
        return {}
    return {
        "title": brief.title,
        "keywords": list(brief.keywords),
        "word_count": brief.target_length,
        "outline": [("### " if item.get("level") == 3 else "") + item.get("text", "") for item in brief.outline],
        "angle": brief.angle,
        "reader": brief.reader,
        "questions": list(brief.questions),
        "internal_links": [InternalLink(title=link["title"], url=link["url"]) for link in brief.internal_links],
        "sources": [part for source in brief.sources for part in (source.get("url", ""), source.get("note", "")) if part],
    }


# The site's voice, measured


_FIRST = frozenset({"we", "our", "us", "ours", "we're", "we've"})
_SECOND = frozenset({"you", "your", "yours", "you're", "you've", "yourself"})


def voice_measured(*, site: Site, limit: int = 200) -> dict:
    """A voice proposed from the site's published posts (the newest ``limit``): the person they
    write in, their average sentence length, their reading grade (textstat), the words they use
    most, and two of their paragraphs as examples. Measured, not guessed; tone and words to avoid
    are the team's to say. Empty values when the site has published nothing."""
    import textstat

    posts = list(
        Content.objects.for_account(site.account_id).filter(site=site, site_status="published").order_by("-published_at", "-id").values_list("html", flat=True)[:limit]
    )
    texts = [quality.visible_text(html)[0] for html in posts]
    words = [word for text in texts for word in quality.words_of(text)]
    if not words:
        return {"measured_posts": 0, "person": "", "sentence_words": 0, "reading_grade": 0.0, "words_to_use": [], "examples": []}
    first, second = sum(word in _FIRST for word in words), sum(word in _SECOND for word in words)
    person = "first" if first > second and first >= len(words) / 200 else "second" if second >= len(words) / 200 else "third"
    sentences = sum(len(quality._sentences(text, 0, len(text))) for text in texts)
    counts: dict[str, int] = {}
    for word in map(_stem, quality.topic_words(" ".join(texts))):
        counts[word] = counts.get(word, 0) + 1
    paragraphs = [
        block_text
        for html in posts[:20]
        for text, blocks in [quality.visible_text(html)]
        for block in blocks
        if block.tag == "p"
        for block_text in [text[block.start : block.end]]
        if 40 <= len(block_text.split()) <= 120
    ]
    return {
        "measured_posts": len(posts),
        "person": person,
        "sentence_words": round(len(words) / max(1, sentences)),
        "reading_grade": round(float(textstat.flesch_kincaid_grade(" ".join(texts))), 1),
        "words_to_use": [word for word, _count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:10]],
        "examples": paragraphs[:2],
    }

"""Internal linking: phrases of an article that name another article of the same site become links to it.

The core, ``link_html`` (and ``LinkIndex`` behind it), is pure: HTML and targets in, HTML and the
links it added out. Rules:

- The HTML is read with a real parser (``html.parser``); only text is ever changed, so a link is
  never put inside a tag's attributes, and never inside ``a``, ``h1``-``h6``, ``code``, ``pre``,
  ``script``, ``style`` (and the other elements in ``NO_LINK_ELEMENTS``). Everything else is kept
  byte for byte.
- Matching is case-insensitive on whole words: "Trail Running" in the text matches the phrase
  "trail running" and stays "Trail Running" as the anchor text; "trail-running" or "trail
  runnings" do not match it. Words separated by spaces in the phrase match any run of whitespace.
- Longest phrase first (most words, then most characters): "trail running shoes" is linked
  before "running shoes" can take part of it. Ties go to the target's own focus keyword before
  its other keywords before its cluster's keywords, then to the target listed first.
- At most one link per target, and one target per phrase: the same words never point to two
  articles.
- At most ``max_links`` links to targets in the article, those it already has included, spread
  through the text: one new link per block (paragraph, list item, cell...) until every block
  that could take one has one; only then a second link in a block.
- Idempotent: a target the article already links to (by any of its URLs, with or without the
  site's domain, ``www.`` or a trailing slash) gets no second link, and the existing links count
  towards the maximum, so running the linker again on its own output changes nothing.

``process_content`` applies it to one article: the targets are the other articles of the same site
of the same account that are live on its CMS, at their real URLs (``selectors.link_targets``) and the new body is saved through the writer's
``content_update``, which keeps the previous version as a revision. ``start_batch_linking`` runs
it over many articles as a job (``linker.batch_process``, in ``jobs``). No credits are spent:
this linking needs no AI provider.
"""

import html as html_lib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlsplit

from django.db import models, transaction
from rest_framework.exceptions import ValidationError

from inkwell.jobs.models import Job
from inkwell.jobs.services import start_job
from inkwell.linker.selectors import Target, link_targets, max_links_setting
from inkwell.tenancy.models import Account, Site, User
from inkwell.writer.models import Content
from inkwell.writer.services import content_update

BATCH_PROCESS = "linker.batch_process"
MAX_LINKS_RANGE = (1, 50)
MAX_BATCH_CONTENT = 1000
CONTENT_OF_ONE_SITE = "All content must belong to the same site"
NOTHING_FOUND = "None of these ids names your content"

# Text inside these elements is never linked: headings, existing links, code, and what a reader does not see as prose.
NO_LINK_ELEMENTS = frozenset(
    "a h1 h2 h3 h4 h5 h6 code pre kbd samp script style noscript template textarea button select option title head svg math".split()
)
# Each of these starts a new block for the one-link-per-block spreading.
BLOCK_ELEMENTS = frozenset(
    "address article aside blockquote dd details div dl dt figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li main "
    "nav ol p pre section summary table tbody td tfoot th thead tr ul br".split()
)
VOID_ELEMENTS = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
# A match must not continue a hyphenated or underscored word: "trail-running" is not "running".
_JOINERS = "-_"


@dataclass(frozen=True)
class Link:
    anchor_text: str
    target_content_id: int
    url: str

    def as_dict(self) -> dict:
        return {"anchor_text": self.anchor_text, "target_content_id": self.target_content_id, "url": self.url}


def url_key(*, url: str) -> tuple[str, str, str]:
    """What makes two hrefs the same page: host without ``www.`` (none for a site-relative path),
    path without its trailing slash, query; http and https alike, the fragment ignored."""
    try:
        parts = urlsplit((url or "").strip())
    except ValueError:
        return ("", url, "")
    host = (parts.hostname or "").lower().removeprefix("www.")
    return (host, parts.path.rstrip("/") or "/", parts.query)


def _words(text: str) -> list[re.Match]:
    return list(_WORD.finditer(text))


def _normal(word: str) -> str:
    return word.casefold().replace("’", "'")


def _gap(text: str) -> str:
    """The text between two words of a phrase, as matching compares it: any whitespace is one space."""
    return " " if not text.strip() else " ".join(text.casefold().split())


@dataclass(frozen=True)
class _Phrase:
    words: tuple[str, ...]
    gaps: tuple[str, ...]
    length: int
    priority: int
    target: int  # index into LinkIndex.targets

    @property
    def key(self) -> tuple:
        return (self.words, self.gaps)


def _phrase(text: str, priority: int, target: int) -> _Phrase | None:
    normal = " ".join(text.split())
    matches = _words(normal)
    if not matches:
        return None
    words = tuple(_normal(match.group()) for match in matches)
    gaps = tuple(_gap(normal[left.end() : right.start()]) for left, right in zip(matches, matches[1:], strict=False))
    length = matches[-1].end() - matches[0].start()
    return _Phrase(words, gaps, length, priority, target)


@dataclass
class _Segment:
    """A run of text the parser saw, that links may go into."""

    event: int
    text: str
    block: int
    taken: list[tuple[int, int]] = field(default_factory=list)


@dataclass(frozen=True)
class _Occurrence:
    phrase: _Phrase
    segment: int
    start: int
    end: int

    def rank(self) -> tuple:
        return (-len(self.phrase.words), -self.phrase.length, self.phrase.priority, self.segment, self.start, self.phrase.target)


class _Events(HTMLParser):
    """The document as parser events with their offsets, so each event's source text is a slice of the input."""

    def __init__(self, source: str):
        super().__init__(convert_charrefs=True)
        self.line_starts = [0, *(match.end() for match in re.finditer("\n", source))]
        self.events: list[tuple[int, str, str, object]] = []

    def _add(self, kind: str, tag: str = "", value: object = None) -> None:
        line, column = self.getpos()
        self.events.append((self.line_starts[line - 1] + column, kind, tag, value))

    def handle_starttag(self, tag, attrs):
        self._add("start", tag, attrs)

    def handle_startendtag(self, tag, attrs):
        self._add("void", tag, attrs)

    def handle_endtag(self, tag):
        self._add("end", tag)

    def handle_data(self, data):
        self._add("data", "", data)

    def handle_comment(self, data):
        self._add("other")

    def handle_decl(self, decl):
        self._add("other")

    def handle_pi(self, data):
        self._add("other")

    def unknown_decl(self, data):
        self._add("other")


class LinkIndex:
    """Targets compiled once (phrases indexed by their first word) and applied to any number of articles."""

    def __init__(self, targets: Sequence[Target]):
        self.targets = list(targets)
        self._by_first_word: dict[str, list[_Phrase]] = {}
        self._known: dict[tuple[str, str, str], set[int]] = {}
        for index, target in enumerate(self.targets):
            seen = set()
            for priority, text in enumerate(target.phrases):
                phrase = _phrase(text, priority, index)
                if phrase is None or phrase.key in seen:
                    continue
                seen.add(phrase.key)
                self._by_first_word.setdefault(phrase.words[0], []).append(phrase)
            for url in (target.url, *target.known_urls):
                if url:
                    self._known.setdefault(url_key(url=url), set()).add(index)

    def link(self, html: str, max_links: int, *, exclude_content_id: int | None = None, own_phrases: Iterable[str] = ()) -> tuple[str, list[Link]]:
        """``html`` with links added, and the links in document order (see the module docstring).

        ``exclude_content_id`` is the article itself (never linked to); ``own_phrases`` are its own
        keywords, which stay unlinked so that it does not send readers away for what it should rank for.
        """
        parser = _Events(html or "")
        parser.feed(html or "")
        parser.close()
        events = parser.events
        excluded = {index for index, target in enumerate(self.targets) if target.content_id == exclude_content_id}
        own = {phrase.key for text in own_phrases if (phrase := _phrase(text, 0, -1)) is not None}

        segments, linked = self._segments(events, excluded)
        budget = max_links - len(linked)
        if budget <= 0 or not segments:
            return html, []
        occurrences = sorted(self._occurrences(segments, excluded, own), key=_Occurrence.rank)
        chosen = self._choose(occurrences, segments, linked, budget)
        if not chosen:
            return html, []
        return self._render(html, events, segments, chosen)

    def linkable_blocks(self, html: str, *, exclude_content_id: int | None = None) -> tuple[list[list[str]], set[int]]:
        """The text runs of each block that links may go into (headings, links, code left out), in
        document order, and the targets (indexes into ``targets``) the document links to already.
        A link's anchor lies within one run."""
        parser = _Events(html or "")
        parser.feed(html or "")
        parser.close()
        excluded = {index for index, target in enumerate(self.targets) if target.content_id == exclude_content_id}
        segments, linked = self._segments(parser.events, excluded)
        blocks: dict[int, list[str]] = {}
        for segment in segments:
            blocks.setdefault(segment.block, []).append(segment.text)
        return list(blocks.values()), linked

    def _segments(self, events, excluded: set[int]) -> tuple[list[_Segment], set[int]]:
        """The text runs links may go into, and the targets the document links to already."""
        segments: list[_Segment] = []
        linked: set[int] = set()
        open_elements: list[str] = []
        blocked = 0  # open elements of NO_LINK_ELEMENTS
        block = 0
        for number, (_, kind, tag, value) in enumerate(events):
            if kind in ("start", "void"):
                href = dict(value).get("href") if tag == "a" else None
                if href:
                    linked |= self._known.get(url_key(url=href), set()) - excluded
                if tag in BLOCK_ELEMENTS:
                    block += 1
                if kind == "start" and tag not in VOID_ELEMENTS:
                    open_elements.append(tag)
                    blocked += tag in NO_LINK_ELEMENTS
            elif kind == "end":
                if tag in BLOCK_ELEMENTS:
                    block += 1
                if tag in open_elements:
                    # Close up to the matching element, as browsers forgive a missing </li> or </b>.
                    while True:
                        closed = open_elements.pop()
                        blocked -= closed in NO_LINK_ELEMENTS
                        if closed == tag:
                            break
            elif kind == "data" and not blocked and value.strip():
                segments.append(_Segment(number, value, block))
        return segments, linked

    def _occurrences(self, segments: list[_Segment], excluded: set[int], own: set[tuple]) -> Iterable[_Occurrence]:
        for number, segment in enumerate(segments):
            text = segment.text
            words = _words(text)
            normal = [_normal(match.group()) for match in words]
            for position, first in enumerate(normal):
                for phrase in self._by_first_word.get(first, ()):
                    if phrase.target in excluded or phrase.key in own:
                        continue
                    size = len(phrase.words)
                    last = position + size - 1
                    if last >= len(words) or tuple(normal[position : last + 1]) != phrase.words:
                        continue
                    gaps = tuple(_gap(text[words[i].end() : words[i + 1].start()]) for i in range(position, last))
                    if gaps != phrase.gaps:
                        continue
                    start, end = words[position].start(), words[last].end()
                    if (start and text[start - 1] in _JOINERS) or (end < len(text) and text[end] in _JOINERS):
                        continue
                    yield _Occurrence(phrase, number, start, end)

    def _choose(self, occurrences: list[_Occurrence], segments: list[_Segment], linked: set[int], budget: int) -> list[_Occurrence]:
        chosen: list[_Occurrence] = []
        targets = set(linked)
        phrases: set[tuple] = set()
        blocks: set[int] = set()
        for spread in (True, False):
            for occurrence in occurrences:
                if len(chosen) >= budget:
                    return chosen
                phrase, segment = occurrence.phrase, segments[occurrence.segment]
                if phrase.target in targets or phrase.key in phrases:
                    continue
                if spread and segment.block in blocks:
                    continue
                if any(occurrence.start < end and start < occurrence.end for start, end in segment.taken):
                    continue
                chosen.append(occurrence)
                segment.taken.append((occurrence.start, occurrence.end))
                targets.add(phrase.target)
                phrases.add(phrase.key)
                blocks.add(segment.block)
        return chosen

    def _render(self, html: str, events, segments: list[_Segment], chosen: list[_Occurrence]) -> tuple[str, list[Link]]:
        offsets = [offset for offset, *_ in events] + [len(html)]
        by_segment: dict[int, list[_Occurrence]] = {}
        for occurrence in chosen:
            by_segment.setdefault(occurrence.segment, []).append(occurrence)
        replaced: dict[int, str] = {}
        links: list[Link] = []
        for number in sorted(by_segment):
            segment = segments[number]
            parts, position = [], 0
            for occurrence in sorted(by_segment[number], key=lambda item: item.start):
                target = self.targets[occurrence.phrase.target]
                anchor = segment.text[occurrence.start : occurrence.end]
                parts.append(html_lib.escape(segment.text[position : occurrence.start], quote=False))
                parts.append(f'<a href="{html_lib.escape(target.url, quote=True)}">{html_lib.escape(anchor, quote=False)}</a>')
                position = occurrence.end
                links.append(Link(anchor_text=anchor, target_content_id=target.content_id, url=target.url))
            parts.append(html_lib.escape(segment.text[position:], quote=False))
            replaced[segment.event] = "".join(parts)
        pieces = [replaced.get(number, html[offsets[number] : offsets[number + 1]]) for number in range(len(events))]
        return html[: offsets[0]] + "".join(pieces), links


def link_html(*, html: str, targets: Sequence[Target], max_links: int) -> tuple[str, list[Link]]:
    """``html`` with links to ``targets`` added (at most ``max_links`` in the article), and those links."""
    return LinkIndex(targets).link(html, max_links)


# Applying it to content


def site_index(*, account: Account, site_id: int) -> LinkIndex:
    """The articles of the site, of ``account`` only, compiled as link targets."""
    return LinkIndex(link_targets(account, site_id))


def process_content(*, account: Account, content: Content, user: User | None, max_links: int | None = None, index: LinkIndex | None = None) -> dict:
    """Links ``content`` to the other articles of its site; the new body is a new revision.

    ``index`` is the site's targets when the caller has them already (a batch); the article is
    locked while it is read and written, so an edit made meanwhile is never overwritten.
    """
    max_links = max_links_setting() if max_links is None else max_links
    index = index or site_index(account=account, site_id=content.site_id)
    with transaction.atomic():
        current = Content.objects.for_account(account).select_for_update().get(pk=content.pk)
        html, links = index.link(current.html, max_links, exclude_content_id=current.pk, own_phrases=[current.focus_keyword])
        if links:
            content_update(account=account, content=current, user=user, html=html)
    return {"content_id": current.pk, "links_added": len(links), "links": [link.as_dict() for link in links]}


NO_LINKS_ADDED = "No internal links were added: no phrase of another article live on this site appears in linkable text here, or the article links to those articles already."


def links_added_summary(*, links: list[dict]) -> str:
    """What a linking run changed, in words: each link added (its anchor text and address), or that none was."""
    if not links:
        return NO_LINKS_ADDED
    added = "; ".join(f"“{link['anchor_text']}” to {link['url']}" for link in links)
    return f"Added {len(links)} internal link{'' if len(links) == 1 else 's'}: {added}."


def content_of_one_site(*, account: Account, contents: models.QuerySet, content_ids: list[int]) -> tuple[list[int], list[int], Site]:
    """The ids among ``content_ids`` that name rows of ``contents`` (the caller's scoped queryset),
    the other ids, and the one site of the rows (400 when they span several sites, or none is found).

    A batch runs as one job of one site, the job an editor granted that site can follow."""
    wanted = list(dict.fromkeys(content_ids))
    sites = dict(contents.filter(pk__in=wanted).values_list("pk", "site_id"))
    if not sites:
        raise ValidationError({"content_ids": [NOTHING_FOUND]})
    if len(set(sites.values())) > 1:
        raise ValidationError({"content_ids": [CONTENT_OF_ONE_SITE]})
    site = Site.objects.for_account(account).get(pk=next(iter(sites.values())))
    return [pk for pk in wanted if pk in sites], [pk for pk in wanted if pk not in sites], site


def start_batch_linking(*, account: Account, user: User, contents: models.QuerySet, content_ids: list[int], max_links: int | None = None) -> Job:
    """Starts the ``linker.batch_process`` job over the caller's content among ``content_ids``
    (``contents`` is the caller's scoped queryset); ids that name none of it are reported as
    ``not_found`` in the job's result. The content must be of one site."""
    found, not_found, site = content_of_one_site(account=account, contents=contents, content_ids=content_ids)
    params = {"content_ids": found, "not_found": not_found, "max_links": max_links_setting() if max_links is None else max_links}
    return start_job(account=account, kind=BATCH_PROCESS, params=params, site=site, user=user)

"""Internal links by meaning (#19): the linker's ``suggest`` mode, and applying what it suggests.

``suggest_links`` reads an article and proposes links to the other live articles of its site whose topic
matches one of its paragraphs, even when the paragraph does not contain the target's exact phrase:

1. The article's blocks (paragraphs, list items, cells...) are the text runs links may go into,
   as the exact linker sees them (``LinkIndex.linkable_blocks``): headings, existing links and code
   are left out.
2. A target's topic is its title, focus keyword and keywords. Blocks and topics become WordLlama
   vectors (``inkwell.ai.meaning``); a block and a target match when their cosine
   similarity (``score``) is at least the ``AI_LINK_SUGGEST_SIMILARITY`` setting.
3. Each target is suggested once, in its best-matching block; the best scores win, one suggestion
   per block first, and no more than ``max_links`` minus the links the article has already.
   Targets it links to already, and the article itself, are never suggested.
4. The anchor text is the run of 1 to ``MAX_ANCHOR_WORDS`` words of that block, starting and
   ending on a content word, whose meaning is closest to the target's topic; never the article's
   own focus keyword (it should rank for it, not send readers away).

Suggesting changes nothing. ``apply_suggestions`` links the chosen ones with the exact linker's
rules, unchanged: each ``anchor_text`` becomes the target's only phrase, so at most one link per
target, never a self-link, never inside headings, links or code, and running it again adds nothing.
"""

from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db import transaction

from inkwell.ai.meaning import MODIFIERS, STOP_WORDS, embed
from inkwell.linker.selectors import Target, link_targets, max_links_setting
from inkwell.linker.services import _WORD, LinkIndex
from inkwell.tenancy.models import Account, User
from inkwell.writer.models import Content
from inkwell.writer.services import content_update

MAX_ANCHOR_WORDS = 5
_EXCERPT = 160


@dataclass(frozen=True)
class Suggestion:
    target_content_id: int
    title: str
    url: str
    anchor_text: str
    score: float
    block: int
    paragraph: str

    def as_dict(self) -> dict:
        return {
            "target_content_id": self.target_content_id,
            "title": self.title,
            "url": self.url,
            "anchor_text": self.anchor_text,
            "score": round(self.score, 3),
            "block": self.block,
            "paragraph": self.paragraph,
        }


def suggest_similarity() -> float:
    return float(settings.INKWELL_AI.get("LINK_SUGGEST_SIMILARITY", 0.35))


def _topic(target: Target) -> str:
    return ". ".join(part for part in (target.title, *target.phrases[:5]) if part)


def _anchors(runs: list[str], own: set[str]) -> list[str]:
    """Runs of 1..MAX_ANCHOR_WORDS words within one text run, starting and ending on a content word."""
    found = []
    for run in runs:
        words = list(_WORD.finditer(run))
        for first in range(len(words)):
            if _plain(words[first].group()):
                continue
            for last in range(first, min(first + MAX_ANCHOR_WORDS, len(words))):
                if _plain(words[last].group()):
                    continue
                text = run[words[first].start() : words[last].end()]
                if " ".join(text.lower().split()) not in own:
                    found.append(text)
    return list(dict.fromkeys(found))


def _plain(word: str) -> bool:
    word = word.lower()
    return word in STOP_WORDS or word in MODIFIERS or word.isdigit()


def _excerpt(text: str) -> str:
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1].rsplit(" ", 1)[0] + "…"


def suggest_links(*, account: Account, content: Content, max_links: int | None = None, minimum: float | None = None) -> list[Suggestion]:
    """Candidate links for ``content`` to the other articles of its site, best first (see the module docstring)."""
    max_links = max_links_setting() if max_links is None else max_links
    minimum = suggest_similarity() if minimum is None else minimum
    targets = [target for target in link_targets(account, content.site_id) if target.content_id != content.pk]
    index = LinkIndex(targets)
    blocks, linked = index.linkable_blocks(content.html, exclude_content_id=content.pk)
    budget = max_links - len(linked)
    candidates = [number for number, target in enumerate(targets) if number not in linked]
    block_texts = [" ".join(" ".join(runs).split()) for runs in blocks]
    if budget <= 0 or not candidates or not any(block_texts):
        return []
    vectors = embed(block_texts + [_topic(targets[number]) for number in candidates])
    scores = vectors[: len(blocks)] @ vectors[len(blocks) :].T  # blocks x candidates
    best_block = scores.argmax(axis=0)
    ranked = sorted(
        ((float(scores[best_block[column], column]), column) for column in range(len(candidates))),
        key=lambda item: (-item[0], candidates[item[1]]),
    )
    ranked = [(score, column) for score, column in ranked if score >= minimum]
    own = {" ".join(content.focus_keyword.lower().split())} if content.focus_keyword else set()
    chosen: list[tuple[float, int]] = []
    used_blocks: set[int] = set()
    for spread in (True, False):
        for score, column in ranked:
            if len(chosen) >= budget:
                break
            block = int(best_block[column])
            if (score, column) in chosen or (spread and block in used_blocks):
                continue
            chosen.append((score, column))
            used_blocks.add(block)
    suggestions = []
    for score, column in chosen:
        target, block = targets[candidates[column]], int(best_block[column])
        anchors = _anchors(blocks[block], own)
        if not anchors:
            continue
        anchor_vectors = embed([_topic(target), *anchors])
        closeness = anchor_vectors[1:] @ anchor_vectors[0]
        best = int(np.argmax(closeness))
        suggestions.append(Suggestion(target.content_id, target.title, target.url, anchors[best], score, block, _excerpt(block_texts[block])))
    return sorted(suggestions, key=lambda suggestion: (-suggestion.score, suggestion.target_content_id))


def apply_suggestions(*, account: Account, content: Content, user: User | None, links: list[dict], max_links: int | None = None) -> dict:
    """Links the chosen ``links`` ({target_content_id, anchor_text}) with the exact linker's rules;
    a link whose target is not another article of the site, or whose anchor text is no longer in
    linkable text, adds nothing. The new body is a new revision."""
    max_links = max_links_setting() if max_links is None else max_links
    anchors: dict[int, list[str]] = {}
    for link in links:
        anchors.setdefault(link["target_content_id"], []).append(link["anchor_text"])
    # Every article stays a target (its existing links count towards max_links); only the chosen ones have a phrase.
    targets = [
        Target(content_id=target.content_id, url=target.url, phrases=tuple(anchors.get(target.content_id, ())), known_urls=target.known_urls)
        for target in link_targets(account, content.site_id)
    ]
    with transaction.atomic():
        current = Content.objects.for_account(account).select_for_update().get(pk=content.pk)
        html, added = LinkIndex(targets).link(current.html, max_links, exclude_content_id=current.pk, own_phrases=[current.focus_keyword])
        if added:
            content_update(account=account, content=current, user=user, html=html)
    return {"content_id": current.pk, "links_added": len(added), "links": [link.as_dict() for link in added]}

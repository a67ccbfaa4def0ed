"""Cannibalization guard (#19): pieces of a site that compete for the same search intent.

A *piece* is an idea (not archived), a writer task or a content of a site, the posts synced from
its CMS included (they are contents with an ``external_id``). Its meaning is the WordLlama vector
(``inkwell.ai.meaning``) of its title and target keywords (an idea's
``target_keywords``, a task's ``keywords``, a content's ``focus_keyword`` and ``keywords``).
Two pieces *overlap* when the cosine similarity of their vectors is at least the threshold
(the ``AI_OVERLAP_SIMILARITY`` setting).

An idea, the task made from it and the contents written for that task are one piece of work at
three stages, not competitors: pieces whose lineages meet are never reported against each other.

Nothing is blocked: creating an idea, a task or a content answers with its ``overlaps`` and flags
the idea or task (``overlap_flagged``); the team decides.

The planner holds the ideas; the pieces of the domains above it (the writer's tasks and
contents) come from the receivers of ``site_pieces_wanted`` (``inkwell.writer.signals``).
"""
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings
from django.db.models import QuerySet
from django.dispatch import Signal

from inkwell.ai.meaning import embed
from inkwell.planner.models import ContentIdea, IdeaStatus

IDEA, TASK, CONTENT = "idea", "task", "content"
# The closest ones only: a long list would bury the one that matters.
MAX_OVERLAPS = 10
_ROWS_PER_PASS = 1024

# Sent with ``account`` and ``site_id`` when a site's pieces are compared; each receiver answers
# with the list of the pieces of that site its domain holds.
site_pieces_wanted = Signal()


@dataclass(frozen=True)
class Piece:
    kind: str
    id: int
    site_id: int
    title: str
    keywords: tuple[str, ...] = ()
    # The piece itself and the pieces it was made from (a task's idea; a content's task and idea).
    lineage: frozenset = field(default_factory=frozenset)

    @property
    def text(self) -> str:
        return ". ".join(part for part in (self.title, ", ".join(self.keywords)) if part)

    def same_work(self, other: "Piece") -> bool:
        return bool(self.lineage & other.lineage)


def threshold() -> float:
    return float(settings.INKWELL_AI.get("OVERLAP_SIMILARITY", 0.7))


def _keywords(*values) -> tuple[str, ...]:
    words = []
    for value in values:
        items = value if isinstance(value, list) else [value]
        words.extend(str(item).strip() for item in items if str(item or "").strip())
    return tuple(dict.fromkeys(words))


def idea_piece(*, id: int, site_id: int, title: str, target_keywords) -> Piece:
    return Piece(IDEA, id, site_id, title, _keywords(target_keywords or []), frozenset({(IDEA, id)}))


def task_piece(*, id: int, site_id: int, title: str, keywords, idea_id: int | None) -> Piece:
    lineage = {(TASK, id)} | ({(IDEA, idea_id)} if idea_id else set())
    return Piece(TASK, id, site_id, title, _keywords(keywords or []), frozenset(lineage))


def content_piece(*, id: int, site_id: int, title: str, focus_keyword: str, keywords, task_id: int | None, idea_id: int | None) -> Piece:
    lineage = {(CONTENT, id)} | ({(TASK, task_id)} if task_id else set()) | ({(IDEA, idea_id)} if idea_id else set())
    return Piece(CONTENT, id, site_id, title, _keywords(focus_keyword, keywords or []), frozenset(lineage))


def idea_pieces(ideas: QuerySet) -> list[Piece]:
    """The pieces of the given (already account-scoped) ideas, archived ones left out: one query."""
    return [
        idea_piece(id=row[0], site_id=row[1], title=row[2], target_keywords=row[3])
        for row in ideas.exclude(status=IdeaStatus.ARCHIVED).order_by("id").values_list("id", "site_id", "title", "target_keywords")
    ]


def site_pieces(*, account, site_id: int) -> list[Piece]:
    """Every piece of the site: its ideas and what the domains above the planner answer."""
    found = idea_pieces(ContentIdea.objects.for_account(account).filter(site_id=site_id))
    for _receiver, answered in site_pieces_wanted.send(sender=ContentIdea, account=account, site_id=site_id):
        found += answered
    return found


def _entry(piece: Piece, similarity: float) -> dict:
    return {"id": piece.id, "kind": piece.kind, "title": piece.title, "similarity": round(similarity, 3)}


def overlaps_of(new: list[Piece], existing: list[Piece], *, minimum: float | None = None) -> list[list[dict]]:
    """For each new piece, the existing pieces of its site at least ``minimum`` similar to it,
    closest first (at most MAX_OVERLAPS); never itself nor its own lineage."""
    if not new:
        return []
    minimum = threshold() if minimum is None else minimum
    vectors = embed([piece.text for piece in new + existing])
    similarities = vectors[: len(new)] @ vectors[len(new) :].T
    answers = []
    for row, piece in enumerate(new):
        close = [
            (float(similarities[row, column]), other)
            for column in np.flatnonzero(similarities[row] >= minimum)
            for other in (existing[column],)
            if other.site_id == piece.site_id and not piece.same_work(other)
        ]
        close.sort(key=lambda item: (-item[0], item[1].kind, item[1].id))
        answers.append([_entry(other, similarity) for similarity, other in close[:MAX_OVERLAPS]])
    return answers


def competing_pairs(found: list[Piece], *, minimum: float | None = None) -> list[dict]:
    """Every pair of pieces of one site at least ``minimum`` similar, closest first."""
    minimum = threshold() if minimum is None else minimum
    pairs = []
    by_site: dict[int, list[Piece]] = {}
    for piece in found:
        by_site.setdefault(piece.site_id, []).append(piece)
    for site_pieces_ in by_site.values():
        vectors = embed([piece.text for piece in site_pieces_])
        for start in range(0, len(site_pieces_), _ROWS_PER_PASS):
            block = vectors[start : start + _ROWS_PER_PASS] @ vectors.T
            rows, columns = np.nonzero(block >= minimum)
            for row, column in zip(rows.tolist(), columns.tolist(), strict=True):
                first, second = site_pieces_[start + row], site_pieces_[column]
                if start + row < column and not first.same_work(second):
                    pairs.append((float(block[row, column]), first, second))
    pairs.sort(key=lambda item: (-item[0], item[1].kind, item[1].id, item[2].kind, item[2].id))
    return [
        {
            "site_id": first.site_id,
            "similarity": round(similarity, 3),
            "first": {"id": first.id, "kind": first.kind, "title": first.title},
            "second": {"id": second.id, "kind": second.kind, "title": second.title},
        }
        for similarity, first, second in pairs
    ]


def guard(*, account, drafts: list[Piece]) -> list[list[dict]]:
    """The overlaps of pieces being created with what their sites have already (their own lineage aside)."""
    existing: list[Piece] = []
    for site_id in sorted({draft.site_id for draft in drafts}):
        existing += site_pieces(account=account, site_id=site_id)
    return overlaps_of(drafts, existing)


def flag_new_ideas(*, account, ideas: list[ContentIdea]) -> None:
    """Sets ``overlaps`` and ``overlap_flagged`` on ideas not saved yet."""
    drafts = [idea_piece(id=idea.pk or 0, site_id=idea.site_id, title=idea.title, target_keywords=idea.target_keywords) for idea in ideas]
    for idea, found in zip(ideas, guard(account=account, drafts=drafts), strict=True):
        idea.overlaps, idea.overlap_flagged = found, bool(found)

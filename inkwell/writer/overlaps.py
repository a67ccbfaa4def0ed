"""Cannibalization guard (#19, ``inkwell.planner.overlaps``): the writer's pieces, its tasks and
contents (the posts synced from the CMS included), and the flags of new tasks and contents."""

from django.db.models import QuerySet

from inkwell.planner.overlaps import Piece, content_piece, guard, idea_pieces, task_piece
from inkwell.writer.models import Content, Task


def writer_pieces(*, tasks: QuerySet, contents: QuerySet) -> list[Piece]:
    """The pieces of the given (already account-scoped) tasks and contents: two queries."""
    found = [
        task_piece(id=row[0], site_id=row[1], title=row[2], keywords=row[3], idea_id=row[4])
        for row in tasks.order_by("id").values_list("id", "site_id", "title", "keywords", "idea_id")
    ]
    found += [
        content_piece(id=row[0], site_id=row[1], title=row[2], focus_keyword=row[3], keywords=row[4], task_id=row[5], idea_id=row[6])
        for row in contents.order_by("id").values_list("id", "site_id", "title", "focus_keyword", "keywords", "task_id", "task__idea_id")
    ]
    return found


def pieces(*, ideas: QuerySet, tasks: QuerySet, contents: QuerySet) -> list[Piece]:
    """The pieces of the given (already account-scoped) querysets: three queries."""
    return idea_pieces(ideas) + writer_pieces(tasks=tasks, contents=contents)


def site_writer_pieces(*, account, site_id: int) -> list[Piece]:
    """The site's tasks and contents as pieces (the writer's answer to ``site_pieces_wanted``)."""
    return writer_pieces(tasks=Task.objects.for_account(account).filter(site_id=site_id), contents=Content.objects.for_account(account).filter(site_id=site_id))


def flag_new_tasks(*, account, tasks: list[Task]) -> None:
    """Sets ``overlaps`` and ``overlap_flagged`` on tasks not saved yet."""
    drafts = [task_piece(id=task.pk or 0, site_id=task.site_id, title=task.title, keywords=task.keywords, idea_id=task.idea_id) for task in tasks]
    for task, found in zip(tasks, guard(account=account, drafts=drafts), strict=True):
        task.overlaps, task.overlap_flagged = found, bool(found)


def content_overlaps(*, account, content: Content) -> list[dict]:
    """The overlaps of a content just created (reported in the answer; a content is not flagged)."""
    idea_id = Task.objects.for_account(account).filter(pk=content.task_id).values_list("idea_id", flat=True).first() if content.task_id else None
    draft = content_piece(
        id=content.pk, site_id=content.site_id, title=content.title, focus_keyword=content.focus_keyword,
        keywords=content.keywords, task_id=content.task_id, idea_id=idea_id,
    )
    return guard(account=account, drafts=[draft])[0]

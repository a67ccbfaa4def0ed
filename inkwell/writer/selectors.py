"""Reads of the writer that more than one interface asks for."""

import difflib

from django.db.models import QuerySet

from inkwell.tenancy.models import Account
from inkwell.writer.models import Content, ContentRevision, Task

DIFFED_FIELDS = ("title", "meta_title", "meta_description", "html")


def revisions_of(account: Account, content: Content) -> QuerySet:
    """The content's earlier versions, newest first."""
    return ContentRevision.objects.for_account(account).filter(content=content)


def _lines(text: str) -> list[str]:
    # Block tags end lines, so that a change shows as the paragraph it is in rather than one long line.
    for tag in ("</p>", "</h2>", "</h3>", "</h4>", "</li>", "</blockquote>", "<br>"):
        text = text.replace(tag, tag + "\n")
    return [line for line in text.splitlines() if line.strip()]


def version_diff(old, new) -> list[dict]:
    """Per field that differs between two versions (revisions or the content itself): the changed
    lines as ``[(op, text)]`` with op ``-``, ``+`` or `` `` (context)."""
    fields = []
    for name in DIFFED_FIELDS:
        before, after = getattr(old, name) or "", getattr(new, name) or ""
        if before == after:
            continue
        lines = []
        for line in difflib.unified_diff(_lines(before), _lines(after), lineterm="", n=1):
            if line.startswith(("---", "+++", "@@")):
                continue
            lines.append((line[:1], line[1:]))
        fields.append({"field": name, "lines": lines})
    return fields


def idea_task_ids(*, account: Account, idea_ids) -> dict[int, int]:
    """``{idea_id: task_id}`` of the ideas that already became a writer task."""
    return dict(Task.objects.for_account(account).filter(idea_id__in=list(idea_ids)).values_list("idea_id", "id"))

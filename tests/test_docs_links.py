"""The documents of the repository (README.md and docs/*.md) stand on their own: every link points
at a file of the repository that exists, and at a heading that file has, or at the running server
on loopback; no document cites one outside the repository."""

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
DOCUMENTS = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
INLINE_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
AUTOLINK = re.compile(r"<((?:https?|ftp|file)://[^>\s]+)>")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
# The running app (`make run` serves on 127.0.0.1:8000) is the one place outside the tree a link may go.
LOOPBACK_HOSTS = {"127.0.0.1", "localhost"}


def prose(path: Path) -> str:
    """The document without its code blocks and code spans, where link-like text is not a link."""
    return CODE_SPAN.sub("", FENCE.sub("", path.read_text()))


def links(path: Path) -> list[str]:
    text = prose(path)
    return INLINE_LINK.findall(text) + AUTOLINK.findall(text)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces made hyphens."""
    text = heading.replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text())):
        base = slug(heading)
        count = seen.get(base, 0)
        found.add(base if count == 0 else f"{base}-{count}")
        seen[base] = count + 1
    return found


def document_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("document", DOCUMENTS, ids=document_id)
def test_every_relative_link_points_at_a_file_of_the_repository(document):
    broken = []
    for target in links(document):
        parts = urlsplit(target)
        if parts.scheme or target.startswith("#"):
            continue
        resolved = (document.parent / unquote(parts.path)).resolve()
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            broken.append(target)
    assert broken == [], f"{document_id(document)} links to files that are not in the repository: {broken}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=document_id)
def test_every_anchor_names_a_heading_of_the_page_it_points_at(document):
    broken = []
    for target in links(document):
        parts = urlsplit(target)
        if parts.scheme or not parts.fragment:
            continue
        page = (document.parent / unquote(parts.path)).resolve() if parts.path else document
        if page.suffix == ".md" and page.exists() and parts.fragment not in anchors(page):
            broken.append(target)
    assert broken == [], f"{document_id(document)} links to headings that do not exist: {broken}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=document_id)
def test_no_document_cites_one_outside_the_repository(document):
    text = document.read_text()
    assert "../shared" not in text, f"{document_id(document)} cites ../shared, which is not in the repository"
    outside = [
        target for target in links(document)
        if urlsplit(target).scheme and urlsplit(target).hostname not in LOOPBACK_HOSTS
    ]
    assert outside == [], f"{document_id(document)} links outside the repository: {outside}"


def test_the_readme_links_every_docs_page():
    linked = {
        (ROOT / unquote(urlsplit(target).path)).resolve()
        for target in links(ROOT / "README.md")
        if not urlsplit(target).scheme and urlsplit(target).path
    }
    unlinked = [document_id(page) for page in sorted(DOCS.glob("*.md")) if page.resolve() not in linked]
    assert unlinked == [], f"README.md does not link these pages: {unlinked}"


def test_a_broken_link_and_a_missing_heading_are_found(tmp_path, monkeypatch):
    """The checks above find what they look for: a page with one of each fails both."""
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    page = tmp_path / "page.md"
    page.write_text("# Title\n\nSee [gone](missing.md), [here](#title), [there](#nowhere).\n\n```\n[code](skipped.md)\n```\n")
    with pytest.raises(AssertionError, match=r"\['missing.md'\]"):
        test_every_relative_link_points_at_a_file_of_the_repository(page)
    with pytest.raises(AssertionError, match=r"\['#nowhere'\]"):
        test_every_anchor_names_a_heading_of_the_page_it_points_at(page)

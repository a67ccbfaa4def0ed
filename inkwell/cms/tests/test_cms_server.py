"""The in-memory WordPress's own promises: other processes can use it, it counts what they did,
and it fails on request. (That it answers as WordPress does is ``test_wordpress_adapter``'s job.)"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import httpx2
import pytest

from inkwell.cms.base import CMSCredentials, CMSUnavailable, PostPayload
from inkwell.cms.tests.cms_server import running_cms_server
from inkwell.cms.wordpress import WordPressAdapter

REPOSITORY = Path(__file__).resolve().parents[3]


def test_another_process_publishes_through_the_server_and_it_counts_the_creates():
    script = textwrap.dedent(
        """
        import sys
        from inkwell.cms.base import CMSCredentials, PostPayload
        from inkwell.cms.wordpress import WordPressAdapter
        url, user, password = sys.argv[1:4]
        with WordPressAdapter(CMSCredentials(url, user, password), timeout=10, allow_private=True) as cms:
            for n in range(3):
                reference = f"proc-{n}"
                if cms.find_post(reference) is None:
                    cms.create_post(PostPayload(reference=reference, title=f"From another process {n}", html="<p>Hi</p>"))
        """
    )
    with running_cms_server() as server:
        for _ in range(2):
            subprocess.run([sys.executable, "-c", script, server.url, server.user, server.app_password], cwd=REPOSITORY, check=True, timeout=60)
        assert server.count("POST", "/wp/v2/posts") == 3
        assert server.count("GET", "/wp/v2/posts") == 6
        assert sorted(post["title"]["raw"] for post in server.posts) == [f"From another process {n}" for n in range(3)]


def test_fail_next_fails_only_the_requests_it_names(cms_server):
    cms_server.fail_next(2, status=503, method="POST", route="/wp/v2/posts")
    with WordPressAdapter(_credentials(cms_server), timeout=5, allow_private=True) as cms:
        assert cms.current_user().name == cms_server.user
        for _ in range(2):
            with pytest.raises(CMSUnavailable):
                cms.create_post(_payload())
        cms.create_post(_payload())
    assert cms_server.count("POST", "/wp/v2/posts") == 3
    assert len(cms_server.posts) == 1


def test_a_delay_without_a_status_answers_normally_late(cms_server):
    cms_server.fail_next(1, status=None, delay=0.3)
    with httpx2.Client(timeout=5) as client:
        response = client.get(f"{cms_server.url}/wp-json/")
    assert response.status_code == 200
    assert response.elapsed.total_seconds() >= 0.3


def _credentials(server) -> CMSCredentials:
    return CMSCredentials(base_url=server.url, username=server.user, app_password=server.app_password)


def _payload() -> PostPayload:
    return PostPayload(reference="retry-me", title="Retried", html="<p>Body</p>")

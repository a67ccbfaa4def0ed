"""The ``wordpress`` fixture's start: a WordPress that cannot start skips, loudly, with the reason."""

from __future__ import annotations

import pytest

from inkwell.cms.tests import wordpress as plugin


def _script(tmp_path, body: str):
    script = tmp_path / "wordpress-up"
    script.write_text(f"#!/usr/bin/env bash\n{body}\n")
    script.chmod(0o755)
    return script


def test_a_failed_start_skips_with_the_scripts_own_reason(tmp_path, monkeypatch):
    failing = "echo 'Reading package lists...' >&2\necho '[wordpress-up] port 8089 is busy with something else' >&2\nexit 1"
    monkeypatch.setattr(plugin, "WORDPRESS_UP", _script(tmp_path, failing))
    monkeypatch.setattr(plugin, "LOCK_FILE", tmp_path / "lock")
    with pytest.raises(pytest.skip.Exception) as skipped:
        plugin._start()
    assert str(skipped.value) == "WordPress could not be started: [wordpress-up] port 8089 is busy with something else — the real-CMS tests did not run"


def test_a_started_wordpress_is_read_from_the_scripts_output(tmp_path, monkeypatch):
    started = "echo WP_URL=http://127.0.0.1:8089\necho WP_USER=admin\necho 'WP_APP_PASSWORD=abcd efgh'"
    monkeypatch.setattr(plugin, "WORDPRESS_UP", _script(tmp_path, started))
    monkeypatch.setattr(plugin, "LOCK_FILE", tmp_path / "lock")
    instance = plugin._start()
    assert (instance.url, instance.user, instance.app_password) == ("http://127.0.0.1:8089", "admin", "abcd efgh")
    assert instance.credentials.base_url == "http://127.0.0.1:8089"


def test_the_environment_that_scripts_test_exports_wins(monkeypatch):
    for name, value in (("URL", "http://127.0.0.1:9999"), ("USER", "editor"), ("APP_PASSWORD", "pw")):
        monkeypatch.setenv(f"INKWELL_TEST_WP_{name}", value)
    assert plugin._from_environment() == plugin.WordPress("http://127.0.0.1:9999", "editor", "pw")
    monkeypatch.delenv("INKWELL_TEST_WP_USER")
    assert plugin._from_environment() is None


def test_a_start_that_scripts_test_saw_fail_is_not_tried_again(tmp_path, monkeypatch):
    monkeypatch.setenv("INKWELL_TEST_WP_ERROR", "[wordpress-up] mariadbd did not come up")
    monkeypatch.setattr(plugin, "WORDPRESS_UP", _script(tmp_path, f"touch {tmp_path / 'ran'}; exit 0"))
    with pytest.raises(pytest.skip.Exception) as skipped:
        plugin.running_wordpress()
    assert str(skipped.value) == "WordPress could not be started: [wordpress-up] mariadbd did not come up — the real-CMS tests did not run"
    assert not (tmp_path / "ran").exists()

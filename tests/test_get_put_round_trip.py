"""What a GET answers can be sent back unchanged to the matching PUT (or PATCH, or save), everywhere
(issue 14): read-only fields a client echoes back are ignored, and the resource stays as it was.
Fields that are not part of the resource still get their field error."""

import pytest

from inkwell.api.tests import assert_error
from inkwell.writer.tests.factories import make_content, make_task

pytestmark = pytest.mark.django_db

# What a save itself changes: the time, and a prompt saved by the account is its own from then on.
DERIVED = {"updated_at", "is_customized"}


def pairs(tenant) -> list[tuple[str, str, str]]:
    """(GET path, write method, write path) of every resource a client reads and writes back whole."""
    content, task = make_content(tenant), make_task(tenant)
    site = tenant.site.pk
    return [
        ("/api/v1/system/settings/integrations/ai_provider/", "put", "/api/v1/system/settings/integrations/ai_provider/"),
        ("/api/v1/system/settings/integrations/image_generation/", "put", "/api/v1/system/settings/integrations/image_generation/"),
        ("/api/v1/system/settings/content/content_generation/", "post", "/api/v1/system/settings/content/content_generation/save/"),
        ("/api/v1/system/settings/content/publishing/", "post", "/api/v1/system/settings/content/publishing/save/"),
        ("/api/v1/system/prompts/clustering/", "put", "/api/v1/system/prompts/clustering/"),
        ("/api/v1/system/modules/", "put", "/api/v1/system/modules/"),
        (f"/api/v1/integration/sites/{site}/unified-settings/", "patch", f"/api/v1/integration/sites/{site}/unified-settings/"),
        (f"/api/v1/integration/sites/{site}/publishing-settings/", "put", f"/api/v1/integration/sites/{site}/publishing-settings/"),
        (f"/api/v1/automation/config/?site_id={site}", "put", f"/api/v1/automation/update_config/?site_id={site}"),
        (f"/api/v1/auth/sites/{site}/", "put", f"/api/v1/auth/sites/{site}/"),
        (f"/api/v1/writer/content/{content.pk}/", "put", f"/api/v1/writer/content/{content.pk}/"),
        (f"/api/v1/writer/tasks/{task.pk}/", "put", f"/api/v1/writer/tasks/{task.pk}/"),
    ]


def test_every_get_can_be_sent_back_unchanged_and_changes_nothing(tenant, as_user):
    client = as_user(tenant.owner)
    refused = {}
    for read, method, write in pairs(tenant):
        before = client.get(read).json()["data"]
        response = getattr(client, method)(write, before, format="json")
        if response.status_code != 200:
            refused[write] = response.json()
            continue
        after = client.get(read).json()["data"]
        changed = {name for name in before if before[name] != after.get(name) and name not in DERIVED}
        assert not changed, (write, changed)
    assert not refused, refused


def test_a_field_that_is_not_part_of_the_resource_is_still_refused(tenant, as_user):
    client = as_user(tenant.owner)
    path = "/api/v1/system/settings/integrations/ai_provider/"
    body = {**client.get(path).json()["data"], "temperature": 0.3}

    assert_error(client.put(path, body, format="json"), 400, "validation_error", errors={"temperature": ["Unknown field"]})

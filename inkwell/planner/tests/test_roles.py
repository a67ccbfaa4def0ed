"""Who may do what in the planner: every role reads; owners, admins and
editors write; editors and viewers only on the sites granted to them; the planner module can be
switched off."""

from dataclasses import dataclass

import pytest

from inkwell.api.tests import assert_error
from inkwell.planner.models import Cluster, ContentIdea, Keyword
from inkwell.planner.tests.conftest import PLANNER
from inkwell.planner.tests.factories import make_cluster, make_idea, make_keyword, make_sector
from inkwell.system import services as system_services
from inkwell.tenancy import services as tenancy
from inkwell.tenancy.models import Site
from inkwell.writer.models import Task

pytestmark = pytest.mark.django_db


@dataclass
class Rows:
    keyword: Keyword
    spare_keyword: Keyword
    cluster: Cluster
    idea: ContentIdea

    def ids(self, planner) -> dict:
        return {
            "keyword": self.keyword.pk,
            "spare_keyword": self.spare_keyword.pk,
            "cluster": self.cluster.pk,
            "idea": self.idea.pk,
            "seed": planner.seeds[5].pk,
            "site": planner.site.pk,
            "sector": planner.sector.pk,
        }


@pytest.fixture
def rows(planner) -> Rows:
    """One row of each planner resource on the planner's site, which the editor and viewer may read."""
    for role in ("editor", "viewer"):
        tenancy.site_access_grant(account=planner.account, actor=planner.tenant.owner, user=planner.tenant.user(role), site=planner.site)
    cluster = make_cluster(planner.tenant, sector=planner.sector)
    keyword = make_keyword(planner.tenant, sector=planner.sector, seed=planner.seeds[0], cluster=cluster)
    spare = make_keyword(planner.tenant, sector=planner.sector, seed=planner.seeds[1], cluster=cluster)
    return Rows(keyword, spare, cluster, make_idea(planner.tenant, sector=planner.sector, cluster=cluster))


def snapshot(account) -> dict:
    return {
        "keywords": list(Keyword.objects.for_account(account).values("id", "status", "cluster_id")),
        "clusters": list(Cluster.objects.for_account(account).values("id", "name", "status")),
        "ideas": list(ContentIdea.objects.for_account(account).values("id", "title", "status")),
        "tasks": list(Task.objects.for_account(account).values("id")),
    }


# Every write of the planner, with a body that succeeds for a role allowed to make it.
WRITES = {
    "create keyword": ("post", "/keywords/", {"seed_keyword_id": "{seed}", "site_id": "{site}", "sector_id": "{sector}"}, 201),
    "put keyword": ("put", "/keywords/{keyword}/", {"status": "paused"}, 200),
    "patch keyword": ("patch", "/keywords/{keyword}/", {"status": "paused"}, 200),
    "delete keyword": ("delete", "/keywords/{keyword}/", None, 204),
    "bulk delete": ("post", "/keywords/bulk_delete/", {"ids": ["{spare_keyword}"]}, 200),
    "bulk status": ("post", "/keywords/bulk_status/", {"ids": ["{keyword}"], "status": "archived"}, 200),
    "add to workflow": ("post", "/keywords/add_to_workflow/", {"seed_keyword_ids": ["{seed}"], "site_id": "{site}", "sector_id": "{sector}"}, 200),
    "create cluster": ("post", "/clusters/", {"name": "New", "site_id": "{site}"}, 201),
    "put cluster": ("put", "/clusters/{cluster}/", {"name": "Renamed"}, 200),
    "patch cluster": ("patch", "/clusters/{cluster}/", {"status": "archived"}, 200),
    "delete cluster": ("delete", "/clusters/{cluster}/", None, 204),
    "auto cluster": ("post", "/clusters/auto_cluster/", {"site_id": "{site}", "keyword_ids": ["{keyword}", "{spare_keyword}"]}, 202),
    "generate ideas": ("post", "/clusters/generate_ideas/", {"cluster_ids": ["{cluster}"]}, 202),
    "create idea": ("post", "/ideas/", {"title": "New idea", "site_id": "{site}"}, 201),
    "put idea": ("put", "/ideas/{idea}/", {"title": "Renamed"}, 200),
    "patch idea": ("patch", "/ideas/{idea}/", {"status": "archived"}, 200),
    "delete idea": ("delete", "/ideas/{idea}/", None, 204),
    "create tasks": ("post", "/ideas/create_tasks/", {"idea_ids": ["{idea}"]}, 200),
}
READS = ["/keywords/", "/keywords/{keyword}/", "/clusters/", "/clusters/{cluster}/", "/ideas/", "/ideas/{idea}/"]


def fill(value, ids: dict):
    if isinstance(value, list):
        return [fill(item, ids) for item in value]
    if isinstance(value, dict):
        return {key: fill(item, ids) for key, item in value.items()}
    if isinstance(value, str) and value.startswith("{"):
        return ids[value[1:-1]]
    return value


def call(client, write, ids):
    method, path, body, _ = write
    return getattr(client, method)(PLANNER + path.format(**ids), fill(body, ids), format="json")


@pytest.mark.parametrize("name", WRITES)
def test_a_viewer_may_change_nothing(planner, rows, as_user, name):
    before = snapshot(planner.account)
    assert_error(call(as_user(planner.tenant.viewer), WRITES[name], rows.ids(planner)), 403, "permission_denied")
    assert snapshot(planner.account) == before


@pytest.mark.parametrize("role", ["owner", "admin", "editor"])
@pytest.mark.parametrize("name", WRITES)
def test_owners_admins_and_granted_editors_may_write(planner, rows, as_user, role, name, eager_jobs):
    before = snapshot(planner.account)
    with eager_jobs():
        response = call(as_user(planner.tenant.user(role)), WRITES[name], rows.ids(planner))
    assert response.status_code == WRITES[name][3], response.content
    assert snapshot(planner.account) != before


@pytest.mark.parametrize("role", ["owner", "admin", "editor", "viewer"])
@pytest.mark.parametrize("path", READS)
def test_every_role_reads_the_planner(planner, rows, as_user, role, path):
    response = as_user(planner.tenant.user(role)).get(PLANNER + path.format(**rows.ids(planner)))
    assert response.status_code == 200, response.content


@pytest.fixture
def hidden(planner):
    """A second site of the account, granted to nobody, with a row of each resource."""
    site = Site.objects.create(account=planner.account, name="Hidden", domain="hidden.example.com", slug=f"hidden-{planner.site.slug}")
    sector = make_sector(planner.tenant, site, industry_sector=planner.sector.industry_sector)
    cluster = make_cluster(planner.tenant, site=site)
    return {
        "site": site,
        "sector": sector,
        "keyword": make_keyword(planner.tenant, site=site, sector=sector, seed=planner.seeds[2]),
        "cluster": cluster,
        "idea": make_idea(planner.tenant, site=site, cluster=cluster),
    }


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_editors_and_viewers_see_only_the_sites_granted_to_them(planner, rows, hidden, as_user, role):
    client = as_user(planner.tenant.user(role))
    for resource, mine in (("keywords", rows.keyword), ("clusters", rows.cluster), ("ideas", rows.idea)):
        assert hidden[resource[:-1]].pk not in [row["id"] for row in client.get(f"{PLANNER}/{resource}/", {"page_size": 100}).json()["results"]]
        assert mine.pk in [row["id"] for row in client.get(f"{PLANNER}/{resource}/", {"page_size": 100}).json()["results"]]
        assert_error(client.get(f"{PLANNER}/{resource}/{hidden[resource[:-1]].pk}/"), 404, "not_found")


def test_an_editor_cannot_write_on_a_site_not_granted_to_them(planner, rows, hidden, as_user):
    client = as_user(planner.tenant.editor)
    before = snapshot(planner.account)

    assert_error(client.put(f"{PLANNER}/keywords/{hidden['keyword'].pk}/", {"status": "paused"}, format="json"), 404, "not_found")
    assert_error(client.delete(f"{PLANNER}/clusters/{hidden['cluster'].pk}/"), 404, "not_found")
    for path, body in (
        ("/keywords/", {"seed_keyword_id": planner.seeds[3].pk, "site_id": hidden["site"].pk, "sector_id": hidden["sector"].pk}),
        ("/keywords/add_to_workflow/", {"seed_keyword_ids": [planner.seeds[3].pk], "site_id": hidden["site"].pk, "sector_id": hidden["sector"].pk}),
        ("/clusters/", {"name": "Mine", "site_id": hidden["site"].pk}),
        ("/clusters/auto_cluster/", {"site_id": hidden["site"].pk}),
        ("/ideas/", {"title": "Mine", "site_id": hidden["site"].pk}),
    ):
        assert_error(client.post(PLANNER + path, body, format="json"), 403, "permission_denied")
    bulk = client.post(f"{PLANNER}/keywords/bulk_delete/", {"ids": [hidden["keyword"].pk]}, format="json").json()["data"]
    assert bulk == {"deleted": 0, "not_found": [hidden["keyword"].pk]}
    generate = client.post(f"{PLANNER}/clusters/generate_ideas/", {"cluster_ids": [hidden["cluster"].pk]}, format="json")
    assert_error(generate, 400, "validation_error", errors={"cluster_ids": [f"Clusters not found: {hidden['cluster'].pk}"]})
    tasks = client.post(f"{PLANNER}/ideas/create_tasks/", {"idea_ids": [hidden["idea"].pk]}, format="json").json()["data"]
    assert tasks["skipped"] == [{"idea_id": hidden["idea"].pk, "reason": "not_found", "task_id": None}]
    assert snapshot(planner.account) == before


def test_the_planner_answers_module_disabled_when_switched_off(planner, rows, owner):
    system_services.modules_save(account=planner.account, modules={"planner": False})
    for path in ("/keywords/", "/clusters/", "/ideas/"):
        assert_error(owner.get(PLANNER + path), 403, "module_disabled")
    assert_error(owner.post(f"{PLANNER}/keywords/bulk_delete/", {"ids": [rows.keyword.pk]}, format="json"), 403, "module_disabled")
    assert Keyword.objects.for_account(planner.account).filter(pk=rows.keyword.pk).exists()

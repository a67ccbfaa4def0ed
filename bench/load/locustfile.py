"""A content team at work, for the load test (bench/load/run starts it; see docs/benchmarks.md, "Load test with faults").

Each simulated user is one team: on start it signs up its own account, makes a site with a sector
of the keywords library, connects the site to the counting CMS (LOAD_CMS_URL, LOAD_CMS_USER,
LOAD_CMS_PASSWORD) and adds a first batch of keywords. Then it browses and filters the library,
reads its planner and writer lists, adds keywords, clusters them, drafts articles and makes images
(the offline ``local`` provider), moves drafts through review to approved, schedules approved
content a few seconds ahead (or publishes it now), and reads its notifications and credits.

Every answer is written to LOAD_EVENTS_FILE as a JSON line (time, endpoint, status, duration,
request id, and the body of a 5xx) for the run's checks. An answer is a failure in Locust's
table unless it is one the endpoint may give in the situation (``expect``).
"""

import json
import os
import random
import uuid
from datetime import UTC, datetime, timedelta

from locust import HttpUser, between, events, task

API = "/api/v1"
PASSWORD = "load-test-password-1"
SCHEDULE_AHEAD_SECONDS = (5, 40)
EVENTS_FILE = os.environ.get("LOAD_EVENTS_FILE", "load-events.jsonl")
_events = open(EVENTS_FILE, "a", buffering=1)  # noqa: SIM115  (open for the process's life; one line per answer)


@events.request.add_listener
def _record(request_type, name, response_time, response_length, response=None, context=None, exception=None, start_time=None, **_):
    status = getattr(response, "status_code", 0) or 0
    line = {"t": start_time, "name": name, "method": request_type, "status": status, "ms": round(response_time or 0, 1)}
    headers = getattr(response, "headers", None) or {}
    if headers.get("X-Request-ID"):
        line["rid"] = headers["X-Request-ID"]
    if status >= 500 or status == 0:
        line["body"] = (getattr(response, "text", "") or "")[:500]
        if exception is not None:
            line["error"] = f"{type(exception).__name__}: {exception}"[:300]
    if context and context.get("content_id"):
        line["content_id"] = context["content_id"]
    _events.write(json.dumps(line) + "\n")


class ContentTeam(HttpUser):
    wait_time = between(0.5, 2.5)

    # -- plumbing -------------------------------------------------------------------------

    def call(self, method: str, path: str, name: str, *, expect=(200,), json_body=None, params=None, context=None):
        """One request; the answer's data (or None). Statuses outside ``expect`` are failures."""
        headers = {"Authorization": f"Bearer {self.token}"} if getattr(self, "token", None) else {}
        if method == "POST" and name.endswith(("generate_content/", "generate_images/", "auto_cluster/")):
            headers["Idempotency-Key"] = uuid.uuid4().hex
        with self.client.request(method, API + path, name=name, json=json_body, params=params, headers=headers, catch_response=True, context=context or {}) as response:
            if response.status_code not in expect:
                response.failure(f"{response.status_code}: {response.text[:200]}")
                return None
            response.success()
            try:
                return response.json()
            except ValueError:
                return None

    def listed(self, path: str, name: str, **params) -> list[dict]:
        body = self.call("GET", path, name, params=params)
        return (body or {}).get("results") or []

    # -- start: one account, one site connected to the counting CMS ------------------------

    def on_start(self):
        self.token = None
        email = f"team-{uuid.uuid4().hex[:12]}@example.com"
        self.call("POST", "/auth/register/", "/auth/register/", expect=(201,), json_body={"email": email, "password": PASSWORD})
        login = self.call("POST", "/auth/login/", "/auth/login/", json_body={"email": email, "password": PASSWORD})
        if login is None:
            raise RuntimeError("login failed")
        self.token = login["data"]["access"]
        site = self.call("POST", "/auth/sites/", "/auth/sites/", expect=(201,), json_body={"name": f"Team blog {uuid.uuid4().hex[:8]}", "domain": f"{uuid.uuid4().hex[:10]}.example.com"})
        self.site_id = site["data"]["id"]
        stats = self.call("GET", "/keywords-library/sector_stats/", "/keywords-library/sector_stats/")["data"]
        library_sector = random.choice([row for row in stats if row["stats"]["total"] >= 50])
        self.library_sector_id = library_sector["sector_id"]
        sector = self.call("POST", "/auth/sectors/", "/auth/sectors/", expect=(201,), json_body={"site_id": self.site_id, "industry_sector_id": self.library_sector_id})
        self.sector_id = sector["data"]["id"]
        self.call(
            "POST",
            "/integration/",
            "/integration/",
            expect=(201,),
            json_body={
                "site_id": self.site_id,
                "platform": "wordpress",
                "base_url": os.environ["LOAD_CMS_URL"],
                "username": os.environ["LOAD_CMS_USER"],
                "app_password": os.environ["LOAD_CMS_PASSWORD"],
            },
        )
        self.jobs: list[int] = []
        self.add_keywords()

    # -- reading ----------------------------------------------------------------------------

    @task(8)
    def browse_library(self):
        # Unfiltered, a sector of the mix (50 keywords or more) has two full pages; a filtered
        # list is read from its first page (a page past the end is a 404).
        params = {"sector_ids": self.library_sector_id, "page": random.randint(1, 2), "ordering": random.choice(["-volume", "keyword", "difficulty", "-difficulty"])}
        choice = random.random()
        if choice < 0.4:
            params.update(page=1, difficulty=random.choice(["easy", "medium", "hard", "very_hard"]))
        elif choice < 0.7:
            params.update(page=1, search=random.choice(["best", "how", "for", "s"]))
        elif choice < 0.8:
            params.update(page=1, volume_min=random.choice([10, 100, 1000]))
        self.call("GET", "/keywords-library/", "/keywords-library/ (filtered)", params=params)

    @task(2)
    def library_stats(self):
        self.call("GET", "/keywords-library/sector_stats/", "/keywords-library/sector_stats/", params={"site_id": self.site_id})

    @task(5)
    def planner_lists(self):
        kind = random.choice(["keywords", "clusters", "ideas"])
        self.call("GET", f"/planner/{kind}/", f"/planner/{kind}/", params={"site_id": self.site_id})

    @task(5)
    def writer_lists(self):
        if random.random() < 0.5:
            self.call("GET", "/writer/tasks/", "/writer/tasks/", params={"site_id": self.site_id})
        else:
            self.call("GET", "/writer/content/", "/writer/content/", params={"site_id": self.site_id, "status": random.choice(["draft", "approved", "published"])})

    @task(3)
    def notifications(self):
        self.call("GET", "/notifications/", "/notifications/")

    @task(3)
    def credits(self):
        path = random.choice(["/billing/balance/", "/billing/usage/", "/billing/transactions/"])
        self.call("GET", path, path)

    @task(2)
    def follow_a_job(self):
        if self.jobs:
            self.call("GET", f"/jobs/{random.choice(self.jobs[-10:])}/", "/jobs/[id]/")

    # -- planning and writing ------------------------------------------------------------

    @task(2)
    def add_keywords(self):
        page = self.listed("/keywords-library/", "/keywords-library/ (filtered)", sector_ids=self.library_sector_id, page=random.randint(1, 2), ordering="-volume")
        if page:
            ids = [row["id"] for row in random.sample(page, min(len(page), 8))]
            # 403 plan_limit_reached: the free plan's keyword limit, a refusal the team may meet.
            self.call("POST", "/planner/keywords/add_to_workflow/", "/planner/keywords/add_to_workflow/", expect=(200, 201, 403), json_body={"seed_keyword_ids": ids, "site_id": self.site_id, "sector_id": self.sector_id})

    def _started(self, body):
        if body and body.get("data", {}).get("job_id"):
            self.jobs.append(body["data"]["job_id"])

    @task(1)
    def cluster(self):
        # 400: no unclustered keyword left to cluster, which a team may well ask for.
        self._started(self.call("POST", "/planner/clusters/auto_cluster/", "/planner/clusters/auto_cluster/", expect=(202, 400), json_body={"site_id": self.site_id, "sector_id": self.sector_id}))

    @task(2)
    def draft(self):
        created = self.call(
            "POST",
            "/writer/tasks/",
            "/writer/tasks/",
            expect=(201,),
            json_body={"title": f"Guide {uuid.uuid4().hex[:6]}", "site_id": self.site_id, "sector_id": self.sector_id, "word_count": random.choice([300, 600, 900])},
        )
        if created:
            task_id = created["data"]["id"]
            self._started(self.call("POST", f"/writer/tasks/{task_id}/generate_content/", "/writer/tasks/[id]/generate_content/", expect=(202,), json_body={}))

    @task(1)
    def images(self):
        drafts = self.listed("/writer/content/", "/writer/content/", site_id=self.site_id, status="draft")
        if drafts:
            content_id = random.choice(drafts)["id"]
            self._started(self.call("POST", f"/writer/content/{content_id}/generate_images/", "/writer/content/[id]/generate_images/", expect=(202,), json_body={"count": 1}))

    # -- review and publishing -------------------------------------------------------------

    @task(3)
    def approve(self):
        drafts = self.listed("/writer/content/", "/writer/content/", site_id=self.site_id, status="draft")
        if drafts:
            content_id = random.choice(drafts)["id"]
            path, name = f"/writer/content/{content_id}/update_content/", "/writer/content/[id]/update_content/"
            if self.call("POST", path, name, json_body={"status": "review"}):
                self.call("POST", path, name, json_body={"status": "approved"})

    def _approved_unpublished(self) -> list[dict]:
        return self.listed("/writer/content/", "/writer/content/", site_id=self.site_id, status="approved", site_status="not_published")

    @task(3)
    def schedule(self):
        approved = self._approved_unpublished()
        if approved:
            content_id = random.choice(approved)["id"]
            when = datetime.now(UTC) + timedelta(seconds=random.randint(*SCHEDULE_AHEAD_SECONDS))
            self.call(
                "POST",
                f"/writer/content/{content_id}/schedule/",
                "/writer/content/[id]/schedule/",
                json_body={"scheduled_publish_at": when.isoformat()},
                context={"content_id": content_id},
            )

    @task(1)
    def publish_now(self):
        approved = self._approved_unpublished()
        if approved:
            content_id = random.choice(approved)["id"]
            self.call("POST", f"/writer/content/{content_id}/publish_to_cms/", "/writer/content/[id]/publish_to_cms/", context={"content_id": content_id})

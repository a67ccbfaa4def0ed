"""The plan-and-write flow through the console's pages, as a browser without JavaScript sends it."""

import re

import pytest
from django.core import mail

from inkwell.billing.models import CreditLedger
from inkwell.jobs.models import Job, JobStatus
from inkwell.planner.models import Cluster, ContentIdea, Keyword
from inkwell.tenancy.models import Sector, Site, User
from inkwell.writer.models import Content, ContentRevision, ContentStatus, Image, Task
from inkwell.writer.quality import site_editorial

pytestmark = pytest.mark.django_db


def test_root_redirects_to_the_console_and_the_console_asks_to_sign_in(client):
    assert client.get("/").headers["Location"] == "/app/"
    response = client.get("/app/")
    assert response.status_code == 302 and response.headers["Location"].startswith("/app/signin/")


def test_sign_up_creates_the_account_and_signs_in(client):
    response = client.post("/app/signup/", {"email": "new@example.com", "password": "a long password", "account_name": "Team"})
    assert response.status_code == 302 and response.headers["Location"] == "/app/sites/new/"
    user = User.dangerously_unscoped.get(email="new@example.com")
    assert user.account.name == "Team" and user.role_name == "owner"
    assert client.get("/app/sites/new/").status_code == 200


def test_sign_up_shows_the_apis_field_messages(client):
    response = client.post("/app/signup/", {"email": "not-an-email", "password": "short"})
    assert response.status_code == 400
    assert not User.dangerously_unscoped.filter(email="not-an-email").exists()
    assert "Password must be at least 8 characters" in response.content.decode()


def test_wrong_password_does_not_sign_in(client, tenant):
    response = client.post("/app/signin/", {"email": tenant.owner.email, "password": "wrong password"})
    assert response.status_code == 401
    assert "_auth_user_id" not in client.session


def test_sign_in_goes_to_the_page_asked_for(client, tenant):
    response = client.post("/app/signin/", {"email": tenant.owner.email, "password": "correct-horse-1", "next": "/app/notifications/"})
    assert response.headers["Location"] == "/app/notifications/"
    assert client.session["_auth_user_id"] == str(tenant.owner.pk)


def test_sign_in_never_redirects_to_another_host(client, tenant):
    response = client.post("/app/signin/", {"email": tenant.owner.email, "password": "correct-horse-1", "next": "https://evil.example/"})
    assert response.headers["Location"] == "/app/"


def test_password_reset_mails_a_console_link_that_sets_the_password(client, tenant, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert client.post("/app/password-reset/", {"email": tenant.owner.email}).status_code == 200
    link = re.search(r"http://testserver(/app/password-reset/\S+/)", mail.outbox[0].body).group(1)
    assert client.post(link, {"new_password": "a brand new one"}).status_code == 200
    tenant.owner.refresh_from_db()
    assert tenant.owner.check_password("a brand new one")
    assert client.post(link, {"new_password": "yet another one"}).status_code == 400  # a token works once


def test_first_site_then_industry_sectors_become_the_sites_sectors(console_client, big_tenant, industry_sector):
    tenant = big_tenant
    client = console_client(tenant.owner)
    response = client.post("/app/sites/new/", {"name": "Running blog", "domain": "https://run.example.com/", "time_zone": "Europe/Berlin"})
    site = Site.objects.for_account(tenant.account).get(name="Running blog")
    assert response.headers["Location"] == f"/app/sites/{site.pk}/sectors/"
    assert (site.domain, site.time_zone) == ("run.example.com", "Europe/Berlin")
    assert site_editorial(site=site).brief_required  # a team starting in the console is led through briefs
    page = client.get(f"/app/sites/{site.pk}/sectors/?industry={industry_sector.industry_id}").content.decode()
    assert industry_sector.name in page
    client.post(f"/app/sites/{site.pk}/sectors/", {"industry_sector_ids": [industry_sector.pk]})
    assert list(Sector.objects.for_account(tenant.account).filter(site=site).values_list("industry_sector_id", flat=True)) == [industry_sector.pk]


def test_an_unknown_time_zone_is_refused_with_the_apis_message(console_client, big_tenant):
    tenant = big_tenant
    response = console_client(tenant.owner).post("/app/sites/new/", {"name": "X", "domain": "x.example.com", "time_zone": "Mars/Olympus"})
    assert response.status_code == 400
    assert "Unknown time zone" in response.content.decode()
    assert not Site.objects.for_account(tenant.account).filter(name="X").exists()


def test_the_library_shows_the_cost_before_adding_and_adding_charges_it(console_client, big_tenant, library):
    sector, seeds = library
    seeds[0].is_paid, seeds[0].credit_cost = True, 3
    seeds[0].save()
    client = console_client(big_tenant.owner)
    site = big_tenant.site
    page = client.get(f"/app/sites/{site.pk}/library/?sector={sector.pk}&search=running").content.decode()
    assert "best running shoes" in page
    chosen = [seed.pk for seed in seeds[:4]]
    before = CreditLedger.objects.for_account(big_tenant.account).get().balance
    review = client.post(f"/app/sites/{site.pk}/library/review/", {"sector_id": sector.pk, "seed_keyword_ids": chosen}).content.decode()
    assert "Add 4 keywords" in review and "3 credits" in review
    assert not Keyword.objects.for_account(big_tenant.account).exists()  # reviewing adds nothing
    client.post(f"/app/sites/{site.pk}/library/add/", {"sector_id": sector.pk, "seed_keyword_ids": chosen})
    assert Keyword.objects.for_account(big_tenant.account).filter(site=site).count() == 4
    assert CreditLedger.objects.for_account(big_tenant.account).get().balance == before - 3


def test_a_short_balance_shows_what_is_needed_and_available_and_adds_nothing(console_client, big_tenant, library, funded):
    sector, seeds = library
    seeds[0].is_paid, seeds[0].credit_cost = True, 50
    seeds[0].save()
    funded(7)
    response = console_client(big_tenant.owner).post(
        f"/app/sites/{big_tenant.site.pk}/library/add/", {"sector_id": sector.pk, "seed_keyword_ids": [seeds[0].pk]}
    )
    assert response.status_code == 402
    text = re.sub(r"\s+", " ", response.content.decode())
    assert "This needs <strong>50</strong> credits; you have <strong>7</strong> available." in text
    assert not Keyword.objects.for_account(big_tenant.account).exists()


def _plan_keywords(client, tenant, sector, seeds):
    client.post(f"/app/sites/{tenant.site.pk}/library/add/", {"sector_id": sector.pk, "seed_keyword_ids": [seed.pk for seed in seeds]})


def test_plan_and_write_from_keywords_to_an_approved_article_with_images(console_client, big_tenant, library, eager_jobs):
    sector, seeds = library
    client = console_client(big_tenant.owner)
    site = big_tenant.site
    _plan_keywords(client, big_tenant, sector, seeds)

    with eager_jobs():
        response = client.post(f"/app/sites/{site.pk}/keywords/cluster/")
    job = Job.objects.for_account(big_tenant.account).get(kind="planner.auto_cluster")
    assert response.headers["Location"] == f"/app/jobs/{job.pk}/"
    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED
    assert "See the result" in client.get(f"/app/jobs/{job.pk}/").content.decode()
    clusters = list(Cluster.objects.for_account(big_tenant.account).filter(site=site))
    assert clusters and f"/app/clusters/{clusters[0].pk}/" in client.get(f"/app/sites/{site.pk}/clusters/").content.decode()

    with eager_jobs():
        client.post(f"/app/sites/{site.pk}/clusters/ideas/", {"ids": [clusters[0].pk], "ideas_per_cluster": 2})
    ideas = list(ContentIdea.objects.for_account(big_tenant.account).filter(cluster=clusters[0]))
    assert len(ideas) == 2
    assert ideas[0].title in client.get(f"/app/clusters/{clusters[0].pk}/").content.decode()

    client.post(f"/app/sites/{site.pk}/ideas/tasks/", {"ids": [ideas[0].pk]})
    task = Task.objects.for_account(big_tenant.account).get(idea=ideas[0])
    assert task.title in client.get(f"/app/sites/{site.pk}/tasks/").content.decode()

    with eager_jobs():
        client.post(f"/app/tasks/{task.pk}/generate/")
    content = Content.objects.for_account(big_tenant.account).get(task=task)
    editor = client.get(f"/app/content/{content.pk}/").content.decode()
    assert content.title in editor and "/ 100" in editor and "Send to review" in editor

    saved = client.post(f"/app/content/{content.pk}/", {"title": "A better title", "html": "<p>New body</p><script>x()</script>", "meta_title": "Short"})
    assert saved.status_code == 302
    content.refresh_from_db()
    assert (content.title, content.html, content.meta_title) == ("A better title", "<p>New body</p>", "Short")
    revision = ContentRevision.objects.for_account(big_tenant.account).get(content=content)
    diff = client.get(f"/app/content/{content.pk}/revisions/?a={revision.pk}&b=current").content.decode()
    assert "A better title" in diff and "diff__line--add" in diff

    with eager_jobs():
        client.post(f"/app/content/{content.pk}/images/")
    images = list(Image.objects.for_account(big_tenant.account).filter(content=content))
    assert images and all(image.status == "generated" for image in images)
    client.post(f"/app/images/{images[0].pk}/alt-text/", {"alt_text": "A runner on a trail at dawn"})
    images[0].refresh_from_db()
    assert images[0].alt_text == "A runner on a trail at dawn"

    client.post(f"/app/content/{content.pk}/status/", {"status": "review"})
    client.post(f"/app/content/{content.pk}/status/", {"status": "approved"})
    content.refresh_from_db()
    assert content.status == ContentStatus.APPROVED


def test_a_meta_title_over_its_limit_is_refused_with_the_apis_message(console_client, big_tenant, library):
    content = Content.objects.create(account=big_tenant.account, site=big_tenant.site, title="T", html="<p>x</p>")
    response = console_client(big_tenant.owner).post(f"/app/content/{content.pk}/", {"title": "T", "meta_title": "x" * 61})
    assert response.status_code == 400
    assert "Meta title must be at most 60 characters" in response.content.decode()
    content.refresh_from_db()
    assert content.meta_title == ""


def test_a_workflow_step_that_does_not_exist_is_a_conflict(console_client, big_tenant):
    content = Content.objects.create(account=big_tenant.account, site=big_tenant.site, title="T")
    response = console_client(big_tenant.owner).post(f"/app/content/{content.pk}/status/", {"status": "approved"})
    assert response.status_code == 409
    content.refresh_from_db()
    assert content.status == ContentStatus.DRAFT


def test_htmx_job_start_answers_the_live_progress_fragment(console_client, big_tenant, library):
    sector, seeds = library
    client = console_client(big_tenant.owner)
    _plan_keywords(client, big_tenant, sector, seeds)
    response = client.post(f"/app/sites/{big_tenant.site.pk}/keywords/cluster/", HTTP_HX_REQUEST="true")
    job = Job.objects.for_account(big_tenant.account).get(kind="planner.auto_cluster")
    assert response.status_code == 202
    body = response.content.decode()
    assert f'hx-get="/app/jobs/{job.pk}/"' in body and 'hx-trigger="every 1s"' in body and "<html" not in body


def test_htmx_refusals_are_swapped_into_the_flash_region_with_their_status(console_client, big_tenant):
    content = Content.objects.create(account=big_tenant.account, site=big_tenant.site, title="T")
    response = console_client(big_tenant.owner).post(f"/app/content/{content.pk}/status/", {"status": "approved"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 409
    assert response.headers["HX-Retarget"] == "#flash"
    assert "Content cannot move from draft to approved" in response.content.decode()


def test_notifications_bell_list_and_mark_read(console_client, big_tenant, library):
    from inkwell.notifications.services import notify

    notify(account=big_tenant.account, notification_type="system_info", title="Hello", message="Welcome to the console")
    client = console_client(big_tenant.owner)
    assert 'aria-label="Notifications, 1 unread"' in client.get("/app/notifications/bell/").content.decode()
    page = client.get("/app/notifications/").content.decode()
    note_id = re.search(r"/app/notifications/(\d+)/read/", page).group(1)
    client.post(f"/app/notifications/{note_id}/read/")
    assert 'aria-label="Notifications, 0 unread"' in client.get("/app/notifications/bell/").content.decode()


def test_console_sign_in_counts_against_the_apis_auth_rate_limit(client, tenant, settings):
    settings.INKWELL_RATE_LIMITS = {**settings.INKWELL_RATE_LIMITS, "auth": 2}
    for _ in range(2):
        assert client.post("/app/signin/", {"email": tenant.owner.email, "password": "wrong password"}).status_code == 401
    refused = client.post("/app/signin/", {"email": tenant.owner.email, "password": "correct-horse-1"})
    assert refused.status_code == 429
    assert "_auth_user_id" not in client.session


def test_ai_buttons_count_against_the_apis_ai_rate_limit(console_client, big_tenant, library, settings):
    settings.INKWELL_RATE_LIMITS = {**settings.INKWELL_RATE_LIMITS, "ai": 1}
    sector, seeds = library
    client = console_client(big_tenant.owner)
    _plan_keywords(client, big_tenant, sector, seeds)
    assert client.post(f"/app/sites/{big_tenant.site.pk}/keywords/cluster/").status_code == 302
    assert client.post(f"/app/sites/{big_tenant.site.pk}/keywords/cluster/").status_code == 429
    assert Job.objects.for_account(big_tenant.account).filter(kind="planner.auto_cluster").count() == 1


def test_the_site_menu_switches_to_an_own_site_and_refuses_another_accounts(console_client, big_tenant, other_tenant):
    client = console_client(big_tenant.owner)
    second = Site.objects.create(account=big_tenant.account, name="Second", domain="second.example.com", slug="second-console")
    response = client.get(f"/app/?site={second.pk}")
    assert response.headers["Location"] == f"/app/sites/{second.pk}/keywords/"
    assert client.session["console_site_id"] == second.pk
    assert client.get(f"/app/?site={other_tenant.site.pk}").status_code == 404
    assert client.session["console_site_id"] == second.pk


def test_repeated_failed_console_sign_ins_lock_the_address_as_the_api_does(client, tenant, settings, api_client):
    settings.INKWELL_LOGIN = {"LOCK_THRESHOLD": 3, "LOCK_SECONDS": 30, "LOCK_MAX_SECONDS": 900, "FAILURE_WINDOW_SECONDS": 3600}
    for _ in range(3):
        assert client.post("/app/signin/", {"email": tenant.owner.email, "password": "wrong password"}).status_code == 401
    locked = client.post("/app/signin/", {"email": tenant.owner.email, "password": "correct-horse-1"})
    assert locked.status_code == 429
    assert "_auth_user_id" not in client.session
    # One lock for both ways in: the API refuses the right password too.
    assert api_client.post("/api/v1/auth/login/", {"email": tenant.owner.email, "password": "correct-horse-1"}, format="json").status_code == 429


def test_a_switched_off_module_shows_no_button_and_refuses_a_post(console_client, big_tenant):
    from inkwell.system.models import ModuleSetting

    ModuleSetting.objects.create(account=big_tenant.account, module="optimizer", enabled=False)
    content = Content.objects.create(account=big_tenant.account, site=big_tenant.site, title="T", html="<p>x</p>")
    client = console_client(big_tenant.owner)
    editor = client.get(f"/app/content/{content.pk}/").content.decode()
    assert f"/app/content/{content.pk}/optimize/" not in editor and f"/app/content/{content.pk}/link/" in editor
    assert client.post(f"/app/content/{content.pk}/optimize/").status_code == 403
    assert not Job.objects.for_account(big_tenant.account).exists()


def test_the_keywords_page_refuses_a_broken_range_with_the_apis_message(console_client, big_tenant):
    response = console_client(big_tenant.owner).get(f"/app/sites/{big_tenant.site.pk}/keywords/", {"volume_min": "10", "volume_max": "5"})
    assert response.status_code == 400
    assert "volume_max must be greater than or equal to volume_min" in response.content.decode()


def test_add_internal_links_says_what_it_added_and_says_so_when_it_added_none(console_client, big_tenant):
    from inkwell.linker.tests.factories import make_article, live_url

    target = make_article(big_tenant, "Trail running shoes", focus_keyword="trail running shoes")
    make_article(big_tenant, "How to choose the right vegetable garden", focus_keyword="vegetable garden", live=False)
    content = make_article(big_tenant, "Race day", "<p>Good trail running shoes matter in a vegetable garden.</p>", live=False)
    client = console_client(big_tenant.owner)

    editor = client.post(f"/app/content/{content.pk}/link/", follow=True).content.decode()
    assert f"Added 1 internal link: “trail running shoes” to {live_url(big_tenant.site, 'trail-running-shoes')}." in editor
    content.refresh_from_db()
    assert f'<a href="{target.external_url}">trail running shoes</a>' in content.html
    assert "vegetable-garden" not in content.html  # a draft: no link to a page the site does not have

    again = client.post(f"/app/content/{content.pk}/link/", follow=True).content.decode()
    assert "No internal links were added" in again and "Internal links were added" not in again
    assert "Added 1 internal link" not in again

"""Live progress of a job, and the notifications bell."""

from django.core.paginator import Paginator
from django.urls import reverse

from inkwell.console.base import ConsoleView, console_path, get_scoped, job_changed, validated
from inkwell.jobs import selectors as job_selectors
from inkwell.jobs.models import Job
from inkwell.notifications import selectors, services
from inkwell.notifications.models import PERSONAL_EVENTS, Notification
from inkwell.notifications.serializers import PreferencesInputSerializer
from inkwell.tenancy.access import accessible_site_ids
from inkwell.tenancy.permissions import ALL_ROLES

PAGE_SIZE = 30


class JobView(ConsoleView):
    """A job's progress: htmx polls the fragment while the job runs; without JavaScript the page refreshes itself."""

    model = Job
    template_name = "console/pages/job.html"
    fragment_template = "console/components/job_progress.html"

    polled_job: Job | None = None  # read by poll_state, then drawn without reading it again

    def poll_state(self, request, pk):
        self.polled_job = job_selectors.job_progress(account_id=request.account.pk, site_ids=accessible_site_ids(request), job_id=pk)
        if self.polled_job is None:
            return None
        # A queued job's place in the queue changes while nothing of its own does: part of the state.
        return (*job_selectors.progress_state(self.polled_job), job_selectors.queue_position(self.polled_job))

    def get(self, request, pk):
        job = self.polled_job or get_scoped(Job, request, pk)
        response = self.page(request, {"job": job, "queue_position": job_selectors.queue_position(job)})
        if request.htmx and not job.is_active:
            # The poll that finds the job ended: the fragments showing its subject fetch themselves again.
            job_changed(response, job)
        return response


def inbox(request):
    return selectors.notification_list(request.account, user=request.user, site_ids=accessible_site_ids(request))


class NotificationsView(ConsoleView):
    template_name = "console/pages/notifications.html"
    fragment_template = "console/pages/notifications_results.html"

    def get(self, request):
        notifications = inbox(request)
        if request.GET.get("unread"):
            notifications = notifications.filter(is_read=False)
        page = Paginator(notifications.order_by("-created_at", "-id"), PAGE_SIZE).get_page(request.GET.get("page"))
        return self.page(request, {"page_obj": page, "unread_only": bool(request.GET.get("unread"))})


class CreditBalanceView(ConsoleView):
    """The header's credits (refreshed when a job starts or ends)."""

    def get(self, request):
        return self.page(request, {}, template="console/components/credit_balance.html")


class BellView(ConsoleView):
    """The header's bell with the unread count (htmx refreshes it every minute)."""

    unread_count: int | None = None  # read by poll_state, then drawn without reading it again

    def poll_state(self, request):
        self.unread_count = selectors.unread_count(request.account, user=request.user, site_ids=accessible_site_ids(request))
        return self.unread_count

    def get(self, request):
        context = {} if self.unread_count is None else {"unread_count": self.unread_count}
        return self.page(request, context, template="console/components/bell.html")


class NotificationReadView(ConsoleView):
    """Mark one read: every role keeps its own inbox (``write_roles`` as the API's)."""

    model = Notification
    write_roles = ALL_ROLES

    def post(self, request, pk):
        notification = get_scoped(Notification, request, pk, queryset=inbox(request))
        services.mark_read(account=request.account, notification_id=notification.pk, user=request.user)
        return self.done_back(request, default=reverse("console:notifications"))


class NotificationOpenView(ConsoleView):
    """Opening a notification marks it read and leads to its subject's page (its ``action_url``,
    when that is one of the console's own paths)."""

    model = Notification
    write_roles = ALL_ROLES

    def post(self, request, pk):
        notification = get_scoped(Notification, request, pk, queryset=inbox(request))
        services.mark_read(account=request.account, notification_id=notification.pk, user=request.user)
        return self.done(request, console_path(notification.action_url, default=reverse("console:notifications")))


class NotificationsReadAllView(ConsoleView):
    write_roles = ALL_ROLES

    def post(self, request):
        services.mark_all_read(account=request.account, user=request.user, site_ids=accessible_site_ids(request))
        return self.done(request, reverse("console:notifications"))




class NotificationPreferencesView(ConsoleView):
    """A person's own channels (in the app, by e-mail) for the events addressed to them, such as
    being @mentioned: the API's ``/notifications/preferences/`` on a screen. Every role keeps its own."""

    template_name = "console/pages/notification_preferences.html"
    write_roles = ALL_ROLES

    def get(self, request):
        return self.page(request, {"preferences": selectors.preferences_of(user=request.user), "saved": bool(request.GET.get("saved"))})

    def post(self, request):
        # An unticked box sends nothing: every channel of every event is stated, on or off.
        changes = [
            {"notification_type": event, "in_app": f"{event}-in_app" in request.POST, "email": f"{event}-email" in request.POST} for event in PERSONAL_EVENTS
        ]
        services.preferences_update(account=request.account, user=request.user, changes=validated(PreferencesInputSerializer, request, {"preferences": changes})["preferences"])
        return self.done(request, reverse("console:notification-preferences") + "?saved=1")

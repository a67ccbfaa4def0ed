from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path

from inkwell.notifications import services
from inkwell.notifications.models import TITLE_MAX_LENGTH, Notification, NotificationReceipt
from inkwell.tenancy.admin import AllAccountsAdmin
from inkwell.tenancy.models import Account

ANNOUNCE_PERMISSION = "notifications.add_notification"


class AnnouncementForm(forms.Form):
    title = forms.CharField(max_length=TITLE_MAX_LENGTH)
    message = forms.CharField(widget=forms.Textarea)
    account = forms.ModelChoiceField(
        queryset=Account.objects.order_by("name", "id"),
        required=False,
        empty_label="All accounts",
        help_text="Leave at “All accounts” to announce to every account.",
    )


@admin.register(Notification)
class NotificationAdmin(AllAccountsAdmin):
    """Every account's notifications, read-only: they are raised by ``services.notify``. Staff send
    ``system_info`` announcements with “Send announcement” on the list page. “Read by” counts the
    members who have read it: read state is each member's own (``NotificationReceipt``)."""

    list_display = ["id", "created_at", "account", "notification_type", "category", "severity", "title", "user", "site", "read_by"]
    list_filter = ["notification_type", "severity"]
    list_select_related = ["account", "user", "site"]
    search_fields = ["title", "message"]
    raw_id_fields = ["account", "user", "site"]

    def get_queryset(self, request):
        # A correlated count per listed row, on the receipts' (notification, user) index; the page's
        # count query leaves it out, so the changelist stays two queries whatever the receipts.
        read = NotificationReceipt.dangerously_unscoped.filter(notification=OuterRef("pk"), read_at__isnull=False)
        readers = read.order_by().values("notification").annotate(n=Count("pk")).values("n")
        return super().get_queryset(request).annotate(read_by=Coalesce(Subquery(readers), 0))

    @admin.display(description="Read by", ordering="read_by")
    def read_by(self, notification: Notification) -> int:
        return notification.read_by

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        services.forget_unread_counts(account_ids=[obj.account_id])

    def delete_queryset(self, request, queryset):
        account_ids = set(queryset.values_list("account_id", flat=True))
        super().delete_queryset(request, queryset)
        services.forget_unread_counts(account_ids=account_ids)

    def may_announce(self, request) -> bool:
        return request.user.has_perm(ANNOUNCE_PERMISSION)

    def get_urls(self):
        announce = path("announce/", self.admin_site.admin_view(self.announce_view), name="notifications_notification_announce")
        return [announce, *super().get_urls()]

    def changelist_view(self, request, extra_context=None):
        return super().changelist_view(request, {**(extra_context or {}), "may_announce": self.may_announce(request)})

    def announce_view(self, request):
        if not self.may_announce(request):
            raise PermissionDenied
        form = AnnouncementForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            account = form.cleaned_data["account"]
            sent = services.broadcast_system_info(
                title=form.cleaned_data["title"], message=form.cleaned_data["message"], accounts=None if account is None else [account]
            )
            self.message_user(request, f"Announcement sent to {sent} account{'s' if sent != 1 else ''}.", messages.SUCCESS)
            return redirect("admin:notifications_notification_changelist")
        context = {**self.admin_site.each_context(request), "opts": self.opts, "form": form, "title": "Send announcement"}
        return TemplateResponse(request, "admin/notifications/notification/announce.html", context)

"""Read state becomes each member's own: a receipt per member replaces the one flag on the row.

What was read stays read for everyone who saw it read: a receipt for the addressee of a personal
notification, or for every member of the account for an account-wide one. Backwards, a notification
is read when any member read it, at the first read; deletions stay forward only (the rows were kept).
"""

import django.db.models.deletion
import django.db.models.manager
from django.conf import settings
from django.db import migrations, models
from django.db.models import OuterRef, Subquery

BATCH_SIZE = 1000


def receipts_from_shared_read_state(apps, schema_editor):
    Notification = apps.get_model("notifications", "Notification")
    NotificationReceipt = apps.get_model("notifications", "NotificationReceipt")
    User = apps.get_model("tenancy", "User")
    members: dict[int, list[int]] = {}
    batch = []
    read = Notification._default_manager.filter(is_read=True).only("account_id", "user_id", "read_at", "created_at")
    for notification in read.order_by("pk").iterator():
        if notification.user_id is not None:
            readers = [notification.user_id]
        else:
            if notification.account_id not in members:
                members[notification.account_id] = list(User._default_manager.filter(account_id=notification.account_id).values_list("pk", flat=True))
            readers = members[notification.account_id]
        read_at = notification.read_at or notification.created_at
        batch += [NotificationReceipt(account_id=notification.account_id, notification_id=notification.pk, user_id=user_id, read_at=read_at) for user_id in readers]
        if len(batch) >= BATCH_SIZE:
            NotificationReceipt._default_manager.bulk_create(batch)
            batch = []
    NotificationReceipt._default_manager.bulk_create(batch)


def shared_read_state_from_receipts(apps, schema_editor):
    Notification = apps.get_model("notifications", "Notification")
    NotificationReceipt = apps.get_model("notifications", "NotificationReceipt")
    reads = NotificationReceipt._default_manager.filter(notification=OuterRef("pk"), read_at__isnull=False).order_by("read_at")
    Notification._default_manager.update(read_at=Subquery(reads.values("read_at")[:1]))
    Notification._default_manager.filter(read_at__isnull=False).update(is_read=True)


class Migration(migrations.Migration):

    dependencies = [
        ('notifications', '0001_initial'),
        ('tenancy', '0004_remove_account_credits'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='NotificationReceipt',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('read_at', models.DateTimeField(blank=True, null=True)),
                ('deleted_at', models.DateTimeField(blank=True, null=True)),
                ('account', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.account')),
                ('notification', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='receipts', to='notifications.notification')),
                ('user', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'indexes': [models.Index(fields=['user', 'notification'], name='notification_receipt_user')],
                'constraints': [models.UniqueConstraint(fields=('notification', 'user'), name='notification_receipt_one_per_user')],
            },
            managers=[
                ('dangerously_unscoped', django.db.models.manager.Manager()),
            ],
        ),
        migrations.RunPython(receipts_from_shared_read_state, shared_read_state_from_receipts),
    ]

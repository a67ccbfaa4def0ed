"""Site settings moved to their own app (inkwell.sitesettings): this app stops knowing the model;
its table, publishing_sitesettings, and the rows in it stay where they are."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('publishing', '0003_automation_schedule_and_delays'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name='SiteSettings')],
            database_operations=[],
        ),
    ]

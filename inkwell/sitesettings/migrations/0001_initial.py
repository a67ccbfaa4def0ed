"""The site settings model, moved from publishing with its table (publishing_sitesettings) and its
rows: the database is left as it is, only the state changes hands."""

import django.db.models.deletion
import django.db.models.manager
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('publishing', '0004_delete_sitesettings'),
        ('system', '0003_seed_ai_models'),
        ('tenancy', '0004_remove_account_credits'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='SiteSettings',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('automation', models.JSONField(blank=True, default=dict)),
                        ('stages', models.JSONField(blank=True, default=dict)),
                        ('delays', models.JSONField(blank=True, default=dict)),
                        ('publishing', models.JSONField(blank=True, default=dict)),
                        ('next_run_at', models.DateTimeField(blank=True, null=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('account', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.account')),
                        ('image_model', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='system.aimodel')),
                        ('live_model', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='system.aimodel')),
                        ('site', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='site_settings', to='tenancy.site')),
                        ('testing_model', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='system.aimodel')),
                    ],
                    options={
                        'verbose_name_plural': 'site settings',
                        'db_table': 'publishing_sitesettings',
                        'indexes': [models.Index(condition=models.Q(('next_run_at__isnull', False)), fields=['next_run_at'], name='sitesettings_next_run')],
                    },
                    managers=[
                        ('dangerously_unscoped', django.db.models.manager.Manager()),
                    ],
                ),
            ],
            database_operations=[],
        ),
    ]

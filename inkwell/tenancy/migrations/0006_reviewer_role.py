from django.db import migrations, models

REVIEWER_DESCRIPTION = "Reads the sites granted to them, comments on content and approves it or sends it back; edits and publishes nothing."


def add_reviewer(apps, schema_editor):
    Role = apps.get_model("tenancy", "Role")
    Role.objects.update_or_create(name="reviewer", defaults={"description": REVIEWER_DESCRIPTION})


def remove_reviewer(apps, schema_editor):
    apps.get_model("tenancy", "Role").objects.filter(name="reviewer").delete()


class Migration(migrations.Migration):
    dependencies = [("tenancy", "0005_canonical_emails")]

    operations = [
        migrations.AlterField(
            model_name="role",
            name="name",
            field=models.CharField(
                choices=[("owner", "Owner"), ("admin", "Admin"), ("editor", "Editor"), ("viewer", "Viewer"), ("reviewer", "Reviewer")],
                max_length=20,
                unique=True,
            ),
        ),
        migrations.RunPython(add_reviewer, remove_reviewer),
    ]

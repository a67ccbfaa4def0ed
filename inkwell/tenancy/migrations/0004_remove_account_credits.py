from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("tenancy", "0003_industry_descriptions"),
        # The balance moves into the credit ledger before the column goes.
        ("billing", "0002_ledgers_from_account_credits"),
    ]

    operations = [
        migrations.RemoveField(model_name="account", name="credits"),
    ]

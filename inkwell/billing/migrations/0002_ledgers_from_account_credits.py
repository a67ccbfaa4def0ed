"""Moves each account's sign-up balance (``Account.credits``, before the ledger existed) into a
ledger, as a ``credit_grant`` transaction, so that balance and transactions agree from day one."""

from django.db import migrations


def open_ledgers(apps, schema_editor):
    Account = apps.get_model("tenancy", "Account")
    CreditLedger = apps.get_model("billing", "CreditLedger")
    CreditTransaction = apps.get_model("billing", "CreditTransaction")
    for account in Account.objects.filter(credit_ledger__isnull=True).iterator():
        CreditLedger.objects.create(account=account, balance=account.credits)
        if account.credits:
            CreditTransaction.objects.create(
                account=account,
                transaction_type="credit_grant",
                amount=account.credits,
                balance_after=account.credits,
                description="Sign-up credits",
            )


class Migration(migrations.Migration):
    dependencies = [
        ("billing", "0001_initial"),
        ("tenancy", "0003_industry_descriptions"),
    ]

    operations = [migrations.RunPython(open_ledgers, migrations.RunPython.noop)]

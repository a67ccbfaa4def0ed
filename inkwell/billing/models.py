"""The credit ledger of each account.

``CreditLedger.balance`` is the account's credits, always the sum of its transactions;
``reserved`` is the part held by operations still running. Every change locks the ledger row,
and the database itself refuses a negative balance or a reservation beyond it.
"""

from typing import ClassVar

from django.conf import settings
from django.db import models

from inkwell.jobs.models import Job
from inkwell.tenancy.models import Account, AccountOwnedModel, Site


class OperationType(models.TextChoices):
    CLUSTERING = "clustering", "Keyword clustering"
    IDEA_GENERATION = "idea_generation", "Idea generation"
    CONTENT_GENERATION = "content_generation", "Content generation"
    IMAGE_PROMPT_EXTRACTION = "image_prompt_extraction", "Image prompt extraction"
    IMAGE_GENERATION = "image_generation", "Image generation"
    OPTIMIZATION = "optimization", "Optimization"
    LINKING = "linking", "Internal linking"
    KEYWORD_PURCHASE = "keyword_purchase", "Paid keywords"


class TransactionType(models.TextChoices):
    CREDIT_GRANT = "credit_grant", "Credit grant"
    USAGE = "usage", "Usage"
    REFUND = "refund", "Refund"
    ADJUSTMENT = "adjustment", "Adjustment"
    MONTHLY_RESET = "monthly_reset", "Monthly renewal"
    PURCHASE = "purchase", "Purchase"


class CreditLedger(AccountOwnedModel):
    account = models.OneToOneField(Account, on_delete=models.CASCADE, related_name="credit_ledger")
    balance = models.PositiveIntegerField(default=0)
    reserved = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    site_field: ClassVar[str | None] = None

    class Meta:
        constraints = [models.CheckConstraint(condition=models.Q(reserved__lte=models.F("balance")), name="ledger_reserved_within_balance")]

    def __str__(self):
        return f"{self.account_id}: {self.balance} ({self.reserved} reserved)"

    @property
    def available(self) -> int:
        return self.balance - self.reserved


class CreditUsage(AccountOwnedModel):
    """One charged AI operation: what it was, what it touched, what it cost."""

    operation_type = models.CharField(max_length=30, choices=OperationType.choices)
    credits_used = models.PositiveIntegerField()
    site = models.ForeignKey(Site, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    job = models.ForeignKey(Job, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    related_object_type = models.CharField(max_length=60, blank=True)
    related_object_id = models.BigIntegerField(null=True, blank=True)
    model = models.CharField(max_length=120, blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    description = models.CharField(max_length=255, blank=True)
    refunded_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    site_field: ClassVar[str | None] = None

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["account", "-created_at"], name="usage_account_recent"),
            models.Index(fields=["account", "operation_type", "-created_at"], name="usage_account_operation"),
        ]


class CreditTransaction(AccountOwnedModel):
    """Every change of a balance, signed, with the balance it left."""

    transaction_type = models.CharField(max_length=20, choices=TransactionType.choices)
    amount = models.IntegerField()
    balance_after = models.PositiveIntegerField()
    usage = models.ForeignKey(CreditUsage, null=True, blank=True, on_delete=models.SET_NULL, related_name="transactions")
    description = models.CharField(max_length=255, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    site_field: ClassVar[str | None] = None

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["account", "-created_at"], name="transaction_account_recent"),
            models.Index(fields=["account", "transaction_type", "-created_at"], name="transaction_account_type"),
        ]


class ReservationStatus(models.TextChoices):
    HELD = "held", "Held"
    SETTLED = "settled", "Settled"
    RELEASED = "released", "Released"


class CreditReservation(AccountOwnedModel):
    """Credits held for an operation until it succeeds (settled: charged) or fails (released: free)."""

    operation_type = models.CharField(max_length=30, choices=OperationType.choices)
    amount = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=ReservationStatus.choices, default=ReservationStatus.HELD)
    site = models.ForeignKey(Site, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    job = models.ForeignKey(Job, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    related_object_type = models.CharField(max_length=60, blank=True)
    related_object_id = models.BigIntegerField(null=True, blank=True)
    description = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    site_field: ClassVar[str | None] = None

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["job", "status"], name="reservation_job_status")]

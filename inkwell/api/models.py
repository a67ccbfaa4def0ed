from django.db import models


class IdempotencyRecord(models.Model):
    """The first answer to a request sent with an ``Idempotency-Key`` (see ``inkwell.api.idempotency``).

    Keyed by the account id as a plain number: the API layer knows no domain model.
    ``status_code`` is null while the first request is still being handled.
    """

    account_id = models.BigIntegerField()
    key = models.CharField(max_length=255)
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=500)
    fingerprint = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    body = models.JSONField(null=True, blank=True)
    body_is_envelope = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["account_id", "key"], name="idempotency_key_per_account")]

    def __str__(self):
        return f"{self.method} {self.path} [{self.key}]"

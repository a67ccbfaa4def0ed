"""The shared limit of provider calls in flight, as the embedded profile keeps it (the production
profile keeps it in Redis): ``inkwell.ai.limits``."""

from django.db import models


class CallScope(models.Model):
    """One limit of provider calls in flight: a provider endpoint's (with its key) or an account's.

    ``call_limit`` is the current limit (an endpoint's adapts; an account's is the setting);
    ``decreased_at`` the Unix time of the endpoint's last decrease, so that one burst of 429s
    halves it once.
    """

    key = models.CharField(max_length=80, unique=True)
    call_limit = models.FloatField()
    decreased_at = models.FloatField(default=0)

    def __str__(self):
        return f"{self.key} ({self.call_limit:.2f})"


class CallLease(models.Model):
    """One call in flight, holding a place in each of its scopes until it ends or ``expires_at``
    (Unix time) passes: a worker that died mid-call gives its places back on its own."""

    scope = models.ForeignKey(CallScope, on_delete=models.CASCADE, related_name="leases")
    token = models.CharField(max_length=32)
    expires_at = models.FloatField()

    class Meta:
        indexes = [models.Index(fields=["scope", "expires_at"], name="ai_lease_scope_expiry")]

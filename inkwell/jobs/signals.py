from django.dispatch import Signal

# Sent inside the transaction that moves a job to succeeded, failed or cancelled (``job=``), so
# that what depends on the outcome (credits held for it) commits or rolls back with it.
job_finished = Signal()

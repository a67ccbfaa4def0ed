from rest_framework import serializers

from inkwell.jobs.models import Job, JobStatus


class JobSerializer(serializers.ModelSerializer):
    result = serializers.JSONField(read_only=True, allow_null=True)
    error = serializers.JSONField(read_only=True, allow_null=True)

    class Meta:
        model = Job
        fields = ["id", "kind", "status", "progress", "progress_message", "result", "error", "site", "created_at", "started_at", "finished_at"]
        read_only_fields = fields


class JobDetailSerializer(JobSerializer):
    """One job, with its place in the queue while it waits there."""

    queue_position = serializers.SerializerMethodField(help_text="While queued: its place in the queue (1: next); else null.")

    class Meta(JobSerializer.Meta):
        fields = [*JobSerializer.Meta.fields, "queue_position"]
        read_only_fields = fields

    def get_queue_position(self, job) -> int | None:
        from inkwell.jobs.selectors import queue_position

        return queue_position(job)


class JobStartedSerializer(serializers.Serializer):
    """The 202 answer of every endpoint that starts long work."""

    job_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=JobStatus.choices)

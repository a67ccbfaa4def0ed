from rest_framework import serializers

from inkwell.jobs.models import Job, JobStatus


class JobSerializer(serializers.ModelSerializer):
    result = serializers.JSONField(read_only=True, allow_null=True)
    error = serializers.JSONField(read_only=True, allow_null=True)

    class Meta:
        model = Job
        fields = ["id", "kind", "status", "progress", "progress_message", "result", "error", "site", "created_at", "started_at", "finished_at"]
        read_only_fields = fields


class JobStartedSerializer(serializers.Serializer):
    """The 202 answer of every endpoint that starts long work."""

    job_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=JobStatus.choices)

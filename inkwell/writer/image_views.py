"""``/writer/images/`` and the image generation of a content, plus the view that serves the files
of the default storage at MEDIA_URL (``SERVE_MEDIA``)."""

import re
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.core.files.storage import FileSystemStorage, storages
from django.http import Http404
from django.urls import re_path
from django.views.static import serve
from drf_spectacular.utils import extend_schema
from rest_framework import mixins
from rest_framework.decorators import action

from inkwell.api.idempotency import idempotent
from inkwell.api.views import validated
from inkwell.jobs.serializers import JobStartedSerializer
from inkwell.jobs.views import job_accepted
from inkwell.tenancy.viewsets import AccountScopedViewSet
from inkwell.writer import services as writer_services
from inkwell.writer.filters import ImageFilter
from inkwell.writer.image_serializers import (
    GenerateForContentInputSerializer,
    GenerateImagesInputSerializer,
    ImageSerializer,
    RegenerateImageInputSerializer,
)
from inkwell.writer.models import Content, Image

INVALID_STATUS = "Invalid status value"


def generate_images_response(request, content: Content):
    """The answer of ``POST /writer/content/{id}/generate_images/`` (body ``{image_type?, count?}``)
    for a content the view has already resolved: the body is validated here, then the job starts (202)."""
    data = validated(GenerateImagesInputSerializer, request)
    job = writer_services.start_image_generation(
        account=request.account, content=content, user=request.user, image_type=data.get("image_type"), count=data.get("count")
    )
    return job_accepted(job)




@extend_schema(tags=["writer"])
class ImageViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, AccountScopedViewSet):
    """Images of the caller's content, and the AI work that makes them (jobs: follow ``/jobs/{job_id}/``)."""

    queryset = Image.objects.all()
    serializer_class = ImageSerializer
    filterset_class = ImageFilter
    module = "writer"
    throttle_scope = "content"
    error_statuses = (402,)

    @extend_schema(request=GenerateForContentInputSerializer, responses={202: JobStartedSerializer})
    @action(detail=False, methods=["post"], throttle_scope="ai")
    @idempotent
    def generate_for_content(self, request):
        data = validated(GenerateForContentInputSerializer, request)
        job = writer_services.start_image_generation(
            account=request.account, content=data["content"], user=request.user, image_type=data.get("image_type"), count=data.get("count")
        )
        return job_accepted(job)

    @extend_schema(request=RegenerateImageInputSerializer, responses={202: JobStartedSerializer})
    @action(detail=False, methods=["post"], throttle_scope="ai")
    @idempotent
    def regenerate(self, request):
        data = validated(RegenerateImageInputSerializer, request)
        job = writer_services.start_image_regeneration(account=request.account, image=data["image"], user=request.user, prompt=data.get("prompt"))
        return job_accepted(job)


# Media files ----------------------------------------------------------------------------------


def serve_media(request, path: str):
    """A file of the default storage when it is the local file system (404 otherwise). The names
    are unique per generation, so clients may cache a file for good."""
    storage = storages["default"]
    if not isinstance(storage, FileSystemStorage):
        raise Http404()
    try:
        response = serve(request, path, document_root=storage.location)
    except SuspiciousFileOperation:
        # A path that leads out of the storage (``../``) names no media file.
        raise Http404() from None
    response["Cache-Control"] = "public, max-age=31536000, immutable"
    return response


def media_urlpatterns() -> list:
    """The route of ``serve_media`` at the path of MEDIA_URL, when ``SERVE_MEDIA`` is on. MEDIA_URL
    may be absolute (``https://api.example.com/media/``) so that code without a request, such as a
    worker, builds absolute file URLs."""
    prefix = urlsplit(settings.MEDIA_URL).path.lstrip("/")
    if not settings.SERVE_MEDIA or not prefix:
        return []
    return [re_path(rf"^{re.escape(prefix)}(?P<path>.+)$", serve_media, name="media")]

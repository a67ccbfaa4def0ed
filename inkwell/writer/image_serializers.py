from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import PermissionDenied

from inkwell.tenancy.access import can_access_site
from inkwell.writer.services import MAX_IMAGES_PER_REQUEST
from inkwell.writer.models import Content, Image, ImageType

INVALID_IMAGE_TYPE = "Invalid image type"
CONTENT_NOT_YOURS = "Content must belong to your account"
IMAGE_NOT_YOURS = "Image must belong to your account"


class ImageSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField(help_text="Absolute URL of the image file; null until it is generated.")

    class Meta:
        model = Image
        fields = [
            "id", "content", "site", "image_type", "position", "prompt", "alt_text", "url", "width", "height", "mime_type", "status", "created_at",
        ]
        read_only_fields = fields

    @extend_schema_field({"type": "string", "format": "uri", "nullable": True})
    def get_url(self, image: Image) -> str | None:
        if not image.file.name:
            return None
        url = image.file.url
        request = self.context.get("request")
        # A storage that serves elsewhere (an object store) gives absolute URLs already.
        return request.build_absolute_uri(url) if request is not None else url


class _AccountRowField(serializers.PrimaryKeyRelatedField):
    """An id of one of the caller's account's rows on a site the caller may touch (403 otherwise)."""

    def get_queryset(self):
        return self.model.objects.for_account(self.context["request"].account).select_related("site")

    def to_internal_value(self, data):
        row = super().to_internal_value(data)
        if not can_access_site(self.context["request"], row.site_id):
            raise PermissionDenied()
        return row


@extend_schema_field(OpenApiTypes.INT)
class AccountContentField(_AccountRowField):
    model = Content
    default_error_messages = {"does_not_exist": CONTENT_NOT_YOURS, "incorrect_type": CONTENT_NOT_YOURS}


@extend_schema_field(OpenApiTypes.INT)
class AccountImageField(_AccountRowField):
    model = Image
    default_error_messages = {"does_not_exist": IMAGE_NOT_YOURS, "incorrect_type": IMAGE_NOT_YOURS}


def image_type_field() -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=ImageType.choices,
        required=False,
        allow_null=True,
        error_messages={"invalid_choice": INVALID_IMAGE_TYPE},
        help_text="featured or in_article; by default the first image is featured when the content has no featured image yet.",
    )


class GenerateImagesInputSerializer(serializers.Serializer):
    """``POST /writer/content/{id}/generate_images/``."""

    image_type = image_type_field()
    count = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=MAX_IMAGES_PER_REQUEST,
        help_text="Images to make, at most the image settings' max_images; by default 1 featured image, or images_per_article.",
    )


class GenerateForContentInputSerializer(GenerateImagesInputSerializer):
    """``POST /writer/images/generate_for_content/``."""

    content_id = AccountContentField(source="content")


class ImageAltTextInputSerializer(serializers.Serializer):
    alt_text = serializers.CharField(max_length=300, allow_blank=True, help_text="What the image shows, for screen readers.")


class RegenerateImageInputSerializer(serializers.Serializer):
    image_id = AccountImageField(source="image")
    prompt = serializers.CharField(
        required=False, allow_blank=True, allow_null=True, max_length=4000, help_text="A new prompt; by default the image's own."
    )

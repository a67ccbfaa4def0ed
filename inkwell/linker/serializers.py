"""Input and output shapes of the linker's endpoints."""

from rest_framework import serializers

from inkwell.api.filters import MAX_ID
from inkwell.linker.services import MAX_BATCH_CONTENT, MAX_LINKS_RANGE
from inkwell.writer.image_serializers import AccountContentField


def max_links_field() -> serializers.IntegerField:
    return serializers.IntegerField(
        required=False,
        min_value=MAX_LINKS_RANGE[0],
        max_value=MAX_LINKS_RANGE[1],
        help_text="Most links to other articles one article may hold, those it has included (default: the LINKER_MAX_LINKS setting, 5 unless changed).",
    )


def content_id_list(max_length: int) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_ID),
        allow_empty=False,
        max_length=max_length,
        error_messages={"empty": "Send at least one id"},
        help_text=f"Up to {max_length} content ids of one site; ids that name none of your content are reported as not_found.",
    )


class LinkerProcessInputSerializer(serializers.Serializer):
    content_id = AccountContentField(source="content")
    max_links = max_links_field()


class LinkerBatchProcessInputSerializer(serializers.Serializer):
    content_ids = content_id_list(MAX_BATCH_CONTENT)
    max_links = max_links_field()


class LinkerLinkSerializer(serializers.Serializer):
    anchor_text = serializers.CharField(help_text="The words of the article that became the link, in their own casing.")
    target_content_id = serializers.IntegerField(help_text="The article linked to.")
    url = serializers.CharField(help_text="Its published URL, or its site-relative path while it is not published.")


class LinkerProcessResultSerializer(serializers.Serializer):
    content_id = serializers.IntegerField()
    links_added = serializers.IntegerField()
    links = LinkerLinkSerializer(many=True, help_text="The links added, in the order they appear; the previous body is kept as a revision when there are any.")


# Suggest mode (#19, inkwell.linker.suggestions)


class LinkerSuggestInputSerializer(serializers.Serializer):
    content_id = AccountContentField(source="content")
    max_links = max_links_field()


class LinkerSuggestionSerializer(serializers.Serializer):
    target_content_id = serializers.IntegerField(help_text="The article the link would point to.")
    title = serializers.CharField(help_text="Its title.")
    url = serializers.CharField(help_text="Its published URL, or its site-relative path while it is not published.")
    anchor_text = serializers.CharField(help_text="The words of the paragraph that would become the link, as they are written there.")
    score = serializers.FloatField(help_text="Cosine similarity of the paragraph's meaning and the target's topic (title and keywords), 0 to 1.")
    block = serializers.IntegerField(help_text="Which of the article's linkable blocks (paragraphs, list items...), counted from 0.")
    paragraph = serializers.CharField(help_text="The start of that block's text.")


class LinkerSuggestResultSerializer(serializers.Serializer):
    content_id = serializers.IntegerField()
    suggestions = LinkerSuggestionSerializer(many=True, help_text="Best first; nothing is changed. Send the ones you want to apply_suggestions.")


class LinkerChosenLinkSerializer(serializers.Serializer):
    target_content_id = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    anchor_text = serializers.CharField(max_length=200, help_text="The words to link, as a suggestion gave them.")


class LinkerApplySuggestionsInputSerializer(serializers.Serializer):
    content_id = AccountContentField(source="content")
    links = serializers.ListField(
        child=LinkerChosenLinkSerializer(), allow_empty=False, max_length=MAX_LINKS_RANGE[1], error_messages={"empty": "Send at least one link"}
    )
    max_links = max_links_field()

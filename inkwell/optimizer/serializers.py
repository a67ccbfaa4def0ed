"""Input and output shapes of the optimizer's endpoints."""

from rest_framework import serializers

from inkwell.linker.serializers import content_id_list
from inkwell.optimizer.services import MAX_BATCH_CONTENT
from inkwell.writer.image_serializers import AccountContentField
from inkwell.writer.refresh_serializers import AccountRefreshField


class OptimizerContentInputSerializer(serializers.Serializer):
    content_id = AccountContentField(source="content")


class OptimizerRefreshInputSerializer(serializers.Serializer):
    refresh_id = AccountRefreshField(source="refresh", help_text="A draft refresh of a live article (/writer/refreshes/).")


class OptimizerBatchInputSerializer(serializers.Serializer):
    content_ids = content_id_list(MAX_BATCH_CONTENT)


class OptimizerHeadingCountsSerializer(serializers.Serializer):
    h1 = serializers.IntegerField()
    h2 = serializers.IntegerField()
    h3 = serializers.IntegerField()
    h4 = serializers.IntegerField()
    h5 = serializers.IntegerField()
    h6 = serializers.IntegerField()


class OptimizerMetricsSerializer(serializers.Serializer):
    word_count = serializers.IntegerField(help_text="Visible words of the body.")
    target_word_count = serializers.IntegerField(help_text="The task's word count, else the account's default article length.")
    focus_keyword = serializers.CharField(allow_blank=True)
    keyword_in_title = serializers.BooleanField(help_text="In the title or the meta title.")
    keyword_in_first_paragraph = serializers.BooleanField()
    keyword_in_headings = serializers.BooleanField(help_text="In an H2-H6 subheading.")
    keyword_in_meta_description = serializers.BooleanField()
    keyword_density = serializers.FloatField(help_text="Occurrences of the focus keyword per 100 words.")
    headings = OptimizerHeadingCountsSerializer(help_text="Headings of each level in the body.")
    readability = serializers.FloatField(help_text="Flesch reading ease: higher is easier, 60-70 is plain English.")
    meta_title_length = serializers.IntegerField()
    meta_description_length = serializers.IntegerField()
    internal_links = serializers.IntegerField(help_text="Links to this site: relative, or to its domain or its CMS's host.")
    external_links = serializers.IntegerField(help_text="Links to other hosts.")
    images = serializers.IntegerField(help_text="Images in the body and images generated for the content.")
    images_without_alt = serializers.IntegerField()
    text_analysis_score = serializers.IntegerField(
        help_text="Not the article's score (that is `score`): the text analysis alone (keyword placement, meta, headings, readability), 0-100; `score` weighs it 80 % and length, links and images 20 %."
    )


class OptimizerAnalysisSerializer(serializers.Serializer):
    content_id = serializers.IntegerField()
    score = serializers.IntegerField(min_value=0, max_value=100, help_text="The article's score, 0-100: the one optimize's score_before and score_after compare.")
    metrics = OptimizerMetricsSerializer()
    suggestions = serializers.ListField(child=serializers.CharField(), help_text="What to change, one concrete step each.")

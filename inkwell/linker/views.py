"""The internal linker (spec: Linker, optimizer, publisher): links between the articles of a site."""

from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action

from inkwell.api.envelope import ok
from inkwell.api.views import validated
from inkwell.jobs.serializers import JobStartedSerializer
from inkwell.jobs.views import job_accepted
from inkwell.linker import serializers as s
from inkwell.linker import services
from inkwell.linker.suggestions import apply_suggestions, suggest_links
from inkwell.tenancy.viewsets import AccountScopedViewSet
from inkwell.writer.models import Content


@extend_schema(tags=["linker"])
class LinkerViewSet(AccountScopedViewSet):
    """Owners, admins and editors (on their sites) link content; no credits are spent."""

    queryset = Content.objects.all()
    module = "linker"
    throttle_scope = "content"
    input_serializers = {
        "process": s.LinkerProcessInputSerializer,
        "batch_process": s.LinkerBatchProcessInputSerializer,
        "suggest": s.LinkerSuggestInputSerializer,
        "apply_suggestions": s.LinkerApplySuggestionsInputSerializer,
    }

    def get_serializer_class(self):
        # Every route here is one POST action; OPTIONS describes that action's input.
        return self.input_serializers[self.action_map["post"]]

    @extend_schema(request=s.LinkerProcessInputSerializer, responses={200: s.LinkerProcessResultSerializer})
    @action(detail=False, methods=["post"])
    def process(self, request):
        """Links phrases of the content that are another article's keywords (focus keyword, keywords,
        or its cluster's keywords) to that article, if it is of the same site: at most ``max_links``
        per article, one per target, never in headings, links, code or attributes. Running it again
        adds nothing. The body changes as a new revision; the answer lists the links added."""
        data = validated(self.get_serializer_class(), request)
        result = services.process_content(account=request.account, content=data["content"], user=request.user, max_links=data.get("max_links"))
        return ok(s.LinkerProcessResultSerializer(result).data)

    @extend_schema(request=s.LinkerBatchProcessInputSerializer, responses={202: JobStartedSerializer})
    @action(detail=False, methods=["post"])
    def batch_process(self, request):
        """Links many articles of one site in the background (job ``linker.batch_process``); its result
        lists the links added per article, and the ids that name none of your content as ``not_found``."""
        data = validated(self.get_serializer_class(), request)
        job = services.start_batch_linking(
            account=request.account, user=request.user, contents=self.get_queryset(), content_ids=data["content_ids"], max_links=data.get("max_links")
        )
        return job_accepted(job)

    @extend_schema(request=s.LinkerSuggestInputSerializer, responses={200: s.LinkerSuggestResultSerializer})
    @action(detail=False, methods=["post"])
    def suggest(self, request):
        """Suggest mode: links by meaning. For each other article of the site whose topic matches a
        paragraph of this one (even without its exact phrase), the link it would add: the anchor text,
        the paragraph, and the score. At most ``max_links`` less the links the article has; targets
        it links to already are left out. Changes nothing."""
        data = validated(self.get_serializer_class(), request)
        suggestions = suggest_links(account=request.account, content=data["content"], max_links=data.get("max_links"))
        return ok(s.LinkerSuggestResultSerializer({"content_id": data["content"].pk, "suggestions": [item.as_dict() for item in suggestions]}).data)

    @extend_schema(request=s.LinkerApplySuggestionsInputSerializer, responses={200: s.LinkerProcessResultSerializer})
    @action(detail=False, methods=["post"])
    def apply_suggestions(self, request):
        """Adds the chosen suggested links with the same rules as ``process``: one link per target, no
        link to the article itself, never in headings, links or code, at most ``max_links``; applying
        again adds nothing. A link whose anchor text is no longer in the text adds nothing."""
        data = validated(self.get_serializer_class(), request)
        result = apply_suggestions(account=request.account, content=data["content"], user=request.user, links=data["links"], max_links=data.get("max_links"))
        return ok(s.LinkerProcessResultSerializer(result).data)

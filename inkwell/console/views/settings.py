"""Settings: a site's own (publishing, its automation against the defaults, its AI models), and the
account's (AI and image providers with their keys, content settings, prompts, modules).

Every save goes through the API's input serializer and service, so the rules and the messages
are the API's. Roles follow the API: a site's settings are changed by owners, admins and editors
(``/integration/sites/{id}/unified-settings/``); the account's by owners and admins
(``/system/settings/...``); every role reads both. A saved API key is never sent back: the page
shows its mask (``…abcd``), and a key typed into a form is not shown again, not even when the
save is refused.
"""

from django.http import Http404
from django.urls import reverse
from rest_framework import exceptions

from inkwell.ai.prompts import PROMPTS
from inkwell.ai.providers import PROVIDER_NAMES
from inkwell.console.base import ConsoleView, refusal_messages, scoped, validated
from inkwell.console.views.forms import FormsView, changed, submitted_values
from inkwell.console.views.library import SiteView
from inkwell.sitesettings import selectors as site_settings_selectors
from inkwell.sitesettings import services as site_settings_services
from inkwell.sitesettings import serializers as ss
from inkwell.sitesettings.defaults import DAYS
from inkwell.system import selectors as system
from inkwell.system import serializers as s
from inkwell.system import services
from inkwell.system.defaults import IMAGE_SIZES, IMAGE_STYLES, MODULE_TITLES, MODULES, PUBLISH_STATUSES, SCHEDULE_FREQUENCIES, STRUCTURES, TONES
from inkwell.system.models import AIModelKind, IntegrationType
from inkwell.tenancy.models import MANAGER_ROLES
from inkwell.writer import quality as writer_quality
from inkwell.writer import serializers as ws
from inkwell.writer import services as writer_services
from inkwell.writer.models import Content, SiteStatus, VoiceProfile

DAY_NAMES = {"mon": "Monday", "tue": "Tuesday", "wed": "Wednesday", "thu": "Thursday", "fri": "Friday", "sat": "Saturday", "sun": "Sunday"}
# Empty rows offered under a list of times, to add one without JavaScript.
SPARE_ROWS = 2
PUBLISHING_FLAGS = ("auto_approval_enabled", "auto_publish_enabled")
PUBLISHING_NUMBERS = (*site_settings_selectors.LIMITS, "total_items_per_run")
AI_MODEL_FIELDS = tuple(site_settings_selectors.AI_FIELDS)
PERFORMANCE_FIELDS = tuple(ss.PerformanceSettingsSerializer().fields)
REVIEW_FLAGS = tuple(ss.ReviewRulesSerializer().fields)
EDITORIAL_FLAGS = ("brief_required", "stop_at_brief")
# The quality report's thresholds (``inkwell.ai.quality.Thresholds``), as the form labels them.
THRESHOLD_FIELDS = (
    ("min_reading_ease", "Reading ease, at least", "Flesch reading ease of the body: higher is easier."),
    ("max_grade", "Reading grade, at most", "Flesch-Kincaid grade; without a value of the site's own, the voice's grade plus two."),
    ("max_sentence_words", "Words in a sentence, at most", ""),
    ("max_paragraph_words", "Words in a paragraph, at most", ""),
    ("words_per_heading", "Words per heading, at most", "At least one H2 or H3 per this many words."),
    ("duplicate_overlap", "Overlap that makes a near-duplicate", "Between 0.05 and 1: the share of five-word phrases shared with another page of the site."),
)
QUALITY_KIND_LABELS = {
    "unsupported_claim": "Claims without a source",
    "repetition": "Repeated sentences and phrases",
    "duplicate": "Near-duplicates of the site's pages",
    "readability": "Readability",
    "structure": "Structure",
    "keyword": "Keyword coverage",
}


def number(value: str):
    """A typed number as an int; anything else as typed, for the serializer to refuse with its message."""
    text = (value or "").strip()
    return int(text) if text.isdigit() else text


def flag(post, name: str) -> bool:
    return name in post


# A site's settings.


def read_publishing(post) -> dict:
    slots = [{"start": start, **({"end": end} if end else {})} for start, end in zip(post.getlist("slot_start"), post.getlist("slot_end"), strict=False) if start or end]
    return {
        **{name: flag(post, name) for name in PUBLISHING_FLAGS},
        **{name: number(post.get(name)) for name in PUBLISHING_NUMBERS},
        "publish_days": post.getlist("publish_days"),
        "publish_time_slots": slots,
    }


def read_ai_models(post) -> dict:
    return {name: number(post.get(name)) if post.get(name) else None for name in AI_MODEL_FIELDS}


def read_performance(post) -> dict:
    return {name: number(post.get(name)) for name in PERFORMANCE_FIELDS}


def read_review_rules(post) -> dict:
    return {name: flag(post, name) for name in REVIEW_FLAGS}


def read_editorial(post) -> dict:
    """The editorial form as ``SiteEditorialInputSerializer`` input: numbers as typed, for the
    serializer to read or refuse with its message; ``allowed.<kind>`` fields are the allowances."""
    return {
        **{name: flag(post, name) for name in EDITORIAL_FLAGS},
        "thresholds": {
            **{name: post.get(name, "").strip() for name, _label, _hint in THRESHOLD_FIELDS},
            "allowed": {kind: post.get(f"allowed.{kind}", "").strip() for kind in QUALITY_KIND_LABELS},
        },
    }


def editorial_values(answer: dict) -> dict:
    """The site's editorial rules as the form shows them: every threshold that applies now."""
    effective = answer["effective_thresholds"]
    return {
        "brief_required": answer["brief_required"],
        "stop_at_brief": answer["stop_at_brief"],
        "thresholds": {**{name: effective[name] for name, _label, _hint in THRESHOLD_FIELDS}, "allowed": dict(effective["allowed"])},
    }


def thresholds_to_save(submitted: dict, answer: dict) -> dict:
    """What the site keeps of the validated thresholds: values it had saved, and values that differ
    from what applies now. A threshold left alone keeps following the default (or the voice)."""
    saved, effective = answer["thresholds"], answer["effective_thresholds"]
    kept = {name: value for name, value in submitted.items() if name != "allowed" and (name in saved or value != effective[name])}
    allowed = {kind: value for kind, value in submitted.get("allowed", {}).items() if kind in saved.get("allowed", {}) or value != effective["allowed"][kind]}
    return {**kept, **({"allowed": allowed} if allowed else {})}


def stage_value_text(name: str, value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if name == "budget_pct":
        return f"{value} %"
    if name == "per_run_limit" and value == 0:
        return "no limit"
    return str(value)


def automation_rows(settings: dict, defaults: dict) -> dict:
    """The site's automation beside the defaults every site starts from; each stage's cell says
    whether the site changed it, and what the default is."""
    config = settings["automation_config"]
    stages = []
    for stage, default in zip(settings["stage_configs"], defaults["stages"], strict=True):
        values = {"enabled": stage["enabled"], "batch_size": stage["batch_size"], "per_run_limit": stage["max_per_run"], "use_testing": stage["use_testing"], "budget_pct": stage["budget_pct"]}
        cells = [
            {"text": stage_value_text(name, value), "changed": value != default[name], "default": stage_value_text(name, default[name]), "numeric": not isinstance(value, bool)}
            for name, value in values.items()
        ]
        stages.append({"number": stage["stage"], "work": ss.STAGE_WORK[stage["stage"]], "cells": cells})
    schedule_default = defaults["automation"]
    return {
        "enabled": config["enabled"],
        "frequency": config["frequency"],
        "time": config["scheduled_time"][:5],
        "days": [DAY_NAMES[day] for day in config["scheduled_days"]],
        "next_run_at": config["next_run_at"],
        "schedule_changed": (config["enabled"], config["frequency"], config["scheduled_time"][:5], tuple(config["scheduled_days"]))
        != (schedule_default["enabled"], schedule_default["frequency"], schedule_default["time"], DAYS),
        "delays": (config["within_stage_delay"], config["between_stage_delay"]),
        "default_delays": (defaults["delays"]["within_stage"], defaults["delays"]["between_stage"]),
        "stages": stages,
    }


class SiteSettingsView(SiteView, FormsView):
    """A site's settings (``unified_settings``): publishing and AI models are forms; the automation
    is shown against the defaults (the automation screen edits it) and the whole can be reset."""

    template_name = "console/pages/site_settings.html"
    error_prefixes = {"publishing": "publishing_settings.", "ai": "ai_settings.", "performance": "performance_settings.", "review": "review_rules.", "editorial": "thresholds."}

    def context(self, request, *, site_id, submitted=None) -> dict:
        site = self.site_of(request, site_id)
        settings = site_settings_selectors.unified_settings(site=site)
        publishing = submitted_values(submitted, "publishing", read_publishing, settings["publishing_settings"])
        slots = list(publishing["publish_time_slots"]) + [{"start": "", "end": ""}] * SPARE_ROWS
        ai_models = submitted_values(submitted, "ai", read_ai_models, settings["ai_settings"])
        models = system.active_ai_models()
        account_ai = system.integration_settings(request.account, IntegrationType.AI_PROVIDER)
        account_image = system.integration_settings(request.account, IntegrationType.IMAGE_GENERATION)
        editorial = editorial_values(writer_quality.editorial_answer(site=site))
        if submitted is not None and submitted.get("form") == "editorial":
            editorial = read_editorial(submitted)
        return {
            "site": site,
            "editorial": editorial,
            "threshold_fields": THRESHOLD_FIELDS,
            "quality_kinds": list(QUALITY_KIND_LABELS.items()),
            "publishing": publishing,
            "slots": slots,
            "days": [(day, DAY_NAMES[day]) for day in DAYS],
            "ai": ai_models,
            "model_fields": [
                ("live_model_id", "Live model", [model for model in models if model.kind == AIModelKind.TEXT]),
                ("testing_model_id", "Testing model", [model for model in models if model.kind == AIModelKind.TEXT]),
                ("image_model_id", "Image model", [model for model in models if model.kind == AIModelKind.IMAGE]),
            ],
            "account_models": {"testing_model_id": account_ai["testing_model"], "live_model_id": account_ai["live_model"], "image_model_id": account_image["model"]},
            "automation": automation_rows(settings, site_settings_selectors.default_settings()),
            "performance": submitted_values(submitted, "performance", read_performance, settings["performance_settings"]),
            "review_rules": submitted_values(submitted, "review", read_review_rules, settings["review_rules"]),
            "may_edit": request.user.role_name in self.write_roles,
        }

    def save(self, request, site_id):
        site = self.site_of(request, site_id)
        form = request.POST.get("form")
        if form == "publishing":
            changes = {"publishing_settings": read_publishing(request.POST)}
        elif form == "ai":
            changes = {"ai_settings": read_ai_models(request.POST)}
        elif form == "performance":
            # Only what the person changed: a field left alone keeps following the default.
            changes = {"performance_settings": changed(read_performance(request.POST), site_settings_selectors.unified_settings(site=site)["performance_settings"])}
        elif form == "review":
            changes = {"review_rules": read_review_rules(request.POST)}
        elif form == "editorial":
            return self.save_editorial(request, site)
        else:
            raise Http404()
        data = validated(ss.UnifiedSettingsInputSerializer, request, changes)
        site_settings_services.unified_settings_update(site=site, changes=data)
        return self.done(request, reverse("console:site-settings", kwargs={"site_id": site.pk}) + f"?saved={form}")


    def save_editorial(self, request, site):
        """The brief before the draft and the quality report's thresholds (``/writer/sites/{id}/editorial/``)."""
        data = validated(ws.SiteEditorialInputSerializer, request, read_editorial(request.POST))
        answer = writer_quality.editorial_answer(site=site)
        writer_services.site_editorial_update(site=site, brief_required=data["brief_required"], stop_at_brief=data["stop_at_brief"], thresholds=thresholds_to_save(data["thresholds"], answer))
        return self.done(request, reverse("console:site-settings", kwargs={"site_id": site.pk}) + "?saved=editorial#editorial")


class SiteSettingsResetView(SiteView):
    """Every setting of the site back to the defaults (``unified-settings/reset/``)."""

    def post(self, request, site_id):
        site = self.site_of(request, site_id)
        site_settings_services.site_settings_reset(site=site)
        return self.done(request, reverse("console:site-settings", kwargs={"site_id": site.pk}) + "?saved=reset")


# A site's voice (issue 35).

VOICE_LISTS = ("words_to_use", "words_to_avoid")
PERSONS = (("first", "First person (we, our)"), ("second", "Second person (you, your)"), ("third", "Third person"))


def words_of(text: str) -> list[str]:
    """A list typed one entry a line or separated by commas, blanks left out."""
    return [word.strip() for line in (text or "").splitlines() for word in line.split(",") if word.strip()]


def read_voice(post) -> dict:
    """The voice form as ``VoiceInputSerializer`` input; an example left empty is left out."""
    return {
        "tone": post.get("tone", ""),
        "person": post.get("person", ""),
        "reading_grade": post.get("reading_grade", "").strip(),
        "sentence_words": post.get("sentence_words", "").strip(),
        **{name: words_of(post.get(name, "")) for name in VOICE_LISTS},
        "examples": [text.strip() for text in post.getlist("examples") if text.strip()],
    }


def voice_values(voice: VoiceProfile) -> dict:
    return {name: getattr(voice, name) for name in ("tone", "person", "reading_grade", "sentence_words", *VOICE_LISTS, "examples", "measured_posts")}


class SiteVoiceView(SiteView, FormsView):
    """The site's voice (``/writer/sites/{id}/voice/``): what every writing, optimizing and
    rewriting prompt carries. Proposed from the site's published posts (measured), edited here."""

    template_name = "console/pages/site_voice.html"

    def context(self, request, *, site_id, submitted=None) -> dict:
        site = self.site_of(request, site_id)
        voice = scoped(VoiceProfile, request).filter(site=site).first()
        values = submitted_values(submitted, "voice", read_voice, voice_values(voice or VoiceProfile(site=site)))
        examples = list(values["examples"])[:2]
        return {
            "site": site,
            "voice": values,
            "saved_voice": voice is not None,
            "examples": examples + [""] * (2 - len(examples)),
            "list_text": {name: "\n".join(values[name]) for name in VOICE_LISTS},
            "tones": TONES,
            "persons": PERSONS,
            "published_posts": scoped(Content, request).filter(site=site, site_status=SiteStatus.PUBLISHED).count(),
            "may_edit": request.user.role_name in self.write_roles,
        }

    def save(self, request, site_id):
        site = self.site_of(request, site_id)
        if request.POST.get("form") != "voice":
            raise Http404()
        writer_services.voice_update(site=site, **validated(ws.VoiceInputSerializer, request, read_voice(request.POST)))
        return self.done(request, reverse("console:site-voice", kwargs={"site_id": site.pk}) + "?saved=voice")


class SiteVoiceProposeView(SiteView):
    """Measures the voice from the site's published posts (``voice/propose/``): person, sentence
    length, reading grade, most used words and two example paragraphs; tone and words to avoid stay."""

    def post(self, request, site_id):
        site = self.site_of(request, site_id)
        writer_services.voice_propose(site=site)
        return self.done(request, reverse("console:site-voice", kwargs={"site_id": site.pk}) + "?saved=proposed")


# The account's settings.


class AccountSettingsView(FormsView):
    """A page of the account's settings: every role reads it, owners and admins change it."""

    write_roles = MANAGER_ROLES

    def page(self, request, context, **kwargs):
        return super().page(request, {**context, "may_edit": request.user.role_name in self.write_roles}, **kwargs)


PROVIDER_FIELDS = {
    IntegrationType.AI_PROVIDER: ("provider", "base_url", "testing_model", "live_model"),
    IntegrationType.IMAGE_GENERATION: ("provider", "base_url", "model", "size", "style"),
}
PROVIDER_FLAGS = {IntegrationType.AI_PROVIDER: ("use_testing_model",), IntegrationType.IMAGE_GENERATION: ()}
PROVIDER_NUMBERS = {IntegrationType.AI_PROVIDER: (), IntegrationType.IMAGE_GENERATION: ("max_images",)}
PROVIDER_INPUT = {IntegrationType.AI_PROVIDER: s.AIProviderSettingsInputSerializer, IntegrationType.IMAGE_GENERATION: s.ImageGenerationSettingsInputSerializer}


def integration_type_of(post) -> str:
    integration_type = post.get("form", "")
    if integration_type not in IntegrationType.values:
        raise Http404()
    return integration_type


def read_provider(post) -> dict:
    """The provider form's fields, the key left out (it is never shown again)."""
    integration_type = integration_type_of(post)
    return {
        **{name: post.get(name, "").strip() for name in PROVIDER_FIELDS[integration_type]},
        **{name: flag(post, name) for name in PROVIDER_FLAGS[integration_type]},
        **{name: number(post.get(name)) for name in PROVIDER_NUMBERS[integration_type]},
    }


def providers_context(request, *, submitted=None) -> dict:
    integrations = {
        integration_type: submitted_values(submitted, integration_type, read_provider, system.integration_settings(request.account, integration_type))
        for integration_type in IntegrationType.values
    }
    return {
        "ai": integrations[IntegrationType.AI_PROVIDER],
        "image": integrations[IntegrationType.IMAGE_GENERATION],
        "providers": PROVIDER_NAMES,
        "image_sizes": IMAGE_SIZES,
        "image_styles": IMAGE_STYLES,
        "text_model_fields": [("live_model", "Live model"), ("testing_model", "Testing model")],
        "image_model_fields": [("model", "Model")],
    }


class ProvidersView(AccountSettingsView):
    """The AI text and image providers: provider, endpoint, models, and the account's own key,
    entered once and shown masked afterwards."""

    template_name = "console/pages/settings_providers.html"

    def context(self, request, *, submitted=None) -> dict:
        return providers_context(request, submitted=submitted)

    def save(self, request):
        integration_type = integration_type_of(request.POST)
        current = system.integration_settings(request.account, integration_type)
        # An empty model returns it to the server's default (null in the API); an empty endpoint is the provider's own.
        values = {name: None if value == "" and name != "base_url" else value for name, value in changed(read_provider(request.POST), current).items()}
        if request.POST.get("api_key"):
            values["api_key"] = request.POST["api_key"]
        elif flag(request.POST, "remove_key"):
            values["api_key"] = ""
        data = validated(PROVIDER_INPUT[integration_type], request, values)
        services.integration_settings_save(account=request.account, integration_type=integration_type, user=request.user, values=data)
        return self.done(request, reverse("console:settings") + f"?saved={integration_type}#{integration_type}")


class KeyTestView(ConsoleView):
    """"Test key": one real call to the provider with the key typed in the form (the API's
    ``integrations/test/``). Nothing is saved or charged, and the answer never holds the key: with
    htmx the result appears beside the button, without it the page shows it."""

    throttle_scope = "ai"
    write_roles = MANAGER_ROLES

    def post(self, request):
        integration_type = integration_type_of(request.POST)
        try:
            data = validated(s.IntegrationTestInputSerializer, request, {"integration_type": integration_type, "api_key": request.POST.get("api_key", "")})
        except exceptions.ValidationError as exc:
            check, errors, status = None, refusal_messages(exc)[1], exc.status_code
        else:
            check = services.integration_key_test(account=request.account, integration_type=integration_type, api_key=data["api_key"])
            errors, status = {}, 200
        result = {"key_check": {"form": integration_type, "check": check}, "form": integration_type, "form_errors": {integration_type: errors}, "errors": errors}
        if request.htmx:
            return self.page(request, result, template="console/components/key_check.html", status=status)
        return self.page(request, {**providers_context(request), **result, "may_edit": True}, template=ProvidersView.template_name, status=status)


CONTENT_FORMS = {"content_generation": s.ContentGenerationSettingsInputSerializer, "publishing": s.PublishingContentSettingsInputSerializer}
CONTENT_CHOICES = {"content_generation": ("default_tone", "default_structure"), "publishing": ("default_publish_status", "schedule_frequency")}
CONTENT_FLAGS = {"content_generation": ("include_faq", "enable_internal_linking", "include_images", "use_testing_model"), "publishing": ("auto_schedule",)}
CONTENT_NUMBERS = {"content_generation": ("default_article_length", "images_per_article"), "publishing": ()}


def content_key_of(post) -> str:
    key = post.get("form", "")
    if key not in CONTENT_FORMS:
        raise Http404()
    return key


def read_content(post) -> dict:
    key = content_key_of(post)
    values = {name: flag(post, name) for name in CONTENT_FLAGS[key]}
    values.update({name: number(post.get(name)) for name in CONTENT_NUMBERS[key]})
    values.update({name: post.get(name, "") for name in CONTENT_CHOICES[key]})
    if key == "publishing":
        values["schedule_times"] = [time for time in post.getlist("schedule_times") if time]
    return values


class ContentSettingsView(AccountSettingsView):
    """The account's content settings: how articles are written, and how they are published."""

    template_name = "console/pages/settings_content.html"

    def context(self, request, *, submitted=None) -> dict:
        generation = submitted_values(submitted, "content_generation", read_content, system.content_settings(request.account, "content_generation"))
        publishing = submitted_values(submitted, "publishing", read_content, system.content_settings(request.account, "publishing"))
        return {
            "generation": generation,
            "publishing": publishing,
            "schedule_times": list(publishing["schedule_times"]) + [""] * SPARE_ROWS,
            "tones": TONES,
            "structures": STRUCTURES,
            "publish_statuses": PUBLISH_STATUSES,
            "frequencies": SCHEDULE_FREQUENCIES,
        }

    def save(self, request):
        key = content_key_of(request.POST)
        current = system.content_settings(request.account, key)
        values = validated(CONTENT_FORMS[key], request, changed(read_content(request.POST), current))
        services.content_settings_save(account=request.account, key=key, user=request.user, values=values)
        return self.done(request, reverse("console:settings-content") + f"?saved={key}")


def prompt_type_of(post) -> str:
    prompt_type = post.get("prompt_type", "")
    if prompt_type not in PROMPTS:
        raise Http404()
    return prompt_type


class PromptsView(AccountSettingsView):
    """The AI's prompts: the account's own text of each, or the default, with the variables it may use."""

    template_name = "console/pages/settings_prompts.html"

    def context(self, request, *, submitted=None) -> dict:
        prompts = system.prompt_list(request.account)
        if submitted is not None:
            for prompt in prompts:
                if prompt["prompt_type"] == submitted.get("prompt_type"):
                    prompt["prompt_value"] = submitted.get("prompt_value", "")
        return {"prompts": prompts, "max_length": s.MAX_PROMPT_LENGTH}

    def save(self, request):
        prompt_type = prompt_type_of(request.POST)
        text = validated(s.PromptInputSerializer, request, {"prompt_value": request.POST.get("prompt_value", "")})["prompt_value"]
        services.prompt_save(account=request.account, prompt_type=prompt_type, text=text, user=request.user)
        return self.done(request, reverse("console:settings-prompts") + f"?saved={prompt_type}#prompt-{prompt_type}")


class PromptResetView(ConsoleView):
    """The account's text of a prompt removed, so the default applies again."""

    write_roles = MANAGER_ROLES

    def post(self, request):
        prompt_type = prompt_type_of(request.POST)
        services.prompt_reset(account=request.account, prompt_type=prompt_type)
        return self.done(request, reverse("console:settings-prompts") + f"?reset={prompt_type}#prompt-{prompt_type}")


class ModulesView(AccountSettingsView):
    """The modules switched on and off; a module switched off hides its pages and buttons."""

    template_name = "console/pages/settings_modules.html"

    def context(self, request, *, submitted=None) -> dict:
        states = system.module_states(request.account)
        return {"modules": [(module, MODULE_TITLES[module], states[module]) for module in MODULES]}

    def save(self, request):
        chosen = set(request.POST.getlist("modules"))
        modules = validated(s.ModulesInputSerializer, request, {"modules": {module: module in chosen for module in MODULES}})["modules"]
        services.modules_save(account=request.account, modules=modules)
        return self.done(request, reverse("console:settings-modules") + "?saved=1")

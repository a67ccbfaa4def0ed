from django.apps import AppConfig


class AIConfig(AppConfig):
    name = "inkwell.ai"
    label = "ai"
    verbose_name = "AI engine"

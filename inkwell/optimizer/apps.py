from django.apps import AppConfig


class OptimizerConfig(AppConfig):
    name = "inkwell.optimizer"
    label = "optimizer"
    verbose_name = "Optimizer"

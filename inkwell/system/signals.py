"""The cached module switches (``selectors.disabled_modules``) are forgotten when a switch changes."""

from django.conf import settings
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from inkwell.api import cache as cached_values
from inkwell.system.models import ModuleSetting
from inkwell.system.selectors import disabled_modules_key


@receiver([post_save, post_delete], sender=ModuleSetting, dispatch_uid="disabled_modules_changed")
def module_setting_changed(sender, instance: ModuleSetting, **kwargs) -> None:
    if settings.INKWELL_PRINCIPAL_CACHE_SECONDS:
        cached_values.forget([disabled_modules_key(instance.account_id)])

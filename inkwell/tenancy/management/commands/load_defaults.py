from django.core.management.base import BaseCommand

from inkwell.tenancy.defaults import load_defaults
from inkwell.tenancy.models import Industry, IndustrySector, Plan, Role


class Command(BaseCommand):
    help = "Create or update the default plans, roles and industries (idempotent)."

    def handle(self, *args, **options):
        load_defaults(Plan, Role, Industry, IndustrySector)
        self.stdout.write(
            f"defaults loaded: {Plan.objects.count()} plans, {Role.objects.count()} roles, "
            f"{Industry.objects.count()} industries, {IndustrySector.objects.count()} industry sectors"
        )

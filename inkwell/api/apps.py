from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "inkwell.api"
    label = "api"

    def ready(self):
        from django.db.backends.signals import connection_created
        from rest_framework import fields, relations

        from inkwell.api.sql import load_timestamps_in_c

        connection_created.connect(load_timestamps_in_c, dispatch_uid="inkwell.api.sql.load_timestamps_in_c")

        # The spec's field messages are word for word, without DRF's trailing period. Setting
        # the base class's defaults here makes every serializer field inherit them.
        fields.Field.default_error_messages["required"] = "This field is required"
        fields.Field.default_error_messages["null"] = "This field may not be null"
        # PrimaryKeyRelatedField (every ``site_id``/``user_id`` in a payload) declares its own copy.
        relations.PrimaryKeyRelatedField.default_error_messages["required"] = "This field is required"

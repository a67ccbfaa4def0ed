"""The authentication backend of sessions (the console, and the API's session credential)."""

from django.contrib.auth.backends import ModelBackend

from inkwell.tenancy import principal


class PrincipalBackend(ModelBackend):
    """Django's ``ModelBackend`` (the same password check at sign-in) whose ``get_user`` reads the
    principal: the user with account, subscription, plan and role, from the cache on Redis. Every
    request of a session loads its user; the model backend's query, and the console's second one
    for the account and role, were most of the cost of a polled fragment such as the bell."""

    def get_user(self, user_id):
        user = principal.session_user(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None

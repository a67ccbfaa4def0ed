"""Errors a provider raises. ``message`` is safe to show a user and to log: it never holds a key,
a prompt or a raw provider body."""


class AIError(Exception):
    code = "ai_error"
    message = "The AI provider failed"
    retryable = False
    # What a job retried after this error waits for (its progress message says so).
    waits_for = "the AI provider"

    def __init__(self, message: str | None = None):
        self.message = message or self.message
        super().__init__(self.message)


class ProviderTimeout(AIError):
    code = "provider_timeout"
    message = "The AI provider did not answer in time"
    retryable = True


class ProviderRateLimited(AIError):
    code = "provider_rate_limited"
    message = "The AI provider is rate limiting requests"
    retryable = True


class ProviderUnavailable(AIError):
    code = "provider_error"
    message = "The AI provider returned an error"
    retryable = True


class ProviderAuthFailed(AIError):
    code = "provider_auth_failed"
    message = "The AI provider rejected the API key"


class InvalidProviderOutput(AIError):
    code = "invalid_provider_output"
    message = "The AI provider's answer did not match the expected format"


class ProviderNotConfigured(AIError):
    code = "provider_not_configured"
    message = "The AI provider is not configured"

"""The errors every LLM call can raise, split by what the caller should do.

`LLMError` is a business error (bad key, unknown model, nothing configured):
retrying cannot help, so tasks record it and move on. `TransientLLMError` is
a failure of the moment (connection, timeout, 429, 5xx): safe to retry later,
after `retry_after` seconds when the server said so. Messages name the API,
never its key.
"""


class LLMError(Exception):
    """An LLM call failed in a way a retry will not fix."""


class NoDefaultModel(LLMError):
    """No active system-default model of the requested type is configured."""


class ValidationFailed(LLMError):
    """Validating an API failed; the message says why (the job row shows it)."""


class TransientLLMError(LLMError):
    """An LLM call failed for now; the same call may succeed later."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class CircuitOpenError(TransientLLMError):
    """The API failed repeatedly and is resting; calls fail fast until the cool-down ends."""

"""What the LLM manager tells the apps built on it, which it does not import."""

from django.dispatch import Signal

# Sent (model=, user=) before a model becomes the default embedding model. A receiver whose data must first be
# embedded with it (the library's chunks) starts that work and returns its job: the model becomes the default when
# that job is done, not now. Receivers with nothing to prepare return None.
embedding_default_requested = Signal()

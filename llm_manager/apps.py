from django.apps import AppConfig


class LlmManagerConfig(AppConfig):
    name = "llm_manager"
    verbose_name = "LLM manager"

from django.apps import AppConfig


class TrustCenterConfig(AppConfig):
    name = "trust_center"
    verbose_name = "Trust center"

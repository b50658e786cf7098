from django.apps import AppConfig


class RfpManagerConfig(AppConfig):
    name = "rfp_manager"
    verbose_name = "RFP manager"

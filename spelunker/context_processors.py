from django.conf import settings


def links(request):
    """Links every page may show (Flower, for the job pages)."""
    return {"FLOWER_URL": settings.FLOWER_URL}

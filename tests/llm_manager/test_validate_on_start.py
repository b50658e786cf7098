"""An LLM API is validated when it is added and when Beat starts, not left "Unknown" until Validate now."""

import pytest
from celery.signals import beat_init
from django.urls import reverse
from django.utils import timezone

from llm_manager.models import LLMApi, ValidationRun

pytestmark = pytest.mark.django_db


def test_an_api_added_in_the_admin_is_validated_after_commit(staff_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        response = staff_client.post(
            reverse("admin:llm_manager_llmapi_add"),
            {
                "name": "Team vLLM",
                "kind": "openai",
                "base_url": "http://127.0.0.1:9/v1",
                "api_key": "",
                "is_active": "on",
                "timeout_seconds": "60",
                "max_concurrent_requests": "8",
                "requests_per_minute": "600",
                "models-TOTAL_FORMS": "0",
                "models-INITIAL_FORMS": "0",
            },
        )
    assert response.status_code == 302, response.content.decode()[:2000]
    api = LLMApi.objects.get(name="Team vLLM")
    assert ValidationRun.objects.filter(api=api, status="pending").count() == 1
    assert len(callbacks) == 1  # the run's task is sent once the API's row is committed

    with django_capture_on_commit_callbacks() as again:  # a save that leaves the connection alone: no new run
        staff_client.post(
            reverse("admin:llm_manager_llmapi_change", args=[api.pk]),
            {**response.wsgi_request.POST.dict(), "requests_per_minute": "300"},
        )
    assert LLMApi.objects.get(pk=api.pk).requests_per_minute == 300
    assert ValidationRun.objects.filter(api=api).count() == 1 and not again


def test_beat_starting_validates_the_apis_nobody_validated_yet(django_capture_on_commit_callbacks):
    LLMApi.objects.all().delete()
    fresh = LLMApi.objects.create(name="Fresh install", kind=LLMApi.KIND_LOCAL)
    LLMApi.objects.create(name="Known", kind=LLMApi.KIND_LOCAL, last_validated_at=timezone.now())
    LLMApi.objects.create(name="Switched off", kind=LLMApi.KIND_LOCAL, is_active=False)

    with django_capture_on_commit_callbacks() as callbacks:
        beat_init.send(sender=None)
        beat_init.send(sender=None)  # a restart before the run finished: the same pending run
    assert list(ValidationRun.objects.values_list("api__name", flat=True)) == [fresh.name]
    assert len(callbacks) == 1

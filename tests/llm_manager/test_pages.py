"""Pages and admin: health list, API detail with Validate, and the API key never leaving the server."""

import logging

import pytest
from django.urls import reverse

from llm_manager.models import LLMApi, LLMModel, ValidationRun
from llm_manager.testing.fixtures import register_fake_api

pytestmark = pytest.mark.django_db
SECRET = "sk-live-TOPSECRET-0123456789"


@pytest.fixture
def keyed_api(fake_llm):
    fake_llm.configure(api_key=SECRET)
    return register_fake_api(fake_llm, api_key=SECRET)


def test_list_shows_health_last_validation_and_model_counts(user_client, keyed_api):
    LLMApi.objects.filter(pk=keyed_api.pk).update(
        health_status="unhealthy", last_error="Cannot connect <script>x</script>"
    )
    LLMModel.objects.create(api=keyed_api, name="old-model", is_active=False)
    page = user_client.get(reverse("llm_manager:index")).content.decode()
    assert "Offline baseline (extractive, no network)" in page
    assert "badge-unhealthy" in page and "2 active / 3" in page and "never" in page
    assert "&lt;script&gt;x&lt;/script&gt;" in page and "<script>x</script>" not in page


def test_detail_shows_models_and_validate_button_for_staff_only(client, user, staff_user, keyed_api):
    url = reverse("llm_manager:api_detail", args=[keyed_api.pk])
    client.force_login(user)
    page = client.get(url).content.decode()
    assert "fake-embed" in page and "384 dimensions" in page and "default embedding" in page
    assert "Validate now" not in page
    assert client.post(reverse("llm_manager:api_validate", args=[keyed_api.pk])).status_code == 403
    client.force_login(staff_user)
    assert "Validate now" in client.get(url).content.decode()


def test_offline_page_says_what_it_is(user_client):
    api = LLMApi.objects.get(kind="offline")
    page = user_client.get(reverse("llm_manager:api_detail", args=[api.pk])).content.decode()
    assert "Built-in offline baseline" in page and "never writes new text" in page


def test_validate_button_queues_one_run_after_commit(staff_client, keyed_api, django_capture_on_commit_callbacks):
    url = reverse("llm_manager:api_validate", args=[keyed_api.pk])
    with django_capture_on_commit_callbacks() as callbacks:
        staff_client.post(url)
        staff_client.post(url)  # a double click finds the pending run
    assert ValidationRun.objects.filter(api=keyed_api).count() == 1
    assert len(callbacks) == 1
    run = ValidationRun.objects.get(api=keyed_api)
    status = staff_client.get(reverse("llm_manager:validation_status", args=[run.pk]))
    assert status.json()["status"] == "pending"
    partial = staff_client.get(reverse("llm_manager:validation_status", args=[run.pk]), HTTP_HX_REQUEST="true")
    assert b'hx-trigger="every 1s"' in partial.content


def test_status_endpoint_requires_login(client, keyed_api):
    run = ValidationRun.objects.create(api=keyed_api)
    response = client.get(reverse("llm_manager:validation_status", args=[run.pk]))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_finished_validation_reloads_the_page_once_so_health_and_models_show(user_client, keyed_api):
    run = ValidationRun.objects.create(api=keyed_api)
    url = reverse("llm_manager:validation_status", args=[run.pk])
    polling = user_client.get(url, headers={"HX-Request": "true"})
    assert "HX-Refresh" not in polling and b"hx-trigger" in polling.content

    run.start("t")
    run.finish(ValidationRun.STATUS_COMPLETED)
    done = user_client.get(url, headers={"HX-Request": "true"})
    assert done["HX-Refresh"] == "true" and b"hx-trigger" not in done.content


def test_api_key_is_in_no_page_form_log_or_task_result(staff_client, keyed_api, caplog):
    caplog.set_level(logging.DEBUG)
    from llm_manager import services
    from llm_manager.tasks import validate_all_llm_apis

    result = validate_all_llm_apis.apply().get()
    assert result["successful"] == 3  # the key works: it was sent to the API (+ the offline and local APIs)
    services.chat([{"role": "user", "content": "hello"}])
    LLMApi.objects.filter(pk=keyed_api.pk).update(base_url=keyed_api.base_url + "/missing")
    services.validate_api(keyed_api.pk)  # an error path too

    pages = [
        reverse("llm_manager:index"),
        reverse("llm_manager:api_detail", args=[keyed_api.pk]),
        reverse("admin:llm_manager_llmapi_change", args=[keyed_api.pk]),
        reverse("admin:llm_manager_llmapi_changelist"),
        reverse("admin:llm_manager_validationrun_changelist"),
        reverse("llm_manager:validation_status", args=[result["job_id"]]),
    ]
    for url in pages:
        response = staff_client.get(url)
        assert response.status_code == 200, url
        assert SECRET not in response.content.decode(), url
    assert SECRET not in str(result)
    assert SECRET not in caplog.text
    assert "fake-chat" in caplog.text or "Fake OpenAI" in caplog.text  # the logs did capture these calls


def test_admin_form_keeps_the_key_when_blank_and_replaces_or_clears_it(staff_client, keyed_api):
    url = reverse("admin:llm_manager_llmapi_change", args=[keyed_api.pk])
    form = {
        "name": keyed_api.name,
        "kind": "openai",
        "base_url": keyed_api.base_url,
        "api_key": "",
        "is_active": "on",
        "timeout_seconds": "5",
        "max_concurrent_requests": "2",
        "requests_per_minute": "0",
        "models-TOTAL_FORMS": "0",
        "models-INITIAL_FORMS": "0",
        "models-MIN_NUM_FORMS": "0",
        "models-MAX_NUM_FORMS": "1000",
    }
    assert staff_client.post(url, form).status_code == 302
    assert LLMApi.objects.get(pk=keyed_api.pk).api_key == SECRET
    staff_client.post(url, {**form, "api_key": "sk-new"})
    assert LLMApi.objects.get(pk=keyed_api.pk).api_key == "sk-new"
    staff_client.post(url, {**form, "clear_api_key": "on"})
    assert LLMApi.objects.get(pk=keyed_api.pk).api_key == ""


def test_admin_make_default_action(staff_client, keyed_api):
    offline_chat = LLMModel.objects.get(name="offline-extractive-chat-v1")
    staff_client.post(
        reverse("admin:llm_manager_llmmodel_changelist"),
        {"action": "make_default", "_selected_action": [offline_chat.pk]},
    )
    assert list(LLMModel.objects.filter(is_system_default=True).values_list("name", flat=True).order_by("name")) == [
        "fake-embed",
        "offline-extractive-chat-v1",
    ]


def test_admin_validate_action_queues_runs(staff_client, keyed_api, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        staff_client.post(
            reverse("admin:llm_manager_llmapi_changelist"),
            {"action": "validate_selected", "_selected_action": [keyed_api.pk]},
        )
    assert ValidationRun.objects.filter(api=keyed_api, status="pending").count() == 1 and len(callbacks) == 1


def test_a_run_started_while_the_broker_is_down_waits_for_it_and_is_sent_later(
    staff_client, keyed_api, django_capture_on_commit_callbacks, request
):
    """Broker down at the click: the run is accepted and waits (no 500); a second click finds it, Beat sends it later."""
    from jobs.dispatch import publish_pending

    url = reverse("llm_manager:api_validate", args=[keyed_api.pk])
    broker_is_back = request.getfixturevalue("unreachable_broker")
    with django_capture_on_commit_callbacks(execute=True):
        assert staff_client.post(url).status_code == 302
    run = ValidationRun.objects.get(api=keyed_api)
    assert (run.status, run.error_code) == ("pending", "broker_unavailable")
    with django_capture_on_commit_callbacks() as callbacks:
        staff_client.post(url)
    assert ValidationRun.objects.filter(api=keyed_api).count() == 1 and len(callbacks) == 0
    broker_is_back()
    assert publish_pending()["sent"] == 1
    run.refresh_from_db()
    assert (run.status, run.error_code) == ("pending", "")


def test_a_run_left_processing_by_a_killed_worker_does_not_block_validation_forever(
    staff_client, keyed_api, django_capture_on_commit_callbacks
):
    """validate_single_api's hard limit kills the process without a word: the run row stays processing."""
    from datetime import timedelta

    from django.utils import timezone

    stuck = ValidationRun.objects.create(api=keyed_api, status="processing", total_items=1)
    ValidationRun.objects.filter(pk=stuck.pk).update(updated_at=timezone.now() - timedelta(hours=1))
    with django_capture_on_commit_callbacks() as callbacks:
        staff_client.post(reverse("llm_manager:api_validate", args=[keyed_api.pk]))
    stuck.refresh_from_db()
    assert stuck.status == "failed" and stuck.message
    assert ValidationRun.objects.filter(api=keyed_api, status="pending").count() == 1 and len(callbacks) == 1

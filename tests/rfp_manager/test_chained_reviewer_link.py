"""A finished responder's progress block leads to its chained reviewer without a reload."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from rfp_manager.models import RFPBatchJob

from .conftest import make_rfp

pytestmark = pytest.mark.django_db


@pytest.fixture
def responder(user):
    rfp = make_rfp(user, ["Do you encrypt data at rest?"])
    return RFPBatchJob.objects.create(
        rfp=rfp,
        job_type="responder",
        review_when_done=True,
        status="completed",
        completed_at=timezone.now(),
        total_items=1,
        processed_items=1,
    )


def progress_block(client, job) -> str:
    return client.get(reverse("rfp_manager:job_status", args=[job.pk]), HTTP_HX_REQUEST="true").content.decode()


def test_the_block_polls_until_the_reviewer_exists_then_links_to_it(responder, user_client):
    assert "Starting the reviewer…" in progress_block(user_client, responder)

    reviewer = RFPBatchJob.objects.create(rfp=responder.rfp, job_type="reviewer", chained_from=responder)

    block = progress_block(user_client, responder)
    assert "Starting the reviewer…" not in block
    assert f'href="{reverse("rfp_manager:job", args=[reviewer.pk])}"' in block


def test_it_stops_waiting_when_no_reviewer_came(responder, user_client):
    RFPBatchJob.objects.filter(pk=responder.pk).update(completed_at=timezone.now() - timedelta(minutes=2))

    block = progress_block(user_client, responder)

    assert "Starting the reviewer…" not in block and "hx-get" not in block

"""Answering retries a transient chat failure in the task, never sooner than the server's Retry-After."""

import pytest

from llm_manager.exceptions import TransientLLMError
from llm_manager.models import LLMModel
from llm_manager.testing.fixtures import register_fake_api
from rfp_manager.services import answering

pytestmark = pytest.mark.django_db
HELLO = [{"role": "user", "content": "hello"}]


def test_a_rate_limited_chat_is_tried_again_no_sooner_than_retry_after(fake_llm):
    register_fake_api(fake_llm)
    fake_llm.configure(fault="429", retry_after=1.5)
    with pytest.raises(TransientLLMError, match="rate limiting"):
        answering.chat_with_retries(HELLO, LLMModel.objects.get(name="fake-chat"))
    starts = [request["started"] for request in fake_llm.requests_to("/v1/chat/completions")]
    assert len(starts) == answering.TRANSIENT_ATTEMPTS
    assert all(later - earlier >= 1.5 for earlier, later in zip(starts, starts[1:]))

"""Fuzzing the library upload and every form over HTTP: no 500, a clear answer every time,
and no row stored before the request changed or lost (except the one a valid form edits)."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import example, given
from hypothesis import strategies as st

from llm_manager.models import LLMApi
from rfp_manager.models import RFP, Answer

from .fuzz import changed_or_lost, error_messages, fuzz_settings, snapshot

pytestmark = pytest.mark.django_db

# Anything a browser can put in a form field (NUL is refused by Django's form fields with a message).
field_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=300)
file_names = st.one_of(
    st.sampled_from(
        ["../../etc/passwd", "a" * 300 + ".txt", "<script>.md", "x.pdf", "doc.docx", "notes.txt", ".hidden", "CON.html"]
    ),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=120),
)
file_bytes = st.one_of(
    st.binary(max_size=4000),
    st.text(max_size=2000).map(str.encode),
    st.sampled_from([b"%PDF-1.7\n", b"PK\x03\x04", b"\x00" * 64, b"<html><script>x</script>"]),
)


@pytest.fixture
def owner_client(client_factory, user):
    return client_factory(user)


def _assert_untouched_except(before, may_change=frozenset()):
    assert changed_or_lost(before, snapshot(), may_change) == []


@fuzz_settings("upload")
@given(files=st.lists(st.tuples(file_names, file_bytes), min_size=0, max_size=3))
@example(files=[("empty.txt", b""), ("../../escape.md", b"# Title\n\nText."), ("nul.txt", b"a\x00b")])
def test_library_upload(world, owner_client, files):
    before = snapshot()
    uploads = [SimpleUploadedFile(name, data) for name, data in files]
    response = owner_client.post(
        reverse("solution_library:upload"), {"files": uploads}, headers={"Accept": "application/json"}
    )
    assert response.status_code in (200, 400)
    results = response.json()["results"]
    assert len(results) == len(files)
    for result in results:
        assert result["ok"] or result["error"].strip(), result  # stored, or refused with a reason
    _assert_untouched_except(before)


@fuzz_settings("form")
@given(name=field_text, client_name=field_text, due_date=field_text, status=st.sampled_from(["draft", "x", ""]))
def test_rfp_create_form(world, owner_client, name, client_name, due_date, status):
    before, count = snapshot(), RFP.objects.count()
    response = owner_client.post(
        reverse("rfp_manager:create"), {"name": name, "client": client_name, "due_date": due_date, "status": status}
    )
    assert response.status_code in (200, 302)
    if response.status_code == 200:
        assert error_messages(response) and RFP.objects.count() == count
    else:
        assert RFP.objects.count() == count + 1
    _assert_untouched_except(before)


@fuzz_settings("form")
@given(name=field_text, due_date=field_text, status=st.sampled_from(["draft", "submitted", "nonsense", ""]))
def test_rfp_edit_form(world, owner_client, name, due_date, status):
    rfp = world.rfp
    before = snapshot()
    response = owner_client.post(
        reverse("rfp_manager:edit", args=[rfp.pk]), {"name": name, "client": "", "due_date": due_date, "status": status}
    )
    assert response.status_code in (200, 302)
    if response.status_code == 200:
        assert error_messages(response)
        _assert_untouched_except(before)
    else:
        _assert_untouched_except(before, may_change={("RFP", rfp.pk)})


@fuzz_settings("form")
@given(text=field_text)
@example(text="=cmd|' /C calc'!A0")
def test_answer_edit_form(world, owner_client, text):
    question = world.question
    before = snapshot()
    response = owner_client.post(reverse("rfp_manager:answer_edit", args=[question.pk]), {"final_text": text})
    assert response.status_code in (200, 302)
    answer = Answer.objects.get(question=question)
    if response.status_code == 200:
        assert error_messages(response)
    else:
        assert answer.final_text == text.strip() or answer.final_text == text.replace("\r\n", "\n").strip()
    # An edit moves the question's status, and the RFP's status and progress follow its questions.
    _assert_untouched_except(
        before, may_change={("Answer", answer.pk), ("Question", question.pk), ("RFP", question.rfp_id)}
    )


@fuzz_settings("upload")
@given(title=field_text, upload=st.tuples(file_names, file_bytes))
def test_rfp_document_upload_form(world, owner_client, title, upload):
    before = snapshot()
    response = owner_client.post(
        reverse("rfp_manager:document_upload", args=[world.rfp.pk]),
        {"title": title, "file": SimpleUploadedFile(*upload)},
    )
    assert response.status_code in (302, 400)
    if response.status_code == 400:
        assert error_messages(response)
    _assert_untouched_except(before)


@fuzz_settings("form")
@given(query=field_text)
def test_search_form(world, owner_client, query):
    before = snapshot()
    assert owner_client.get(reverse("solution_library:search"), {"q": query}).status_code == 200
    _assert_untouched_except(before)


@fuzz_settings("form")
@given(username=field_text, password=field_text)
def test_login_form(world, client, username, password):
    response = client.post(reverse("login"), {"username": username, "password": password})
    # Refused with the form's message, or (after repeated guesses at one name) the lockout page.
    assert response.status_code in (200, 429) and "_auth_user_id" not in client.session
    assert error_messages(response)


@fuzz_settings("form")
@given(
    name=field_text,
    kind=st.sampled_from([LLMApi.KIND_OPENAI, LLMApi.KIND_OFFLINE, "nonsense", ""]),
    base_url=field_text,
    api_key=st.text("0123456789abcdef", min_size=12).map("sk-fuzz-".__add__),
    numbers=st.lists(field_text | st.integers().map(str), min_size=3, max_size=3),
)
def test_llm_api_admin_form(world, staff_client, name, kind, base_url, api_key, numbers):
    before = snapshot()
    response = staff_client.post(
        reverse("admin:llm_manager_llmapi_add"),
        {
            "name": name,
            "kind": kind,
            "base_url": base_url,
            "api_key": api_key,
            "timeout_seconds": numbers[0],
            "max_concurrent_requests": numbers[1],
            "requests_per_minute": numbers[2],
            "models-TOTAL_FORMS": "0",
            "models-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code in (200, 302)
    if response.status_code == 200:
        assert error_messages(response)
        assert api_key not in response.content.decode()  # the key is write-only, even when refused
    _assert_untouched_except(before)


@fuzz_settings("form")
@given(
    name=field_text,
    start_url=field_text,
    allowed_host=field_text,
    numbers=st.lists(field_text | st.integers().map(str), min_size=2, max_size=2),
)
@example(name="Docs", start_url="javascript:alert(1)", allowed_host="docs.example.com", numbers=["10", "24"])
def test_documentation_source_admin_form(world, staff_client, name, start_url, allowed_host, numbers):
    before = snapshot()
    response = staff_client.post(
        reverse("admin:solution_library_documentationsource_add"),
        {
            "name": name,
            "start_url": start_url,
            "allowed_host": allowed_host,
            "page_limit": numbers[0],
            "sync_interval_hours": numbers[1],
            "is_active": "on",
        },
    )
    assert response.status_code in (200, 302)
    if response.status_code == 200:
        assert error_messages(response)
    _assert_untouched_except(before)

"""The trust center's public pages: every view is open to anonymous visitors and sees only what is published.

A center that is not live, a document that is not published, a token that is
forged, expired or declined: each is the same plain 404, so an address tells
nothing about what exists behind it.
"""

import mimetypes

from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from .forms import AccessRequestForm, AskTeamForm, SearchForm
from .models import PublishedDocument, TrustCenter
from .services import access, publishing, questions, visitors
from .services.visitors import Kind

TOO_MANY = 429


def _center(slug: str) -> TrustCenter:
    center = publishing.live_center(slug)
    if center is None:
        raise Http404("No such trust center")
    return center


def _page(request, center: TrustCenter, status: int = 200, **context):
    context = {
        "center": center,
        "sections": publishing.page_sections(center),
        "documents": center.documents.all(),
        "search_form": SearchForm(request.GET or None),
        "ask_form": AskTeamForm(),
        **context,
    }
    return render(request, "trust_center/page.html", context, status=status)


@login_not_required
@require_GET
def page(request, slug):
    """The page; with ?q= it also answers the visitor's question from the published entries."""
    center = _center(slug)
    form = SearchForm(request.GET) if "q" in request.GET else None
    if form is None:
        visitors.log(center, Kind.PAGE_VIEW, request)
        return _page(request, center)
    if visitors.over_limit(center, Kind.SEARCH, request):
        return _page(request, center, TOO_MANY, limited=True)
    if not form.is_valid():
        return _page(request, center, searched=False)
    question = form.cleaned_data["q"]
    visitors.log(center, Kind.SEARCH, request, detail=question)
    found = questions.answer(center, question)
    return _page(request, center, searched=True, found=found, ask_form=AskTeamForm(initial={"question": question}))


@login_not_required
@require_GET
def logo(request, slug):
    center = _center(slug)
    if not center.logo:
        raise Http404("No logo")
    content_type = mimetypes.guess_type(center.logo.name)[0] or "application/octet-stream"
    with center.logo.open("rb") as f:
        return HttpResponse(f.read(), content_type=content_type)


@login_not_required
@require_POST
def ask_team(request, slug):
    center = _center(slug)
    form = AskTeamForm(request.POST)
    if visitors.over_limit(center, Kind.QUESTION, request):
        return render(request, "trust_center/ask.html", {"center": center, "limited": True}, status=TOO_MANY)
    if not form.is_valid():
        return render(request, "trust_center/ask.html", {"center": center, "form": form})
    questions.send_to_team(center, form.cleaned_data["question"], form.cleaned_data["email"])
    visitors.log(center, Kind.QUESTION, request, email=form.cleaned_data["email"], detail=form.cleaned_data["question"])
    return render(request, "trust_center/ask.html", {"center": center, "sent": True})


def _published(center: TrustCenter, uuid, access_kind: str) -> PublishedDocument:
    return get_object_or_404(
        PublishedDocument.objects.select_related("document"), center=center, uuid=uuid, access=access_kind
    )


def _file_response(data: bytes, document: PublishedDocument) -> HttpResponse:
    name = document.document.file.name.rsplit("/", 1)[-1]
    content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
    response = HttpResponse(data, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _read(document: PublishedDocument) -> bytes:
    with document.document.file.open("rb") as f:
        return f.read()


@login_not_required
@require_GET
def public_download(request, slug, uuid):
    center = _center(slug)
    document = _published(center, uuid, PublishedDocument.Access.PUBLIC)
    visitors.log(center, Kind.DOWNLOAD, request, document=document)
    return _file_response(_read(document), document)


@login_not_required
@require_http_methods(["GET", "POST"])
def request_document(request, slug, uuid):
    """The NDA and the form; a valid request waits for the team."""
    center = _center(slug)
    document = _published(center, uuid, PublishedDocument.Access.ON_REQUEST)
    context = {"center": center, "document": document}
    if request.method == "GET":
        return render(request, "trust_center/request.html", {**context, "form": AccessRequestForm()})
    if visitors.over_limit(center, Kind.REQUEST, request):
        return render(request, "trust_center/request.html", {**context, "limited": True}, status=TOO_MANY)
    form = AccessRequestForm(request.POST)
    if not form.is_valid():
        return render(request, "trust_center/request.html", {**context, "form": form})
    data = form.cleaned_data
    made = access.request_access(document, name=data["name"], company=data["company"], email=data["email"])
    visitors.log(center, Kind.REQUEST, request, email=made.email, document=document, access_request=made)
    return render(request, "trust_center/request.html", {**context, "sent": made})


def _access_request(slug, token):
    access_request = access.request_for_token(token, slug)
    if access_request is None or not access_request.document.center.is_live:
        raise Http404("No such link")
    return access_request


@login_not_required
@require_GET
def access_page(request, slug, token):
    """What an approved visitor's link opens: their document, and nothing else."""
    access_request = _access_request(slug, token)
    center, document = access_request.document.center, access_request.document
    visitors.log(
        center, Kind.LINK_OPENED, request, email=access_request.email, document=document, access_request=access_request
    )
    context = {
        "center": center,
        "document": document,
        "access_request": access_request,
        "token": token,
        "mark_note": access.mark_note(access_request),
    }
    return render(request, "trust_center/access.html", context)


@login_not_required
@require_GET
def access_download(request, slug, token):
    access_request = _access_request(slug, token)
    center, document = access_request.document.center, access_request.document
    data, marked = access.watermarked(_read(document), document.document.file_type, access_request.email, center.name)
    visitors.log(
        center,
        Kind.DOWNLOAD,
        request,
        email=access_request.email,
        document=document,
        access_request=access_request,
        detail="watermarked" if marked else "not watermarked (not a PDF)",
    )
    return _file_response(data, document)

"""The team's side of the trust center: set the page up, choose what it shows, decide requests, read the visitor log."""

from django.contrib import admin, messages

from .models import (
    AccessRequest,
    PublishedDocument,
    PublishedEntry,
    Section,
    TrustCenter,
    VisitorEvent,
    VisitorQuestion,
)
from .services import access, publishing
from .tasks import dispatch_access_link


class SectionInline(admin.TabularInline):
    model = Section
    extra = 1


class PublishedDocumentInline(admin.TabularInline):
    model = PublishedDocument
    extra = 1
    fields = ["title", "document", "access", "description", "order"]
    raw_id_fields = ["document"]


@admin.register(TrustCenter)
class TrustCenterAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "is_live"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [SectionInline, PublishedDocumentInline]


@admin.register(PublishedEntry)
class PublishedEntryAdmin(admin.ModelAdmin):
    """Adding an entry publishes its current text; a later library edit waits here for "Approve the new text"."""

    list_display = ["question", "section", "entry_version", "newer_text_waiting", "entry_status", "approved_at"]
    list_filter = ["section__center", "section"]
    raw_id_fields = ["entry"]
    fields = ["section", "entry", "order", "question", "answer_text", "entry_version", "reviewed_at", "approved_by"]
    readonly_fields = ["question", "answer_text", "entry_version", "reviewed_at", "approved_by"]
    actions = ["approve_new_text"]

    @admin.display(boolean=True, description="Newer text in the library")
    def newer_text_waiting(self, obj):
        return publishing.has_newer_text(obj)

    @admin.display(description="Library status")
    def entry_status(self, obj):
        return obj.entry.get_status_display()

    def save_model(self, request, obj, form, change):
        if change:
            obj.save()  # section and order only: the text changes by the action
            return
        try:
            publishing.approve_text(obj, request.user)
        except publishing.NotApprovable as exc:
            messages.error(request, f"Not published: {exc}")

    @admin.action(description="Approve the library's current text for the page")
    def approve_new_text(self, request, queryset):
        approved = 0
        for published in queryset.select_related("entry"):
            try:
                publishing.approve_text(published, request.user)
                approved += 1
            except publishing.NotApprovable as exc:
                messages.warning(request, str(exc))
        messages.success(request, f"{approved} entr{'y' if approved == 1 else 'ies'} now show the current text.")


@admin.register(AccessRequest)
class AccessRequestAdmin(admin.ModelAdmin):
    list_display = ["email", "name", "company", "document", "status", "created_at", "decided_by"]
    list_filter = ["status", "document__center"]
    search_fields = ["email", "name", "company"]
    readonly_fields = [f.name for f in AccessRequest._meta.fields]
    actions = ["approve", "decline"]

    def has_add_permission(self, request):
        return False

    @admin.action(description="Approve: email the visitor a link")
    def approve(self, request, queryset):
        for access_request in queryset.select_related("document__center"):
            access.decide(access_request, request.user, approve=True)
            dispatch_access_link(access_request)
        messages.success(request, f"Approved {queryset.count()} request(s); the links are being emailed.")

    @admin.action(description="Decline (an approved link stops working)")
    def decline(self, request, queryset):
        for access_request in queryset.select_related("document__center"):
            access.decide(access_request, request.user, approve=False)
        messages.success(request, f"Declined {queryset.count()} request(s).")


@admin.register(VisitorEvent)
class VisitorEventAdmin(admin.ModelAdmin):
    """The visitor log: per visitor (email, or the hash of their address) every view, search, request and download."""

    list_display = ["at", "visitor", "kind", "document", "detail"]
    list_filter = ["center", "kind"]
    search_fields = ["email", "visitor_key", "detail"]
    readonly_fields = [f.name for f in VisitorEvent._meta.fields]

    @admin.display(description="Visitor")
    def visitor(self, obj):
        return obj.email or f"anonymous {obj.visitor_key[:8]}"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(VisitorQuestion)
class VisitorQuestionAdmin(admin.ModelAdmin):
    list_display = ["text", "email", "rfp", "created_at"]
    list_filter = ["center"]
    readonly_fields = ["center", "text", "email", "rfp", "created_at"]

import re

from django import forms
from django.contrib import admin

from .models import Candidate, CanonicalFact, Entry, EntryVersion, Finding, LibraryImport, LibraryJob, Suggestion


class EntryVersionInline(admin.TabularInline):
    model = EntryVersion
    extra = 0
    can_delete = False
    readonly_fields = ["number", "changed_by", "at", "note", "answer_text", "choice"]
    fields = readonly_fields


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ["pk", "question", "status", "owner", "review_by", "origin", "version", "updated_at"]
    list_filter = ["status", "origin"]
    search_fields = ["question", "answer_text"]
    readonly_fields = ["version", "approved_at", "review_reasons", "origin_answer", "merged_into"]
    inlines = [EntryVersionInline]


class CanonicalFactForm(forms.ModelForm):
    class Meta:
        model = CanonicalFact
        fields = "__all__"

    def clean_pattern(self):
        pattern = self.cleaned_data["pattern"]
        try:
            re.compile(pattern)
        except re.error as exc:
            raise forms.ValidationError(f"Not a valid regular expression: {exc}") from exc
        return pattern


@admin.register(CanonicalFact)
class CanonicalFactAdmin(admin.ModelAdmin):
    form = CanonicalFactForm
    list_display = ["name", "value", "pattern", "is_active"]


@admin.register(Finding)
class FindingAdmin(admin.ModelAdmin):
    list_display = ["kind", "first", "second", "similarity", "status"]
    list_filter = ["kind", "status"]


@admin.register(Candidate)
class CandidateAdmin(admin.ModelAdmin):
    list_display = ["answer", "edited_by", "status", "updated_at"]
    list_filter = ["status"]


@admin.register(LibraryImport)
class LibraryImportAdmin(admin.ModelAdmin):
    list_display = ["original_name", "created_by", "created_at"]
    readonly_fields = ["rows", "skipped", "mapping"]


@admin.register(LibraryJob)
class LibraryJobAdmin(admin.ModelAdmin):
    list_display = ["pk", "job_type", "status", "processed_items", "total_items", "created_at"]
    list_filter = ["job_type", "status"]


@admin.register(Suggestion)
class SuggestionAdmin(admin.ModelAdmin):
    """What the library suggested and what people decided: read here, written by the responder and the editor."""

    list_display = ["pk", "entry", "wording", "rank", "score", "outcome", "decided_by", "decided_at"]
    list_filter = ["outcome"]
    search_fields = ["wording", "entry__question"]
    readonly_fields = ["question", "entry", "rank", "score", "wording", "outcome", "decided_by", "decided_at"]

"""The LLM API form: the API key is write-only."""

from django import forms

from .models import LLMApi


class LLMApiForm(forms.ModelForm):
    """Never renders the stored key; leaving the field blank keeps it, a checkbox clears it."""

    api_key = forms.CharField(
        required=False,
        label="API key",
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text="Write-only: the saved key is never shown. Leave blank to keep the current key.",
    )
    clear_api_key = forms.BooleanField(required=False, label="Remove the saved API key")
    base_url = forms.URLField(
        required=False,
        max_length=200,
        assume_scheme="https",
        help_text=LLMApi._meta.get_field("base_url").help_text,
    )

    class Meta:
        model = LLMApi
        fields = [
            "name",
            "kind",
            "base_url",
            "api_key",
            "clear_api_key",
            "is_active",
            "timeout_seconds",
            "max_concurrent_requests",
            "requests_per_minute",
        ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.initial.pop("api_key", None)  # belt and braces: nothing to render even by mistake
        if self.instance.pk and self.instance.has_api_key:
            self.fields["api_key"].help_text = "A key is saved (hidden). " + self.fields["api_key"].help_text
        self.fields["max_concurrent_requests"].min_value = 1

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("kind") == LLMApi.KIND_OPENAI and not cleaned.get("base_url"):
            self.add_error("base_url", "An OpenAI-compatible API needs a base URL, e.g. http://localhost:11434/v1")
        return cleaned

    def clean_max_concurrent_requests(self):
        value = self.cleaned_data["max_concurrent_requests"]
        if value < 1:
            raise forms.ValidationError("At least one request at a time.")
        return value

    def save(self, commit=True):
        api = super().save(commit=False)
        new_key = self.cleaned_data.get("api_key")
        if self.cleaned_data.get("clear_api_key"):
            api.api_key = ""
        elif new_key:
            api.api_key = new_key
        elif api.pk:
            api.api_key = LLMApi.objects.filter(pk=api.pk).values_list("api_key", flat=True).first() or ""
        if commit:
            api.save()
        return api

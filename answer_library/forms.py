from django import forms
from django.contrib.auth import get_user_model

from .models import CHOICES, Entry

BLANK_CHOICE = [("", "—")]


def _lines(value: str) -> list[str]:
    return [line.strip() for line in (value or "").splitlines() if line.strip()]


def _tags(value: str) -> list[str]:
    return [t.strip() for t in (value or "").replace("\n", ",").split(",") if t.strip()]


class EntryFieldsForm(forms.Form):
    """What a person approves or edits: the entry's content and its keeping (owner, tags, review date)."""

    question = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=5000)
    alternatives = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        help_text="Other wordings of the question, one per line",
    )
    answer_text = forms.CharField(label="Answer", widget=forms.Textarea(attrs={"rows": 6}), max_length=20000)
    choice = forms.ChoiceField(choices=BLANK_CHOICE + CHOICES, required=False, label="Yes / No / N/A")
    tags = forms.CharField(required=False, max_length=500, help_text="Comma-separated")
    owner = forms.ModelChoiceField(queryset=get_user_model().objects.filter(is_active=True), required=False)
    review_by = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def entry_values(self) -> dict:
        data = self.cleaned_data
        return {
            "question": data["question"],
            "alternatives": _lines(data["alternatives"]),
            "answer_text": data["answer_text"].strip(),
            "choice": data["choice"],
            "tags": _tags(data["tags"]),
            "owner": data["owner"],
            "review_by": data["review_by"],
        }

    @classmethod
    def initial_for(cls, entry: Entry) -> dict:
        return {
            "question": entry.question,
            "alternatives": "\n".join(entry.alternatives),
            "answer_text": entry.answer_text,
            "choice": entry.choice,
            "tags": ", ".join(entry.tags),
            "owner": entry.owner_id,
            "review_by": entry.review_by,
        }


class ApproveForm(EntryFieldsForm):
    """Approving an RFP answer: a new entry, or the next version of the entry it came from."""

    mode = forms.ChoiceField(
        choices=[("new", "Save as a new entry"), ("update", "Update the entry it came from")],
        widget=forms.RadioSelect,
        initial="new",
    )

    def __init__(self, *args, source_entry: Entry | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if source_entry is None:
            self.fields["mode"].choices = [("new", "Save as a new entry")]
        else:
            self.fields["mode"].choices = [
                ("update", f"Update entry {source_entry.pk} it came from (a new version)"),
                ("new", "Save as a new entry"),
            ]
            self.fields["mode"].initial = "update"


class LibraryImportForm(forms.Form):
    file = forms.FileField(help_text="The client's workbook (.xlsx or .csv) with its answers filled in")
    tags = forms.CharField(required=False, max_length=500, help_text="Given to every imported entry, comma-separated")
    review_by = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def clean_tags(self):
        return _tags(self.cleaned_data["tags"])

from django import forms
from django.core.validators import FileExtensionValidator, MaxValueValidator

from questionnaires.analysis import ROLES

from .models import RFP, Answer, InformationDocument, QuestionStatus
from .services.workspace import CONFIDENCE_BANDS, ORIGINS, SORTS

MAX_UPLOAD_BYTES = 20 * 1024 * 1024
DOCUMENT_EXTENSIONS = ["pdf", "docx", "txt", "md", "html", "htm", "csv"]


def _check_size(upload):
    if upload and upload.size > MAX_UPLOAD_BYTES:
        raise forms.ValidationError(f"The file is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB.")
    return upload


class RFPForm(forms.ModelForm):
    """Sharing is the owner's decision, and only with groups the owner belongs to."""

    class Meta:
        model = RFP
        fields = ["name", "client", "due_date", "status", "shared_with"]
        widgets = {"due_date": forms.DateInput(attrs={"type": "date"})}

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        owner = self.instance.owner if self.instance.pk else user
        if owner != user and not user.is_superuser:
            del self.fields["shared_with"]
        elif not user.is_superuser:
            self.fields["shared_with"].queryset = user.groups.all()


class QuestionImportForm(forms.Form):
    file = forms.FileField(
        required=False,
        help_text="An .xlsx workbook, a .csv file, a Word .docx or a PDF; the questions and answer places are detected.",
        # .xls, .doc and .docm pass here so the import can say what to do with them (save as .xlsx / .docx).
        validators=[FileExtensionValidator(["xlsx", "xlsm", "xls", "csv", "tsv", "txt", "docx", "docm", "doc", "pdf"])],
    )
    text = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 6, "placeholder": "# Security\n1.1 Do you encrypt data at rest?"}),
        help_text="Or paste one question per line; “# Title” starts a section; a leading number (1.2, A.1, SEC-01) is kept.",
    )

    def clean_file(self):
        return _check_size(self.cleaned_data.get("file"))

    def clean(self):
        data = super().clean()
        if not data.get("file") and not (data.get("text") or "").strip():
            raise forms.ValidationError("Choose a file or paste some questions.")
        return data


class ImportRemapForm(forms.Form):
    """One change to an import's mapping, as the preview's controls send it (one field at a time)."""

    sheet = forms.IntegerField(min_value=0)
    include = forms.TypedChoiceField(
        choices=[("1", "include"), ("0", "leave out")], coerce=lambda v: v == "1", required=False, empty_value=None
    )
    header_row = forms.IntegerField(min_value=1, max_value=1000, required=False)
    column = forms.IntegerField(min_value=1, max_value=16384, required=False)
    role = forms.ChoiceField(choices=[(r, r) for r in ROLES], required=False)

    def __init__(self, *args, sheet_count: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["sheet"].validators.append(MaxValueValidator(sheet_count - 1))

    def clean(self):
        data = super().clean()
        if (data.get("column") is None) != (not data.get("role")):
            raise forms.ValidationError("A column and its role go together.")
        return data

    def changes(self) -> dict:
        data = self.cleaned_data
        return {
            "sheet_index": data["sheet"],
            "include": data.get("include"),
            "header_row": data.get("header_row"),
            "column": data.get("column"),
            "role": data.get("role") or None,
        }


class InformationDocumentForm(forms.ModelForm):
    class Meta:
        model = InformationDocument
        fields = ["title", "file"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["file"].validators.append(FileExtensionValidator(DOCUMENT_EXTENSIONS))
        self.fields["title"].required = False

    def clean_file(self):
        return _check_size(self.cleaned_data.get("file"))

    def clean(self):
        data = super().clean()
        if data.get("file") and not data.get("title"):
            data["title"] = data["file"].name[:255]
        return data


class AnswerEditForm(forms.ModelForm):
    class Meta:
        model = Answer
        fields = ["final_text", "choice"]
        labels = {
            "final_text": "Final answer",
            "choice": "Yes / No / Partly / N/A (for the questionnaire's choice column)",
        }
        widgets = {"final_text": forms.Textarea(attrs={"rows": 10})}


class WorkspaceFilterForm(forms.Form):
    """The answers workspace's filters, sort and page, read from the query string (all optional).

    `sections` are the RFP's own; the assignee choices are the people on the RFP.
    """

    q = forms.CharField(
        required=False,
        label="Text",
        widget=forms.TextInput(attrs={"type": "search", "placeholder": "Words in a question or answer"}),
    )
    section = forms.ChoiceField(required=False)
    status = forms.ChoiceField(required=False, choices=[("", "Any status"), *QuestionStatus.choices])
    verdict = forms.ChoiceField(
        required=False,
        choices=[("", "Any verdict"), ("none", "Not reviewed"), *Answer.Verdict.choices],
        label="Reviewer's verdict",
    )
    band = forms.ChoiceField(required=False, label="Confidence", choices=[("", "Any confidence"), *CONFIDENCE_BANDS])
    origin = forms.ChoiceField(required=False, choices=[("", "Any origin"), *ORIGINS])
    assignee = forms.TypedChoiceField(required=False, coerce=int, empty_value=None)
    mine = forms.BooleanField(required=False, label="Mine")
    suggested = forms.BooleanField(required=False, label="Has library suggestions")
    sort = forms.ChoiceField(required=False, choices=SORTS)
    page = forms.IntegerField(required=False, min_value=1)

    def __init__(self, *args, sections=(), assignees=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["section"].choices = [("", "Any section"), *[(s, s) for s in sections]]
        self.fields["assignee"].choices = [("", "Anyone"), *[(u.pk, u.get_username()) for u in assignees]]

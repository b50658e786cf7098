from django import forms
from django.contrib.auth import get_user_model

from core.excerpts import excerpt

from .models import Role


class AssignForm(forms.Form):
    """Questions of one RFP, a colleague, a due date. The assignee is checked by the service (with the reason)."""

    questions = forms.ModelMultipleChoiceField(queryset=None, widget=forms.CheckboxSelectMultiple)
    assignee = forms.ModelChoiceField(queryset=None, empty_label="Choose a colleague")
    due_date = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args, rfp, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["questions"].queryset = rfp.questions.order_by("order", "pk")
        self.fields["questions"].label_from_instance = lambda q: f"{q.label}: {excerpt(q.text, 120)}"
        # Everyone active: assigning to someone who cannot answer is refused with the reason, not hidden.
        self.fields["assignee"].queryset = get_user_model().objects.filter(is_active=True).order_by("username")


class RoleForm(forms.Form):
    user = forms.ModelChoiceField(queryset=None, empty_label="Choose a person")
    role = forms.ChoiceField(choices=Role.choices)

    def __init__(self, *args, rfp, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["user"].queryset = (
            get_user_model().objects.filter(is_active=True).exclude(pk=rfp.owner_id).order_by("username")
        )


class CommentForm(forms.Form):
    text = forms.CharField(
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": "Comment; @name mentions"}),
        label="Comment",
    )

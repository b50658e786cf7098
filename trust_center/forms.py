from django import forms


class SearchForm(forms.Form):
    q = forms.CharField(label="Ask a security question", max_length=500)


class AskTeamForm(forms.Form):
    question = forms.CharField(label="Your question", max_length=1000, widget=forms.Textarea(attrs={"rows": 3}))
    email = forms.EmailField(label="Your email (for the answer, optional)", required=False)


class AccessRequestForm(forms.Form):
    name = forms.CharField(label="Your name", max_length=200)
    company = forms.CharField(label="Company", max_length=200)
    email = forms.EmailField(label="Work email")
    accept_nda = forms.BooleanField(label="I accept the non-disclosure agreement above", required=True)

from django.shortcuts import render

from .selectors import home_status


def home(request):
    """Where things stand; htmx re-fetches only the status block while work is running."""
    template = "_home_status.html" if request.htmx else "home.html"
    return render(request, template, home_status(request.user))

from django.shortcuts import render


def index(request):
    return render(request, "solution_library/index.html")

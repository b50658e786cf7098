from django.shortcuts import render


def index(request):
    return render(request, "rfp_manager/index.html")

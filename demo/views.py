from django.http import HttpResponse

from .services.workbook import build_workbook, read_demo_rfp

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def rfp_workbook(request):
    """The demo RFP's questionnaire as the client sent it, to try the import by hand (step 3 of the tour)."""
    rfp = read_demo_rfp()
    response = HttpResponse(build_workbook(rfp), content_type=XLSX_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{rfp.filename}"'
    return response

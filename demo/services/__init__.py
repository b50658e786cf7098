"""The demo's work as plain functions.

- rendering: the readable text sources → PDF and DOCX bytes (deterministic)
- workbook:  the demo RFP → a client-style multi-sheet questionnaire workbook
- loading:   load_demo(), through the same services an upload and an import use
"""

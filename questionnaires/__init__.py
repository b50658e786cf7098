"""Questionnaire files, read and written back, knowing nothing of RFPs, answers or the database.

- `sheets`: an XLSX or CSV as plain sheets (values, formulas, hidden columns, drop-downs);
- `analysis`: which sheets hold questions, the header row, each column's role (the mapping);
- `row_walk`: the questions a mapping selects (or pasted text holds), each with its place;
- `word` and `pdf`: a DOCX's tables and numbered questions, a PDF's form fields or numbered lines,
  as sheets, and the writers that put answers back at those places;
- `dropdowns`: the options of a cell's drop-down, wherever the workbook keeps them.

rfp_manager (the import, the export) and answer_library (seeding from an answered questionnaire)
build on it; it imports neither.
"""

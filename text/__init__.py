"""Plain text handling shared by search and answering, knowing nothing of Django, models or LLMs.

- `words`: the tokens of a text, the stop words and questionnaire phrasing left out of its
  subject, the crude stems by which words are compared, and the citation marker "[n]".

solution_library (the full-text query, snippets), llm_manager (the offline provider, grounding)
and rfp_manager / answer_library (answering, choices, matching) build on it; it imports none of them.
"""

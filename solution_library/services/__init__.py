"""The library's domain work as plain functions (no Celery, no request).

- parsing:      recognise a file's type from its content and extract its text
- chunking:     split text into overlapping passages on natural boundaries
- documents:    store uploads, process (parse → chunk → embed → store) a document
- search_index: the vector index over Chunk.embedding, in files every process memory-maps
- search:       search_passages(), the retrieval service other apps call
- sync:         crawl a documentation source into documents
"""

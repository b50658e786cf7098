"""The bottom of the project beside `jobs` and `text`: what every app's views and services share and no app owns.

`permissions` (who may open staff pages) and `storage` (media storage: the S3 options settings.py gives
django-storages, and what a storage failure means in words). It imports no app and is not one itself.
"""

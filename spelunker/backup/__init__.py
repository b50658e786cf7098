"""Export everything a team owns to a folder or archive, and import it into a fresh install.

Modelled on paperless-ngx's document_exporter / document_importer: rows go through Django's own
serialization (natural keys for users, groups, permissions and content types, so they survive a
fresh database whose ids differ), files through the storage API (local disk or S3, either side),
and a manifest lists every part with its SHA-256, checked before anything is written.

`contents` says which tables go and why the others do not; `manifest` writes and checks the folder;
`exporting` and `importing` are the two directions. The management commands `export_team` and
`import_team` call them.
"""

"""Media storage: the S3 options settings.py gives django-storages, and what a storage failure means in words.

Uploads, the documents workers parse and the client workbooks exports write into all live in
Django's default storage: a local folder for one machine (`make run`), an S3-compatible bucket
for several (docs/deployment.md). Code that stores or reads a file catches STORAGE_ERRORS and
shows `describe_storage_error()`: a person reads "the storage refused our credentials", not a
traceback, and the row that needed the file says why it failed instead of staying "processing".
"""

from django.core.files.storage import default_storage

try:  # botocore comes with django-storages' S3 backend; a local-folder install may lack it
    from botocore.exceptions import BotoCoreError, ClientError
except ImportError:  # pragma: no cover - requirements.txt installs it
    BotoCoreError = ClientError = OSError

STORAGE_ERRORS = (OSError, BotoCoreError, ClientError)

# Short timeouts and two attempts: an outage of the storage must fail an upload or a document
# within seconds with a clear reason (the person can retry), never hang a request or a worker.
CONNECT_TIMEOUT_S = 3
READ_TIMEOUT_S = 20
MAX_ATTEMPTS = 2

CREDENTIAL_CODES = {
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "AccessDenied",
    "InvalidToken",
    "ExpiredToken",
    "403",
}
MISSING_BUCKET_CODES = {"NoSuchBucket"}


def s3_storage_options(*, bucket: str, endpoint_url, access_key, secret_key, region, prefix: str) -> dict:
    """OPTIONS for storages.backends.s3.S3Storage from the SPELUNKER_S3_* settings."""
    from botocore.config import Config

    return {
        "bucket_name": bucket,
        "endpoint_url": endpoint_url,
        "access_key": access_key,
        "secret_key": secret_key,
        "region_name": region,
        "location": prefix,
        # Two uploads of report.pdf must not overwrite each other (FileSystemStorage's behaviour).
        "file_overwrite": False,
        # Objects stay private; the app reads them with its own credentials.
        "default_acl": None,
        "querystring_auth": True,
        # Path-style URLs work with every S3-compatible server (MinIO, Ceph, moto), not only AWS.
        "addressing_style": "path",
        "signature_version": "s3v4",
        "client_config": Config(
            connect_timeout=CONNECT_TIMEOUT_S,
            read_timeout=READ_TIMEOUT_S,
            retries={"max_attempts": MAX_ATTEMPTS, "mode": "standard"},
        ),
    }


def describe_storage_error(exc: Exception) -> str:
    """One sentence a person can act on, for any failure of the media storage."""
    code = _error_code(exc)
    if code in CREDENTIAL_CODES:
        return f"the file storage refused our credentials ({code}): check SPELUNKER_S3_ACCESS_KEY_ID and its secret"
    if code in MISSING_BUCKET_CODES or (code == "404" and _is_bucket_error(exc)):
        return "the file storage's bucket does not exist: check SPELUNKER_S3_BUCKET"
    if isinstance(exc, BotoCoreError):
        return f"the file storage cannot be reached ({type(exc).__name__}: {exc})"
    if isinstance(exc, FileNotFoundError):
        return f"the stored file is missing ({exc})"
    if code:
        return f"the file storage answered with an error ({code}: {exc})"
    return f"the file storage failed ({type(exc).__name__}: {exc})"


def _error_code(exc: Exception) -> str:
    response = getattr(exc, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


def _is_bucket_error(exc: Exception) -> bool:
    return getattr(exc, "operation_name", "") in ("HeadBucket", "CreateMultipartUpload", "PutObject")


def check_storage() -> str:
    """/readyz with S3 media: the bucket exists and our credentials are accepted."""
    bucket = default_storage.bucket
    bucket.meta.client.head_bucket(Bucket=bucket.name)
    return "ok"


def save_or_refuse(field_file, name: str, content, refused: type[Exception]) -> None:
    """field_file.save(name, content) without saving the row; a storage failure becomes `refused(message)`.

    For forms whose service already speaks in its own error (an import error shown on the page).
    """
    try:
        field_file.save(name, content, save=False)
    except STORAGE_ERRORS as exc:
        raise refused(
            f"The file was not stored: {describe_storage_error(exc)}. Nothing was saved; "
            f"try again once the file storage is back."
        ) from exc

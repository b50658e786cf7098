"""The test stack's S3 server (bin/stack --with-s3: moto's server mode) as the media storage of one test.

`S3Media` names the bucket, an endpoint and a key prefix of its own (so tests never see each
other's objects), switches this process's default storage to it (the `s3_media` fixture), gives
the SPELUNKER_S3_* environment a worker or web process needs to use the same storage, and reads
the bucket directly, as an operator would with `aws s3 ls`, to show what is really stored.
"""

import os
import uuid

import boto3


class S3Media:
    def __init__(
        self,
        endpoint_url: str | None = None,
        access_key: str | None = None,
        secret_key: str | None = None,
        bucket: str | None = None,
    ):
        assert os.environ.get("STACK_S3_ENDPOINT_URL"), "S3 tests run under bin/test-stack (bin/stack --with-s3)"
        self.endpoint_url = endpoint_url or os.environ["STACK_S3_ENDPOINT_URL"]
        self.access_key = access_key or os.environ["STACK_S3_ACCESS_KEY_ID"]
        self.secret_key = secret_key or os.environ["STACK_S3_SECRET_ACCESS_KEY"]
        self.bucket = bucket or os.environ["STACK_S3_BUCKET"]
        self.prefix = f"test-{uuid.uuid4().hex[:10]}"

    @property
    def env(self) -> dict[str, str]:
        """The settings of every process that shares this storage (web, workers, another machine)."""
        return {
            "SPELUNKER_S3_BUCKET": self.bucket,
            "SPELUNKER_S3_ENDPOINT_URL": self.endpoint_url,
            "SPELUNKER_S3_ACCESS_KEY_ID": self.access_key,
            "SPELUNKER_S3_SECRET_ACCESS_KEY": self.secret_key,
            "SPELUNKER_S3_REGION": "us-east-1",
            "SPELUNKER_S3_PREFIX": self.prefix,
        }

    def storages_setting(self) -> dict:
        """settings.STORAGES as settings.py builds it from `env`."""
        from django.conf import settings

        from core.storage import s3_storage_options

        return {
            **settings.STORAGES,
            "default": {
                "BACKEND": "storages.backends.s3.S3Storage",
                "OPTIONS": s3_storage_options(
                    bucket=self.bucket,
                    endpoint_url=self.endpoint_url,
                    access_key=self.access_key,
                    secret_key=self.secret_key,
                    region="us-east-1",
                    prefix=self.prefix,
                ),
            },
        }

    def use_in(self, settings) -> None:
        """Make this storage the default of this process (pytest-django's `settings` fixture)."""
        settings.S3_BUCKET = self.bucket
        settings.STORAGES = self.storages_setting()

    def client(self):
        """A client with the stack's own (valid) key, whatever this storage was given."""
        return boto3.client(
            "s3",
            endpoint_url=os.environ["STACK_S3_ENDPOINT_URL"],
            region_name="us-east-1",
            aws_access_key_id=os.environ["STACK_S3_ACCESS_KEY_ID"],
            aws_secret_access_key=os.environ["STACK_S3_SECRET_ACCESS_KEY"],
        )

    def keys(self) -> list[str]:
        """The object keys under this storage's prefix, relative to it (what FileField.name holds)."""
        pages = (
            self.client()
            .get_paginator("list_objects_v2")
            .paginate(Bucket=os.environ["STACK_S3_BUCKET"], Prefix=f"{self.prefix}/")
        )
        return sorted(obj["Key"].removeprefix(f"{self.prefix}/") for page in pages for obj in page.get("Contents", []))

    def read(self, name: str) -> bytes:
        return (
            self.client().get_object(Bucket=os.environ["STACK_S3_BUCKET"], Key=f"{self.prefix}/{name}")["Body"].read()
        )

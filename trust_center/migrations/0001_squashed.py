"""The trust center's tables.

Squashed from 0001_initial, whose dependencies named other apps' migrations that are squashed too
(nothing was released): a database made by it is taken as up to date (`replaces`).
"""

import uuid

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    replaces = [
        ("trust_center", "0001_initial"),
    ]

    dependencies = [
        ("answer_library", "0001_squashed"),
        ("rfp_manager", "0001_squashed"),
        ("solution_library", "0001_squashed"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="PublishedDocument",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("uuid", models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                ("title", models.CharField(max_length=200)),
                ("description", models.CharField(blank=True, max_length=300)),
                (
                    "access",
                    models.CharField(
                        choices=[
                            ("public", "Public: anyone downloads it"),
                            ("on_request", "On request: after the NDA and a team member's approval"),
                        ],
                        default="on_request",
                        max_length=12,
                    ),
                ),
                ("order", models.PositiveIntegerField(default=0)),
                (
                    "document",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="solution_library.document"
                    ),
                ),
            ],
            options={
                "ordering": ["center", "order", "pk"],
            },
        ),
        migrations.CreateModel(
            name="AccessRequest",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("uuid", models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                ("name", models.CharField(max_length=200)),
                ("company", models.CharField(max_length=200)),
                ("email", models.EmailField(max_length=254)),
                ("nda_text", models.TextField(help_text="The NDA as the visitor accepted it")),
                ("nda_accepted_at", models.DateTimeField()),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Waiting for the team"),
                            ("approved", "Approved: link sent"),
                            ("declined", "Declined"),
                        ],
                        db_index=True,
                        default="pending",
                        max_length=10,
                    ),
                ),
                ("decided_at", models.DateTimeField(blank=True, null=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "decided_by",
                    models.ForeignKey(
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "document",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="requests",
                        to="trust_center.publisheddocument",
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-pk"],
            },
        ),
        migrations.CreateModel(
            name="TrustCenter",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("slug", models.SlugField(help_text="The page's address: <TRUST_CENTER_PATH><slug>/", unique=True)),
                ("name", models.CharField(max_length=200)),
                ("is_live", models.BooleanField(default=False, help_text="Visitors see the page only when it is live")),
                (
                    "logo",
                    models.FileField(
                        blank=True,
                        upload_to="trust_center/logos/",
                        validators=[django.core.validators.FileExtensionValidator(["png", "jpg", "jpeg", "webp"])],
                    ),
                ),
                (
                    "brand_colour",
                    models.CharField(
                        default="#1f4e79",
                        max_length=7,
                        validators=[django.core.validators.RegexValidator("^#[0-9a-fA-F]{6}$", "A colour as #rrggbb.")],
                    ),
                ),
                (
                    "accent_colour",
                    models.CharField(
                        default="#e8f0f8",
                        max_length=7,
                        validators=[django.core.validators.RegexValidator("^#[0-9a-fA-F]{6}$", "A colour as #rrggbb.")],
                    ),
                ),
                (
                    "overview",
                    models.TextField(help_text="The opening text of the page (plain text, paragraphs by blank lines)"),
                ),
                ("contact_email", models.EmailField(blank=True, max_length=254)),
                ("nda_text", models.TextField(help_text="What a visitor agrees to before requesting a document")),
                (
                    "link_valid_days",
                    models.PositiveIntegerField(default=7, help_text="How long an approved visitor's link works"),
                ),
                (
                    "inbox_owner",
                    models.ForeignKey(
                        help_text="Visitors' questions arrive as one-question RFPs owned by this person",
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="Section",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("title", models.CharField(max_length=120)),
                ("order", models.PositiveIntegerField(default=0)),
                (
                    "center",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="sections",
                        to="trust_center.trustcenter",
                    ),
                ),
            ],
            options={
                "ordering": ["center", "order", "pk"],
            },
        ),
        migrations.AddField(
            model_name="publisheddocument",
            name="center",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="documents", to="trust_center.trustcenter"
            ),
        ),
        migrations.CreateModel(
            name="VisitorEvent",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("page_view", "Viewed the page"),
                            ("search", "Searched"),
                            ("download", "Downloaded a document"),
                            ("request", "Requested a document"),
                            ("question", "Sent a question to the team"),
                            ("link_opened", "Opened their link"),
                        ],
                        max_length=12,
                    ),
                ),
                (
                    "email",
                    models.EmailField(
                        blank=True, help_text="Known when the visitor gave it (a request, a link)", max_length=254
                    ),
                ),
                (
                    "visitor_key",
                    models.CharField(db_index=True, help_text="A keyed hash of the visitor's address", max_length=64),
                ),
                ("detail", models.CharField(blank=True, max_length=300)),
                ("at", models.DateTimeField(auto_now_add=True, db_index=True)),
                (
                    "access_request",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="events",
                        to="trust_center.accessrequest",
                    ),
                ),
                (
                    "center",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="events",
                        to="trust_center.trustcenter",
                    ),
                ),
                (
                    "document",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="trust_center.publisheddocument",
                    ),
                ),
            ],
            options={
                "ordering": ["-at", "-pk"],
            },
        ),
        migrations.CreateModel(
            name="VisitorQuestion",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("text", models.TextField()),
                ("email", models.EmailField(blank=True, max_length=254)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "center",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="questions",
                        to="trust_center.trustcenter",
                    ),
                ),
                (
                    "rfp",
                    models.ForeignKey(
                        null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+", to="rfp_manager.rfp"
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-pk"],
            },
        ),
        migrations.CreateModel(
            name="PublishedEntry",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("order", models.PositiveIntegerField(default=0)),
                ("question", models.TextField(editable=False)),
                ("answer_text", models.TextField(editable=False)),
                ("choice", models.CharField(blank=True, editable=False, max_length=3)),
                (
                    "entry_version",
                    models.PositiveIntegerField(editable=False, help_text="The entry's version the text is from"),
                ),
                (
                    "reviewed_at",
                    models.DateTimeField(editable=False, help_text="When the library approved that text", null=True),
                ),
                ("approved_at", models.DateTimeField(editable=False, null=True)),
                (
                    "approved_by",
                    models.ForeignKey(
                        editable=False,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "entry",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="answer_library.entry"
                    ),
                ),
                (
                    "section",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="entries", to="trust_center.section"
                    ),
                ),
            ],
            options={
                "verbose_name_plural": "published entries",
                "ordering": ["section", "order", "pk"],
                "constraints": [
                    models.UniqueConstraint(fields=("section", "entry"), name="trust_entry_once_per_section")
                ],
            },
        ),
    ]

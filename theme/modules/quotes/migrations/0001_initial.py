"""The quote requests and their items, taken over from the modules' one app (theme_modules):
state only, the tables and their rows stay; the content types are relabelled in place."""

import django.core.validators
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from theme.modules.migration_ops import relabel_content_types

STATE = [
    migrations.CreateModel(
        name="Quote",
        fields=[
            (
                "id",
                models.BigAutoField(
                    auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                ),
            ),
            ("name", models.CharField(max_length=200)),
            ("email", models.EmailField(max_length=254)),
            ("company", models.CharField(blank=True, max_length=200)),
            ("phone", models.CharField(blank=True, max_length=40)),
            ("message", models.TextField(blank=True)),
            (
                "status",
                models.CharField(
                    choices=[("new", "New"), ("answered", "Answered"), ("closed", "Closed")],
                    default="new",
                    max_length=10,
                ),
            ),
            (
                "created_at",
                models.DateTimeField(db_index=True, default=django.utils.timezone.now),
            ),
            (
                "user",
                models.ForeignKey(
                    blank=True,
                    null=True,
                    on_delete=django.db.models.deletion.SET_NULL,
                    related_name="+",
                    to=settings.AUTH_USER_MODEL,
                ),
            ),
        ],
        options={
            "db_table": "theme_modules_quote",
            "ordering": ["-created_at", "-pk"],
        },
    ),
    migrations.CreateModel(
        name="QuoteItem",
        fields=[
            (
                "id",
                models.BigAutoField(
                    auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                ),
            ),
            (
                "quantity",
                models.PositiveIntegerField(
                    validators=[django.core.validators.MinValueValidator(1)]
                ),
            ),
            (
                "product",
                models.ForeignKey(
                    on_delete=django.db.models.deletion.CASCADE,
                    related_name="+",
                    to="store_catalog.product",
                ),
            ),
            (
                "quote",
                models.ForeignKey(
                    on_delete=django.db.models.deletion.CASCADE,
                    related_name="items",
                    to="theme_modules_quotes.quote",
                ),
            ),
        ],
        options={
            "db_table": "theme_modules_quoteitem",
            "ordering": ["pk"],
        },
    ),
]


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("theme_modules", "0003_split_into_module_apps"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("store_catalog", "0002_list_indexes_search_document"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=STATE, database_operations=[]),
        relabel_content_types("theme_modules", "theme_modules_quotes", ["quote", "quoteitem"]),
    ]

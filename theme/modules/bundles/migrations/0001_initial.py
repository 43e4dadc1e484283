"""The bundles and their items, taken over from the modules' one app (theme_modules): state
only, the tables and their rows stay; the content types are relabelled in place."""

from decimal import Decimal

import django.core.validators
import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

from theme.modules.migration_ops import relabel_content_types

STATE = [
    migrations.CreateModel(
        name="Bundle",
        fields=[
            (
                "id",
                models.BigAutoField(
                    auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                ),
            ),
            ("title", models.CharField(max_length=200)),
            ("slug", models.SlugField(max_length=200, unique=True)),
            ("description", models.TextField(blank=True)),
            ("active", models.BooleanField(default=True)),
            (
                "discount_percent",
                models.DecimalField(
                    decimal_places=2,
                    default=Decimal("0"),
                    max_digits=5,
                    validators=[
                        django.core.validators.MinValueValidator(Decimal("0")),
                        django.core.validators.MaxValueValidator(Decimal("100")),
                    ],
                ),
            ),
            (
                "created_at",
                models.DateTimeField(default=django.utils.timezone.now, editable=False),
            ),
        ],
        options={
            "db_table": "theme_modules_bundle",
            "ordering": ["title", "pk"],
        },
    ),
    migrations.CreateModel(
        name="BundleItem",
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
                    default=1, validators=[django.core.validators.MinValueValidator(1)]
                ),
            ),
            (
                "bundle",
                models.ForeignKey(
                    on_delete=django.db.models.deletion.CASCADE,
                    related_name="items",
                    to="theme_modules_bundles.bundle",
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
        ],
        options={
            "db_table": "theme_modules_bundleitem",
            "ordering": ["pk"],
            "constraints": [
                models.UniqueConstraint(fields=("bundle", "product"), name="bundle_item_product")
            ],
        },
    ),
]


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("theme_modules", "0003_split_into_module_apps"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("store_catalog", "0002_list_indexes_search_document"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=STATE, database_operations=[]),
        relabel_content_types("theme_modules", "theme_modules_bundles", ["bundle", "bundleitem"]),
    ]

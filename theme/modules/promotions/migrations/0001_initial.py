"""The promotion rules, taken over from the modules' one app (theme_modules): state only, the
table and its rows stay; the content type is relabelled in place."""

from decimal import Decimal

import django.core.validators
import django.utils.timezone
from django.db import migrations, models

from theme.modules.migration_ops import relabel_content_types

STATE = [
    migrations.CreateModel(
        name="Promotion",
        fields=[
            (
                "id",
                models.BigAutoField(
                    auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                ),
            ),
            ("name", models.CharField(max_length=200)),
            ("description", models.CharField(blank=True, max_length=500)),
            (
                "kind",
                models.CharField(
                    choices=[
                        ("percent", "Percent off the subtotal"),
                        ("fixed", "Fixed amount off the cart"),
                    ],
                    max_length=10,
                ),
            ),
            (
                "value",
                models.DecimalField(
                    decimal_places=2,
                    max_digits=12,
                    validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                ),
            ),
            (
                "min_subtotal",
                models.DecimalField(
                    decimal_places=2,
                    default=Decimal("0"),
                    max_digits=12,
                    validators=[django.core.validators.MinValueValidator(Decimal("0"))],
                ),
            ),
            ("active", models.BooleanField(default=True)),
            ("starts_at", models.DateTimeField(blank=True, null=True)),
            ("ends_at", models.DateTimeField(blank=True, null=True)),
            ("priority", models.PositiveIntegerField(default=10)),
            (
                "created_at",
                models.DateTimeField(default=django.utils.timezone.now, editable=False),
            ),
        ],
        options={
            "db_table": "theme_modules_promotion",
            "ordering": ["priority", "pk"],
        },
    ),
]


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("theme_modules", "0003_split_into_module_apps"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=STATE, database_operations=[]),
        relabel_content_types("theme_modules", "theme_modules_promotions", ["promotion"]),
    ]

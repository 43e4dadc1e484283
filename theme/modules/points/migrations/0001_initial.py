"""The loyalty points entries, taken over from the modules' one app (theme_modules): state
only, the table and its rows stay; the content type is relabelled in place."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from theme.modules.migration_ops import relabel_content_types

STATE = [
    migrations.CreateModel(
        name="PointsEntry",
        fields=[
            (
                "id",
                models.BigAutoField(
                    auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                ),
            ),
            (
                "kind",
                models.CharField(
                    choices=[
                        ("earned", "Earned on a paid order"),
                        ("reversed", "Reversed on a refund"),
                    ],
                    max_length=20,
                ),
            ),
            ("points", models.IntegerField()),
            ("note", models.CharField(blank=True, max_length=200)),
            (
                "created_at",
                models.DateTimeField(db_index=True, default=django.utils.timezone.now),
            ),
            (
                "order",
                models.ForeignKey(
                    blank=True,
                    null=True,
                    on_delete=django.db.models.deletion.SET_NULL,
                    related_name="+",
                    to="store_orders.order",
                ),
            ),
            (
                "user",
                models.ForeignKey(
                    on_delete=django.db.models.deletion.CASCADE,
                    related_name="theme_points",
                    to=settings.AUTH_USER_MODEL,
                ),
            ),
        ],
        options={
            "verbose_name_plural": "points entries",
            "db_table": "theme_modules_pointsentry",
            "ordering": ["-created_at", "-pk"],
            "constraints": [
                models.UniqueConstraint(
                    condition=models.Q(("order__isnull", False)),
                    fields=("order", "kind"),
                    name="points_per_order",
                )
            ],
        },
    ),
]


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("theme_modules", "0003_split_into_module_apps"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("store_orders", "0004_restock_and_vat_number"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=STATE, database_operations=[]),
        relabel_content_types("theme_modules", "theme_modules_points", ["pointsentry"]),
    ]

"""The recently viewed rows, taken over from the modules' one app (theme_modules): state only,
the table and its rows stay; the content type is relabelled in place."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from theme.modules.migration_ops import relabel_content_types

STATE = [
    migrations.CreateModel(
        name="RecentlyViewed",
        fields=[
            (
                "id",
                models.BigAutoField(
                    auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                ),
            ),
            ("session_token", models.CharField(blank=True, db_index=True, max_length=64)),
            (
                "viewed_at",
                models.DateTimeField(db_index=True, default=django.utils.timezone.now),
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
                "user",
                models.ForeignKey(
                    blank=True,
                    null=True,
                    on_delete=django.db.models.deletion.CASCADE,
                    related_name="+",
                    to=settings.AUTH_USER_MODEL,
                ),
            ),
        ],
        options={
            "verbose_name": "recently viewed product",
            "verbose_name_plural": "recently viewed products",
            "db_table": "theme_modules_recentlyviewed",
            "ordering": ["-viewed_at", "-pk"],
            "constraints": [
                models.UniqueConstraint(
                    condition=models.Q(("user__isnull", False)),
                    fields=("user", "product"),
                    name="rv_user_product",
                ),
                models.UniqueConstraint(
                    condition=models.Q(("user__isnull", True)),
                    fields=("session_token", "product"),
                    name="rv_session_product",
                ),
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
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=STATE, database_operations=[]),
        relabel_content_types("theme_modules", "theme_modules_recently_viewed", ["recentlyviewed"]),
    ]

"""The cart recoveries, taken over from the modules' one app (theme_modules): state only, the
table and its rows stay; the content type is relabelled in place."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

from theme.modules.migration_ops import relabel_content_types

STATE = [
    migrations.CreateModel(
        name="CartRecovery",
        fields=[
            (
                "id",
                models.BigAutoField(
                    auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                ),
            ),
            ("email", models.EmailField(max_length=254)),
            ("cart_updated_at", models.DateTimeField()),
            ("sent_at", models.DateTimeField(default=django.utils.timezone.now)),
            ("restored_at", models.DateTimeField(blank=True, null=True)),
            (
                "cart",
                models.OneToOneField(
                    on_delete=django.db.models.deletion.CASCADE,
                    related_name="+",
                    to="store_cart.cart",
                ),
            ),
        ],
        options={
            "verbose_name": "cart recovery",
            "verbose_name_plural": "cart recoveries",
            "db_table": "theme_modules_cartrecovery",
        },
    ),
]


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("theme_modules", "0003_split_into_module_apps"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("store_cart", "0004_cart_vat_number"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=STATE, database_operations=[]),
        relabel_content_types("theme_modules", "theme_modules_recover_cart", ["cartrecovery"]),
    ]

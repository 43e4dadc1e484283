"""The customer groups and their members, taken over from the modules' one app
(theme_modules): state only, the tables and their rows stay; the content types are relabelled
in place."""

from decimal import Decimal

import django.core.validators
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from theme.modules.migration_ops import relabel_content_types

STATE = [
    migrations.CreateModel(
        name="CustomerGroup",
        fields=[
            (
                "id",
                models.BigAutoField(
                    auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                ),
            ),
            ("name", models.CharField(max_length=100, unique=True)),
            ("description", models.CharField(blank=True, max_length=500)),
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
            "db_table": "theme_modules_customergroup",
            "ordering": ["name", "pk"],
        },
    ),
    migrations.CreateModel(
        name="CustomerGroupMember",
        fields=[
            (
                "id",
                models.BigAutoField(
                    auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                ),
            ),
            (
                "group",
                models.ForeignKey(
                    on_delete=django.db.models.deletion.CASCADE,
                    related_name="memberships",
                    to="theme_modules_b2b.customergroup",
                ),
            ),
            (
                "user",
                models.OneToOneField(
                    on_delete=django.db.models.deletion.CASCADE,
                    related_name="theme_group_membership",
                    to=settings.AUTH_USER_MODEL,
                ),
            ),
        ],
        options={
            "db_table": "theme_modules_customergroupmember",
        },
    ),
    migrations.AddField(
        model_name="customergroup",
        name="members",
        field=models.ManyToManyField(
            blank=True,
            related_name="+",
            through="theme_modules_b2b.CustomerGroupMember",
            to=settings.AUTH_USER_MODEL,
        ),
    ),
]


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("theme_modules", "0003_split_into_module_apps"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=STATE, database_operations=[]),
        relabel_content_types(
            "theme_modules", "theme_modules_b2b", ["customergroup", "customergroupmember"]
        ),
    ]

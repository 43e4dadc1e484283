"""The modules' models leave this app's state for their own apps (theme.modules.<module>).

State only: the tables stay as they are, with their rows (each module's model keeps its
db_table), and each module's first migration, which runs after this one, takes the model into
its state and relabels its content types."""

from django.db import migrations

STATE = [
    migrations.RemoveField(model_name="customergroup", name="members"),
    migrations.DeleteModel(name="CustomerGroupMember"),
    migrations.DeleteModel(name="CustomerGroup"),
    migrations.DeleteModel(name="BundleItem"),
    migrations.DeleteModel(name="Bundle"),
    migrations.DeleteModel(name="QuoteItem"),
    migrations.DeleteModel(name="Quote"),
    migrations.DeleteModel(name="PointsEntry"),
    migrations.DeleteModel(name="Promotion"),
    migrations.DeleteModel(name="RecentlyViewed"),
    migrations.DeleteModel(name="CartRecovery"),
]


class Migration(migrations.Migration):
    dependencies = [
        ("theme_modules", "0002_admin_names"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=STATE, database_operations=[]),
    ]

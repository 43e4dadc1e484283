from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("erp_invoicing", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="invoice",
            name="auto_issue_error",
            field=models.CharField(
                blank=True,
                editable=False,
                help_text="Why the last automatic issue was refused: this draft's (auto-invoice) "
                "or the credit note of a refund on this invoice; empty once one succeeds.",
                max_length=500,
            ),
        ),
        migrations.AddField(
            model_name="invoice",
            name="refund_payment_id",
            field=models.PositiveBigIntegerField(blank=True, editable=False, null=True),
        ),
        migrations.AddConstraint(
            model_name="invoice",
            constraint=models.UniqueConstraint(
                condition=models.Q(("refund_payment_id__isnull", False)),
                fields=("refund_payment_id",),
                name="erp_invoicing_one_note_per_refund",
            ),
        ),
    ]

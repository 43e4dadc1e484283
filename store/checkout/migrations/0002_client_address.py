from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("store_checkout", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="checkout",
            name="client_address",
            field=models.CharField(
                blank=True,
                help_text="The shopper's address at its last write, as the rate limits see it: "
                "the hoarding limit counts what one address holds.",
                max_length=64,
            ),
        ),
        migrations.AddIndex(
            model_name="checkout",
            index=models.Index(
                condition=models.Q(("client_address", ""), _negated=True),
                fields=["client_address"],
                name="store_checkout_client_address",
            ),
        ),
    ]

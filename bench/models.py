"""The floors' table: installed only by bench.settings (created by `migrate --run-syncdb`)."""

from django.db import models


class FloorRow(models.Model):
    counter = models.BigIntegerField(default=0)
    label = models.CharField(max_length=64)

    class Meta:
        app_label = "bench"
        db_table = "bench_floor_row"

    def __str__(self) -> str:
        return self.label
